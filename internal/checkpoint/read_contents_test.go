package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

func TestReadDomainMetadataAndRowTracking(t *testing.T) {
	st, root := table(t, "delta-rs/table-with-domain-metadata")
	s := summarize(readAll(t, st, checkpointParts(t, root, 108)))
	if s.adds != 109 || s.domains != 3 || s.removes != 0 {
		t.Fatalf("adds %d domains %d removes %d, want 109 3 0", s.adds, s.domains, s.removes)
	}
	if !strings.Contains(s.domain["delta.rowTracking"], `"rowIdHighWaterMark":435`) {
		t.Errorf("delta.rowTracking domain = %q", s.domain["delta.rowTracking"])
	}
	if !strings.Contains(s.domain["delta.clustering"], `"clusteringColumns":[["department"]]`) {
		t.Errorf("delta.clustering domain = %q", s.domain["delta.clustering"])
	}
	if _, ok := s.domain["com.databricks.liquid"]; !ok {
		t.Errorf("domains %v lack com.databricks.liquid", s.domain)
	}
	if got := strings.Join(s.proto.ReaderFeatures, ","); got != "deletionVectors" || s.proto.MinReaderVersion != 3 || s.proto.MinWriterVersion != 7 {
		t.Errorf("protocol %+v", s.proto)
	}
	if !strings.Contains(strings.Join(s.proto.WriterFeatures, ","), "domainMetadata") {
		t.Errorf("writer features %v", s.proto.WriterFeatures)
	}
	a := s.add["part-00000-01813162-d9a8-4a52-b64d-38a381a1041a-c000.snappy.parquet"]
	if a == nil {
		t.Fatal("known add missing")
	}
	if a.Size != 1251 || a.ModificationTime != 1743361160000 || a.BaseRowID == nil || *a.BaseRowID != 136 ||
		a.DefaultRowCommitVersion == nil || *a.DefaultRowCommitVersion != 34 || a.Tags["OPTIMIZE_TARGET_SIZE"] != "268435456" {
		t.Errorf("add %+v", a)
	}
	if !jsonEqual(a.Stats, `{"numRecords":4,"minValues":{"id":1,"name":"Alice","department":"Engineering"},"maxValues":{"id":4,"name":"David","department":"Marketing"},"nullCount":{"id":0,"name":0,"department":0},"tightBounds":true}`) {
		t.Errorf("stats %s", a.Stats)
	}
}

func TestReadTxnAndTombstones(t *testing.T) {
	st, root := table(t, "delta-rs/delta-0.2.0")
	s := summarize(readAll(t, st, checkpointParts(t, root, 3)))
	if s.adds != 3 || s.removes != 4 || s.txns != 1 || s.txn["e4a20b59-dd0e-4c50-b074-e8ae4786df30"] != 0 {
		t.Fatalf("adds %d removes %d txns %v", s.adds, s.removes, s.txn)
	}

	st, root = table(t, "kernel-rs/app-txn-checkpoint")
	s = summarize(readAll(t, st, checkpointParts(t, root, 1)))
	if s.txn["my-app"] != 3 || s.txn["my-app2"] != 2 || s.txns != 2 {
		t.Fatalf("txns %v", s.txn)
	}

	// no_replay: commits 0-1 are gone; the checkpoint at 4 is the table.
	st, root = table(t, "dat/no_replay/delta")
	var removes []*protocol.Remove
	for _, a := range readAll(t, st, checkpointParts(t, root, 4)) {
		if a.Remove != nil {
			removes = append(removes, a.Remove)
		}
	}
	if len(removes) != 2 {
		t.Fatalf("%d tombstones at version 4, want 2", len(removes))
	}
	for _, r := range removes {
		if r.DeletionTimestamp == nil || r.Size == nil || r.ExtendedFileMetadata == nil || !*r.ExtendedFileMetadata {
			t.Errorf("tombstone %+v lacks its deletion timestamp, size or extendedFileMetadata", r)
		}
	}
}

func TestReadVacuumedLog(t *testing.T) {
	st, root := table(t, "delta-rs/checkpoints_vacuumed")
	for v, want := range map[int64]int{5: 5, 10: 10} {
		s := summarize(readAll(t, st, checkpointParts(t, root, v)))
		if s.adds != want || s.protocols != 1 || s.metadata != 1 {
			t.Errorf("checkpoint %d: %d adds (want %d), %d protocol, %d metaData", v, s.adds, want, s.protocols, s.metadata)
		}
	}
}

// A v2 checkpoint's sidecars are read and their adds emitted; the sidecar
// actions themselves are not; the checkpointMetadata action is.
func TestReadV2Sidecars(t *testing.T) {
	st, root := table(t, "kernel-rs/v2-checkpoints-parquet-with-sidecars")
	parts := checkpointParts(t, root, 4)
	s := summarize(readAll(t, st, parts))
	if s.cpMeta != 1 || s.adds == 0 {
		t.Fatalf("checkpointMetadata %d adds %d", s.cpMeta, s.adds)
	}
	live, _ := replayJSON(t, root, 4)
	if s.adds != len(live) {
		t.Fatalf("%d adds from 4 sidecars, want %d", s.adds, len(live))
	}

	// The JSON form at the same version of a sibling table.
	st, root = table(t, "golden/v2-checkpoint-json/delta")
	acts := readAll(t, st, checkpointParts(t, root, 2))
	if acts[0].CheckpointMetadata == nil || acts[0].CheckpointMetadata.Version != 2 {
		t.Fatalf("first action %+v, want checkpointMetadata version 2", acts[0])
	}
	s = summarize(acts)
	if s.adds != 4 || s.meta.Configuration["delta.checkpointPolicy"] != "v2" {
		t.Fatalf("adds %d configuration %v", s.adds, s.meta.Configuration)
	}
}

// The callback's error stops the read and comes back unchanged.
func TestReadCallbackError(t *testing.T) {
	st, root := table(t, "kernel-rs/v2-checkpoints-json-with-sidecars")
	stop := errors.New("stop here")
	for _, parts := range [][]storage.ObjectInfo{checkpointParts(t, root, 6), checkpointParts(t, corpus.Path(t, "dat/with_checkpoint/delta"), 2)} {
		if parts[0].Key == "_delta_log/00000000000000000002.checkpoint.parquet" {
			st, _ = table(t, "dat/with_checkpoint/delta")
		}
		n := 0
		err := readStore(context.Background(), st, parts, func(protocol.Action) error {
			n++
			if n == 2 {
				return stop
			}
			return nil
		})
		if err != stop || n != 2 {
			t.Fatalf("%v: err %v after %d actions", parts, err, n)
		}
	}
}

func TestReadCanceled(t *testing.T) {
	st, root := table(t, "delta-rs/table-with-domain-metadata")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := readStore(ctx, st, checkpointParts(t, root, 108), func(protocol.Action) error { return nil })
	if !errors.Is(err, errs.ErrCanceled) {
		t.Fatalf("want canceled, got %v", err)
	}
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
