package checkpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// table opens a corpus table as a local store, skipping when the corpus is
// not there.
func table(t testing.TB, rel string) (storage.Store, string) {
	t.Helper()
	root := corpus.Path(t, rel)
	if _, err := os.Stat(filepath.Join(root, "_delta_log")); err != nil {
		t.Skipf("conformance table %s not found", rel)
	}
	st, err := storage.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	return st, root
}

// checkpointParts lists the checkpoint files of version v (classic, parts,
// or UUID-named) as Read expects them.
func checkpointParts(t testing.TB, root string, v int64) []storage.ObjectInfo {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "_delta_log", fmt.Sprintf("%020d.checkpoint*", v)))
	var out []storage.ObjectInfo
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, storage.ObjectInfo{Key: "_delta_log/" + filepath.Base(f), Size: fi.Size()})
	}
	if len(out) == 0 {
		t.Fatalf("no checkpoint at version %d in %s", v, root)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func readAll(t testing.TB, st storage.Store, parts []storage.ObjectInfo) []protocol.Action {
	t.Helper()
	var out []protocol.Action
	err := readStore(context.Background(), st, parts, func(a protocol.Action) error {
		out = append(out, a)
		return nil
	})
	if err != nil {
		t.Fatalf("Read %v: %v", parts, err)
	}
	return out
}

type summary struct {
	protocols, metadata, adds, removes, txns, domains, cpMeta int
	addPaths                                                  []string
	txn                                                       map[string]int64
	domain                                                    map[string]string
	add                                                       map[string]*protocol.Add
	proto                                                     *protocol.Protocol
	meta                                                      *protocol.Metadata
}

func summarize(actions []protocol.Action) summary {
	s := summary{txn: map[string]int64{}, domain: map[string]string{}, add: map[string]*protocol.Add{}}
	for _, a := range actions {
		switch {
		case a.Protocol != nil:
			s.protocols++
			s.proto = a.Protocol
		case a.Metadata != nil:
			s.metadata++
			s.meta = a.Metadata
		case a.Add != nil:
			s.adds++
			s.addPaths = append(s.addPaths, a.Add.Path)
			s.add[a.Add.Path] = a.Add
		case a.Remove != nil:
			s.removes++
		case a.Txn != nil:
			s.txns++
			s.txn[a.Txn.AppID] = a.Txn.Version
		case a.DomainMetadata != nil:
			s.domains++
			s.domain[a.DomainMetadata.Domain] = a.DomainMetadata.Configuration
		case a.CheckpointMetadata != nil:
			s.cpMeta++
		case a.Sidecar != nil:
			panic("sidecar actions must not be emitted")
		}
	}
	sort.Strings(s.addPaths)
	return s
}

// fileKey is the reconciliation key of a file action.
func fileKey(path string, dv *protocol.DeletionVector) string { return path + "#" + dv.UniqueID() }

// replayJSON reconciles the JSON commits 0..v of a table: the live adds by
// file key, plus the latest protocol, metadata, txns and domains.
func replayJSON(t testing.TB, root string, v int64) (map[string]*protocol.Add, map[string]int64) {
	t.Helper()
	live := map[string]*protocol.Add{}
	txns := map[string]int64{}
	for i := int64(0); i <= v; i++ {
		data, err := os.ReadFile(filepath.Join(root, "_delta_log", fmt.Sprintf("%020d.json", i)))
		if err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		actions, err := protocol.DecodeCommit(data)
		if err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		for _, a := range actions {
			switch {
			case a.Add != nil:
				live[fileKey(a.Add.Path, a.Add.DeletionVector)] = a.Add
			case a.Remove != nil:
				delete(live, fileKey(a.Remove.Path, a.Remove.DeletionVector))
			case a.Txn != nil:
				txns[a.Txn.AppID] = a.Txn.Version
			}
		}
	}
	return live, txns
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// The checkpoint holds exactly the files the JSON commits leave live, with
// the same sizes, partition values and statistics, whether the checkpoint
// stores stats as JSON or only as stats_parsed (which Read renders to JSON).
func TestReadMatchesJSONReplay(t *testing.T) {
	cases := []struct {
		table   string
		version int64
		// structStats: the checkpoint has stats only as stats_parsed.
		structStats bool
	}{
		{"dat/with_checkpoint/delta", 2, false},
		{"dat/no_stats/delta", 2, false},
		{"delta-rs/delta-1.2.1-only-struct-stats", 10, true},
		{"delta-rs/delta-checkpoint-stats-optional", 2, true},
		{"delta-rs/simple_table_with_checkpoint", 10, false},
		{"delta-rs/delta-0.2.0", 3, false},
		{"delta-rs/checkpoint-v2-table", 6, false},
		{"delta-rs/checkpoint-v2-table", 8, false},
		{"kernel-rs/v1-single-part-struct-stats-only", 5, true},
		{"kernel-rs/v1-multi-part-struct-stats-only", 5, true},
		{"kernel-rs/v1-multi-part-partitioned-struct-stats-only", 5, true},
		{"kernel-rs/v2-classic-parquet-struct-stats-only", 5, true},
		{"kernel-rs/v2-json-sidecars-struct-stats-only", 5, true},
		{"kernel-rs/v2-parquet-sidecars-struct-stats-only", 5, true},
		{"kernel-rs/v2-checkpoints-json-with-sidecars", 6, false},
		{"kernel-rs/v2-checkpoints-parquet-with-sidecars", 6, false},
		{"kernel-rs/v2-checkpoints-json-without-sidecars", 2, false},
		{"kernel-rs/v2-checkpoints-parquet-without-sidecars", 2, false},
		{"kernel-rs/v2-classic-checkpoint-json", 1, false},
		{"kernel-rs/v2-classic-checkpoint-parquet", 1, false},
		{"kernel-rs/app-txn-checkpoint", 1, false},
		{"kernel-java-spark/kernel-pagination-multi-part-checkpoints", 0, false},
		{"kernel-java-spark/kernel-pagination-single-checkpoint", 10, false},
		{"kernel-java-spark/kernel-pagination-v2-checkpoint-json", 4, false},
		{"kernel-java-spark/kernel-pagination-v2-checkpoint-parquet", 2, false},
		{"kernel-java-spark/kernel-pagination-v2-checkpoint-parquet", 4, false},
		{"golden/v2-checkpoint-json/delta", 2, false},
		{"golden/checkpoint/delta", 10, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s@%d", c.table, c.version), func(t *testing.T) {
			st, root := table(t, c.table)
			got := readAll(t, st, checkpointParts(t, root, c.version))
			s := summarize(got)
			if s.protocols != 1 || s.metadata != 1 {
				t.Errorf("%d protocol and %d metaData actions, want 1 each", s.protocols, s.metadata)
			}
			if s.meta != nil && (s.meta.ID == "" || s.meta.SchemaString == "" || s.meta.Format.Provider != "parquet") {
				t.Errorf("metaData incomplete: %+v", s.meta)
			}
			live, txns := replayJSON(t, root, c.version)
			if s.adds != len(live) {
				t.Errorf("%d adds, JSON replay has %d live files", s.adds, len(live))
			}
			if !reflect.DeepEqual(s.txn, txns) && (len(s.txn) > 0 || len(txns) > 0) {
				t.Errorf("txns %v, JSON replay %v", s.txn, txns)
			}
			rendered, compared := 0, 0
			for _, a := range got {
				if a.Add == nil {
					continue
				}
				want, ok := live[fileKey(a.Add.Path, a.Add.DeletionVector)]
				if !ok {
					t.Errorf("add %s is not live in the JSON replay", a.Add.Path)
					continue
				}
				if a.Add.Size != want.Size || a.Add.ModificationTime != want.ModificationTime {
					t.Errorf("add %s: size %d mtime %d, want %d %d", a.Add.Path, a.Add.Size, a.Add.ModificationTime, want.Size, want.ModificationTime)
				}
				if !reflect.DeepEqual(a.Add.PartitionValues, nonNil(want.PartitionValues)) {
					t.Errorf("add %s: partition values %v, want %v", a.Add.Path, a.Add.PartitionValues, want.PartitionValues)
				}
				if a.Add.Stats != "" {
					rendered++
				}
				if a.Add.Stats != "" && want.Stats != "" {
					compared++
				}
				if a.Add.Stats != "" && want.Stats != "" && !jsonEqual(a.Add.Stats, want.Stats) {
					t.Errorf("add %s: stats\n got %s\nwant %s", a.Add.Path, a.Add.Stats, want.Stats)
				}
			}
			if c.structStats && (rendered == 0 || compared == 0) {
				t.Errorf("stats rendered from stats_parsed for %d adds, %d compared with the JSON log", rendered, compared)
			}
		})
	}
}

func nonNil(m protocol.PartitionValues) protocol.PartitionValues {
	if m == nil {
		return protocol.PartitionValues{}
	}
	return m
}
