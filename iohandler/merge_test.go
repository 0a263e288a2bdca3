package iohandler_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

func mergeHandler(t *testing.T, spec string) *iohandler.Handler {
	t.Helper()
	return newHandler(t, iohandler.Config{Mode: "merge", MergeConfig: json.RawMessage(spec)})
}

// The seed's table of merge types: target {1:a,2:b,3:c}, source {2:B,4:D}.
func TestMergeTypes(t *testing.T) {
	for _, c := range []struct {
		typ  string
		want []string
	}{
		{"upsert", []string{"1:a", "2:B", "3:c", "4:D"}},
		{"deduplicate_insert", []string{"1:a", "2:b", "3:c", "4:D"}},
		{"update_only", []string{"1:a", "2:B", "3:c"}},
		{"replace_delete_unmatched", []string{"2:B"}},
	} {
		t.Run(c.typ, func(t *testing.T) {
			h := mergeHandler(t, `{"merge_type": "`+c.typ+`", "predicate": "s.id = t.id"}`)
			if _, err := writeKV(t, h, "a", map[string]string{"delta/mode": "overwrite"}, "1:a", "2:b", "3:c"); err != nil {
				t.Fatal(err)
			}
			md, err := writeKV(t, h, "a", nil, "2:B", "4:D")
			if err != nil {
				t.Fatal(err)
			}
			equalRows(t, tablerows.Read(t, h.AssetTableURI("a", nil)), kvRows(c.want...)...)
			var stats map[string]any
			if err := json.Unmarshal([]byte(md[iohandler.OutMergeStats].(string)), &stats); err != nil {
				t.Fatal(err)
			}
			if stats["num_source_rows"] != 2.0 || md[iohandler.OutNumOutputRows] == nil || md[iohandler.OutMode] != "merge" {
				t.Fatalf("metadata %v", md)
			}
			if md[iohandler.OutTableNumRows] != int64(len(c.want)) {
				t.Fatalf("table rows %v, want %d", md[iohandler.OutTableNumRows], len(c.want))
			}
		})
	}
}

func TestMergeCustomAndPredicateKey(t *testing.T) {
	h := mergeHandler(t, `{"merge_type": "custom", "predicate": "s.id = t.id",
		"operations": {"when_matched_update": [{"predicate": "s.v > t.v", "updates": {"v": "s.v"}}],
		               "when_not_matched_insert": [{"updates": {"id": "s.id", "v": "'new'"}}]}}`)
	if _, err := writeKV(t, h, "a", map[string]string{"delta/mode": "overwrite"}, "1:m", "2:m"); err != nil {
		t.Fatal(err)
	}
	md, err := writeKV(t, h, "a", nil, "1:a", "2:z", "3:q")
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, h.AssetTableURI("a", nil)), kvRows("1:m", "2:z", "3:new")...)
	if md[iohandler.OutNumRows] != int64(2) {
		t.Fatalf("num_rows %v (one updated, one inserted)", md[iohandler.OutNumRows])
	}
	// delta/merge_predicate replaces the spec's: nothing matches v = id.
	if _, err := writeKV(t, h, "a", map[string]string{"delta/merge_predicate": "s.v = t.v"}, "9:z"); err != nil {
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, h.AssetTableURI("a", nil)), kvRows("1:m", "2:z", "3:new")...)
	if _, err := writeKV(t, h, "a", map[string]string{"delta/merge_predicate": "s.id = t.id"}, "9:y"); err != nil {
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, h.AssetTableURI("a", nil)), kvRows("1:m", "2:z", "3:new", "9:new")...)
	_, err = writeKV(t, h, "a", map[string]string{"delta/merge_predicate": "s.id ="}, "9:y")
	wantErr(t, err, `asset "a"`, "merge")
}

// Beyond the seed: a merge into a missing table creates it, in one commit,
// from the rows its insert clauses insert; one with no insert clause is
// refused and creates nothing.
func TestMergeCreatesMissingTable(t *testing.T) {
	h := mergeHandler(t, `{"merge_type": "upsert", "predicate": "s.id = t.id"}`)
	md, err := writeKV(t, h, "a", nil, "1:a", "2:b")
	if err != nil {
		t.Fatal(err)
	}
	uri := h.AssetTableURI("a", nil)
	equalRows(t, tablerows.Read(t, uri), kvRows("1:a", "2:b")...)
	if md[iohandler.OutVersion] != int64(0) || commitInfo(t, uri, 0)["operation"] != "MERGE" || md[iohandler.OutNumRows] != int64(2) {
		t.Fatalf("metadata %v", md)
	}
	h2 := mergeHandler(t, `{"merge_type": "update_only", "predicate": "s.id = t.id"}`)
	_, err = writeKV(t, h2, "a", nil, "1:a")
	if !errors.Is(err, deltalite.ErrTableNotFound) {
		t.Fatalf("update_only into a missing table: %v", err)
	}
	wantErr(t, err, "no insert clause")
	if _, serr := os.Stat(h2.AssetTableURI("a", nil)); !os.IsNotExist(serr) {
		t.Fatalf("the refused merge left %v", serr)
	}
}

// Beyond the seed: schema_mode merge adds the source's new columns in a
// merge (rivers drops them silently).
func TestMergeSchemaEvolution(t *testing.T) {
	h := mergeHandler(t, `{"merge_type": "upsert", "predicate": "s.id = t.id"}`)
	if _, err := writeKV(t, h, "a", map[string]string{"delta/mode": "overwrite"}, "1:a"); err != nil {
		t.Fatal(err)
	}
	src := batch([]int64{1, 2}, []string{"A", "B"}, []string{"d1", "d2"})
	defer src.Release()
	// Without it, the extra columns are refused, not dropped. (The
	// target's v is absent from the source: upsert keeps the matched row's.)
	_, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "a"}, src)
	if err == nil {
		t.Fatal("a merge with new columns and no schema mode passed")
	}
	mustWrite(t, h, iohandler.OutputContext{Asset: "a", Metadata: map[string]string{"delta/schema_mode": "merge"}}, src)
	got := tablerows.Read(t, h.AssetTableURI("a", nil))
	equalRows(t, got, `day="d1", id=1, name="A", v="a"`, `day="d2", id=2, name="B", v=null`)
}

// A merge that changes nothing commits nothing; its metadata reports the
// version it found.
func TestMergeNoChange(t *testing.T) {
	h := mergeHandler(t, `{"merge_type": "deduplicate_insert", "predicate": "s.id = t.id"}`)
	if _, err := writeKV(t, h, "a", map[string]string{"delta/mode": "overwrite"}, "1:a"); err != nil {
		t.Fatal(err)
	}
	md, err := writeKV(t, h, "a", nil, "1:z")
	if err != nil {
		t.Fatal(err)
	}
	if md[iohandler.OutVersion] != int64(0) || md[iohandler.OutNumOutputRows] != int64(0) {
		t.Fatalf("metadata %v", md)
	}
	// A streamed source is merged as a batch is.
	rec := kv("2:b")
	defer rec.Release()
	rr, _ := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	defer rr.Release()
	mustWrite(t, h, iohandler.OutputContext{Asset: "a"}, rr)
	equalRows(t, tablerows.Read(t, h.AssetTableURI("a", nil)), kvRows("1:a", "2:b")...)
}

// The operations form runs NOT MATCHED BY SOURCE delete before update,
// as rivers does: a target row both conditions take is deleted.
func TestMergeBySourceDeleteBeforeUpdate(t *testing.T) {
	h := mergeHandler(t, `{"merge_type": "custom", "predicate": "s.id = t.id", "operations": {
		"when_not_matched_by_source_update": [{"predicate": "t.id > 1", "updates": {"v": "'upd'"}}],
		"when_not_matched_by_source_delete": [{"predicate": "t.id > 2"}]}}`)
	if _, err := writeKV(t, h, "a", map[string]string{"delta/mode": "overwrite"}, "1:a", "2:b", "3:c", "4:d"); err != nil {
		t.Fatal(err)
	}
	if _, err := writeKV(t, h, "a", nil, "1:x"); err != nil {
		t.Fatal(err)
	}
	// 1 matched (no matched clause), 2 updated, 3 and 4 deleted.
	equalRows(t, tablerows.Read(t, h.AssetTableURI("a", nil)), kvRows("1:a", "2:upd")...)
}
