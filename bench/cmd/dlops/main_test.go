package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// TestIOBytesCountsReadsAndWrites checks the counters -metrics reports move
// by what the process reads and writes (page-cache hits included).
func TestIOBytesCountsReadsAndWrites(t *testing.T) {
	if _, err := os.Stat("/proc/self/io"); err != nil {
		t.Skip("no /proc/self/io here")
	}
	const n = 3 << 20
	path := filepath.Join(t.TempDir(), "f")
	r0, w0 := ioBytes()
	if err := os.WriteFile(path, make([]byte, n), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	r1, w1 := ioBytes()
	if r1-r0 < n || w1-w0 < n {
		t.Errorf("read %d and wrote %d bytes by the counters, want at least %d each", r1-r0, w1-w0, n)
	}
}

var opsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "updated_at", Type: arrow.PrimitiveTypes.Int64},
	{Name: "p", Type: arrow.BinaryTypes.String},
}, nil)

func opsRecord(t *testing.T, rows string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, opsSchema, strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// opsTable writes a table partitioned by p and a Parquet batch for it.
func opsTable(t *testing.T, rows, batchRows string) (table, batch string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	table = filepath.Join(dir, "t")
	rr, _ := array.NewRecordReader(opsSchema, []arrow.RecordBatch{opsRecord(t, rows)})
	if _, err := deltalite.Write(ctx, table, rr, deltalite.WriteOptions{Mode: deltalite.ModeError, PartitionBy: []string{"p"}}); err != nil {
		t.Fatal(err)
	}
	batch = filepath.Join(dir, "batch.parquet")
	f, err := os.Create(batch)
	if err != nil {
		t.Fatal(err)
	}
	if err := pqarrow.WriteTable(array.NewTableFromRecords(opsSchema, []arrow.RecordBatch{opsRecord(t, batchRows)}), f, 1024, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return table, batch
}

// opsRow is one row of opsSchema as tablerows reads it.
func opsRow(id, updatedAt int64, p string) string {
	return fmt.Sprintf(`id=%d, p="%s", updated_at=%d`, id, p, updatedAt)
}

// TestMergeOpRunsTheConditionalSpec runs the benchmark's conditional MERGE
// through the merge op: only the newer source row updates its match.
func TestMergeOpRunsTheConditionalSpec(t *testing.T) {
	table, batch := opsTable(t,
		`[{"id":1,"updated_at":10,"p":"a"},{"id":2,"updated_at":10,"p":"a"},{"id":3,"updated_at":10,"p":"b"}]`,
		`[{"id":1,"updated_at":20,"p":"a"},{"id":2,"updated_at":5,"p":"a"},{"id":4,"updated_at":7,"p":"b"}]`)
	spec := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(spec, []byte(`{"merge_type": "custom", "predicate": "t.id = s.id AND t.p = s.p",
		"operations": {"when_matched_update_all": [{"predicate": "s.updated_at > t.updated_at"}],
		"when_not_matched_insert_all": [{}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var res runproc.Result
	m := map[string]int64{}
	if err := mergeOp(context.Background(), table, batch, spec, false, nil, &res, m); err != nil {
		t.Fatal(err)
	}
	if res.RowsUpdated != 1 || res.RowsInserted != 1 || res.Rows != 3 {
		t.Errorf("result %+v, want 3 source rows, 1 updated, 1 inserted", res)
	}
	if _, ok := m["files_scanned"]; !ok {
		t.Errorf("metrics %v lack files_scanned", m)
	}
	want := []string{opsRow(1, 20, "a"), opsRow(2, 10, "a"), opsRow(3, 10, "b"), opsRow(4, 7, "b")}
	if got := tablerows.Read(t, table); !slices.Equal(got, want) {
		t.Errorf("table rows %v, want %v", got, want)
	}
}

// TestDeleteOpOfAPartitionReadsNoFile deletes one partition: its rows go,
// the other's stay, and no data file is read.
func TestDeleteOpOfAPartitionReadsNoFile(t *testing.T) {
	table, _ := opsTable(t,
		`[{"id":1,"updated_at":10,"p":"a"},{"id":2,"updated_at":10,"p":"a"},{"id":3,"updated_at":10,"p":"b"}]`, `[]`)
	var res runproc.Result
	m := map[string]int64{}
	if err := deleteOp(context.Background(), table, "p = 'a'", false, nil, &res, m); err != nil {
		t.Fatal(err)
	}
	if res.Rows != 2 || m["files_scanned"] != 0 || m["files_removed"] != 1 {
		t.Errorf("result %+v metrics %v, want 2 rows deleted, 0 files scanned, 1 removed", res, m)
	}
	if got, want := tablerows.Read(t, table), []string{opsRow(3, 10, "b")}; !slices.Equal(got, want) {
		t.Errorf("table rows %v, want %v", got, want)
	}
}

// TestCopyOnWriteFlagRefusesDVs deletes and upserts on a table with
// deletion vectors on: without -copy-on-write the changed file keeps its
// rows under a DV, with it the file is rewritten; the rows are the same.
func TestCopyOnWriteFlagRefusesDVs(t *testing.T) {
	ctx := context.Background()
	for _, cow := range []bool{false, true} {
		table, batch := opsTable(t,
			`[{"id":1,"updated_at":10,"p":"a"},{"id":2,"updated_at":10,"p":"a"},{"id":3,"updated_at":10,"p":"a"}]`,
			`[{"id":2,"updated_at":20,"p":"a"}]`)
		tb, err := deltalite.Open(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.SetProperties(ctx, map[string]string{"delta.enableDeletionVectors": "true"}, deltalite.PropertiesOptions{}); err != nil {
			t.Fatal(err)
		}
		var res runproc.Result
		if err := deleteOp(ctx, table, "id = 1", cow, nil, &res, map[string]int64{}); err != nil {
			t.Fatal(err)
		}
		wantDVs := map[bool]string{false: "deletion_vectors_added=1", true: "deletion_vectors_added=0"}[cow]
		if !strings.Contains(res.Detail, wantDVs) || (res.FilesAdded == 0) != !cow {
			t.Errorf("delete with copy-on-write %v: %+v, want %s", cow, res, wantDVs)
		}
		if err := upsert(ctx, table, batch, deltalite.UpsertOptions{PrimaryKeys: []string{"id"}, CopyOnWrite: cow}, nil, &res, map[string]int64{}); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int64{false: 0, true: 1}[cow]; res.RowsCopied != want {
			t.Errorf("upsert with copy-on-write %v copied %d rows, want %d (%s)", cow, res.RowsCopied, want, res.Detail)
		}
		if got, want := tablerows.Read(t, table), []string{opsRow(2, 20, "a"), opsRow(3, 10, "a")}; !slices.Equal(got, want) {
			t.Errorf("copy-on-write %v: table rows %v, want %v", cow, got, want)
		}
	}
}

// TestReadSpecNamesTheFile checks a bad spec's error says which file.
func TestReadSpecNamesTheFile(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(spec, []byte(`{"merge_type": "nope"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readSpec(spec); err == nil || !strings.Contains(err.Error(), spec) {
		t.Errorf("readSpec error %v, want one naming %s", err, spec)
	}
	if _, err := readSpec(""); err == nil || !strings.Contains(err.Error(), "-spec") {
		t.Errorf("readSpec without a path: %v, want a hint at -spec", err)
	}
}
