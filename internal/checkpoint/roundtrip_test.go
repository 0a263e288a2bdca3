package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// canonical renders an action as comparable text: stats re-encoded with
// sorted keys, and what a checkpoint does not keep (remove stats and tags,
// checkpointMetadata tags) left out.
func canonical(t testing.TB, a protocol.Action) string {
	t.Helper()
	switch {
	case a.Add != nil:
		c := *a.Add
		if c.Stats != "" {
			var v any
			if err := json.Unmarshal([]byte(c.Stats), &v); err != nil {
				t.Fatalf("add %s: stats %q: %v", c.Path, c.Stats, err)
			}
			b, _ := json.Marshal(v)
			c.Stats = string(b)
		}
		if c.PartitionValues == nil {
			c.PartitionValues = map[string]string{}
		}
		a.Add = &c
	case a.Remove != nil:
		c := *a.Remove
		c.Stats, c.Tags = "", nil
		a.Remove = &c
	case a.CheckpointMetadata != nil:
		a.CheckpointMetadata = &protocol.CheckpointMetadata{Version: a.CheckpointMetadata.Version}
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func canonicalAll(t testing.TB, actions []protocol.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, canonical(t, a))
	}
	sort.Strings(out)
	return out
}

func diffLists(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d actions, want %d", len(got), len(want))
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			t.Errorf("action %d differs:\n got %s\nwant %s", i, got[i], want[i])
			return
		}
	}
}

// Writing the actions of a real checkpoint and reading them back gives the
// same actions.
func TestWriteReadRoundTrip(t *testing.T) {
	for _, c := range []struct {
		table   string
		version int64
	}{
		{"dat/with_checkpoint/delta", 2},
		{"dat/no_replay/delta", 4},
		{"delta-rs/delta-0.2.0", 3},
		{"delta-rs/table-with-domain-metadata", 108},
		{"delta-rs/delta-1.2.1-only-struct-stats", 10},
		{"kernel-rs/v1-multi-part-partitioned-struct-stats-only", 5},
		{"kernel-rs/v2-checkpoints-parquet-with-sidecars", 6},
		{"kernel-rs/app-txn-checkpoint", 1},
		{"golden/checkpoint/delta", 10},
	} {
		for _, mode := range []string{"json", "json+struct", "struct"} {
			t.Run(fmt.Sprintf("%s@%d/%s", c.table, c.version, mode), func(t *testing.T) {
				src, root := table(t, c.table)
				orig := readAll(t, src, checkpointParts(t, root, c.version))
				opt := statsModeOptions(t, orig, mode)
				st := storage.NewMemory()
				lc, err := writeStore(context.Background(), st, c.version, orig, opt)
				if err != nil {
					t.Fatal(err)
				}
				info, err := st.Head(context.Background(), protocol.CheckpointKey(c.version))
				if err != nil {
					t.Fatal(err)
				}
				back := readAll(t, st, []storage.ObjectInfo{info})
				adds := 0
				for _, a := range orig {
					if a.Add != nil {
						adds++
					}
				}
				if lc.Version != c.version || lc.Size != int64(len(back)) || lc.NumOfAddFiles != int64(adds) ||
					lc.SizeInBytes != info.Size || lc.Checksum == "" {
					t.Errorf("last checkpoint %+v: want version %d, size %d, %d adds, %d bytes", lc, c.version, len(back), adds, info.Size)
				}
				want := orig
				if mode == "struct" {
					// Without the JSON column, stats come back from
					// stats_parsed: compare them separately, semantically.
					want = withoutStats(orig)
					compareStructStats(t, orig, back)
					back = withoutStats(back)
				}
				diffLists(t, canonicalAll(t, back), canonicalAll(t, want))
			})
		}
	}
}

func withoutStats(actions []protocol.Action) []protocol.Action {
	out := make([]protocol.Action, len(actions))
	for i, a := range actions {
		if a.Add != nil {
			c := *a.Add
			c.Stats = ""
			a.Add = &c
		}
		out[i] = a
	}
	return out
}

// compareStructStats checks that stats written only as stats_parsed read
// back as the same statistics for the columns Delta keeps typed min/max
// for: every number in the original appears unchanged.
func compareStructStats(t *testing.T, orig, back []protocol.Action) {
	t.Helper()
	byPath := map[string]string{}
	for _, a := range back {
		if a.Add != nil {
			byPath[a.Add.Path] = a.Add.Stats
		}
	}
	for _, a := range orig {
		if a.Add == nil || a.Add.Stats == "" {
			continue
		}
		var want, got map[string]any
		if err := json.Unmarshal([]byte(a.Add.Stats), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(byPath[a.Add.Path]), &got); err != nil {
			t.Errorf("add %s: stats_parsed read back as %q: %v", a.Add.Path, byPath[a.Add.Path], err)
			continue
		}
		if got["numRecords"] != want["numRecords"] {
			t.Errorf("add %s: numRecords %v, want %v", a.Add.Path, got["numRecords"], want["numRecords"])
		}
		if want["nullCount"] != nil && fmt.Sprint(got["nullCount"]) != fmt.Sprint(want["nullCount"]) {
			t.Errorf("add %s: nullCount %v, want %v", a.Add.Path, got["nullCount"], want["nullCount"])
		}
		for _, k := range []string{"minValues", "maxValues"} {
			w, _ := want[k].(map[string]any)
			g, _ := got[k].(map[string]any)
			for col, v := range w {
				if _, isBool := v.(bool); isBool {
					continue // no typed min/max for booleans
				}
				if fmt.Sprint(g[col]) != fmt.Sprint(v) {
					t.Errorf("add %s: %s.%s = %v, want %v", a.Add.Path, k, col, g[col], v)
				}
			}
		}
	}
}

// Bad input to Write is an invalid-argument error naming the checkpoint.
func TestWriteRejectsBadInput(t *testing.T) {
	created := int64(1)
	proto := protocol.Action{Protocol: &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}}
	meta := protocol.Action{Metadata: &protocol.Metadata{ID: "x", Format: protocol.Format{Provider: "parquet"}, CreatedTime: &created,
		SchemaString:     `{"type":"struct","fields":[{"name":"d","type":"date","nullable":true,"metadata":{}},{"name":"v","type":"long","nullable":true,"metadata":{}}]}`,
		PartitionColumns: []string{"d"}}}
	badDate := protocol.Action{Add: &protocol.Add{Path: "d=x/a.parquet", PartitionValues: map[string]string{"d": "not a date"}, Size: 1}}
	for name, c := range map[string]struct {
		actions []protocol.Action
		opt     WriteOptions
	}{
		"no protocol":         {[]protocol.Action{meta}, WriteOptions{}},
		"no metaData":         {[]protocol.Action{proto}, WriteOptions{}},
		"two protocols":       {[]protocol.Action{proto, proto, meta}, WriteOptions{}},
		"bad partition value": {[]protocol.Action{proto, meta, badDate}, WriteOptions{WriteStatsAsStruct: true}},
		"unknown partition":   {[]protocol.Action{proto, meta}, WriteOptions{WriteStatsAsStruct: true, Schema: &schema.Struct{}, PartitionColumns: []string{"d"}}},
	} {
		st := storage.NewMemory()
		_, err := writeStore(context.Background(), st, 3, c.actions, c.opt)
		if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "00000000000000000003.checkpoint.parquet") {
			t.Errorf("%s: want an invalid-argument error naming the checkpoint, got %v", name, err)
		}
		if _, err := st.Head(context.Background(), protocol.CheckpointKey(3)); err == nil {
			t.Errorf("%s: a checkpoint was stored", name)
		}
	}
}

// statsModeOptions are the checkpoint options for the table whose actions
// are orig, writing stats in mode: "json", "struct" or "json+struct".
func statsModeOptions(t *testing.T, orig []protocol.Action, mode string) WriteOptions {
	t.Helper()
	var md *protocol.Metadata
	for _, a := range orig {
		if a.Metadata != nil {
			md = a.Metadata
		}
	}
	opt, err := OptionsFor(md)
	if err != nil {
		t.Fatal(err)
	}
	opt.WriteStatsAsJSON = mode != "struct"
	opt.WriteStatsAsStruct = strings.Contains(mode, "struct")
	return opt
}
