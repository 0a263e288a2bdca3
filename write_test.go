package deltalite_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// people builds a batch of (id long, name string, day string) rows; t may
// be nil in writer processes.
func people(t testing.TB, ids []int64, names []string, days []string) array.RecordReader {
	if t != nil {
		t.Helper()
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "day", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	b.Field(1).(*array.StringBuilder).AppendValues(names, nil)
	b.Field(2).(*array.StringBuilder).AppendValues(days, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		panic(err) // the schema is the batch's own
	}
	return rr
}

// readRows reads a table with this engine as canonical rows, sorted.
var readRows = tablerows.Read

func sortedCopy(rows []string) []string { return slices.Sorted(slices.Values(rows)) }

func row(id int64, name, day string) string {
	return fmt.Sprintf(`day="%s", id=%d, name="%s"`, day, id, name)
}

func mustWrite(t *testing.T, uri string, src array.RecordReader, wo deltalite.WriteOptions) *deltalite.WriteResult {
	t.Helper()
	res, err := deltalite.Write(context.Background(), uri, src, wo)
	if err != nil {
		t.Fatalf("write %+v: %v", wo, err)
	}
	return res
}

func TestWriteModes(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	// error mode creates the table
	res := mustWrite(t, uri, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"}),
		deltalite.WriteOptions{PartitionBy: []string{"day"}})
	if !res.Created || res.Version != 0 || res.FilesAdded != 2 || res.RowsWritten != 2 {
		t.Fatalf("create: %+v", res)
	}
	// error mode on an existing table
	if _, err := deltalite.Write(ctx, uri, people(t, []int64{3}, []string{"c"}, []string{"d1"}), deltalite.WriteOptions{}); !errors.Is(err, deltalite.ErrTableExists) {
		t.Fatalf("error mode on an existing table: %v", err)
	}
	// ignore mode
	res = mustWrite(t, uri, people(t, []int64{3}, []string{"c"}, []string{"d1"}), deltalite.WriteOptions{Mode: deltalite.ModeIgnore})
	if !res.Skipped || res.Version != 0 {
		t.Fatalf("ignore: %+v", res)
	}
	// append
	mustWrite(t, uri, people(t, []int64{3}, []string{"c"}, []string{"d1"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	want := sortedCopy([]string{row(1, "a", "d1"), row(2, "b", "d2"), row(3, "c", "d1")})
	if got := readRows(t, uri); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after append:\n%s", strings.Join(got, "\n"))
	}
	// overwrite the whole table
	res = mustWrite(t, uri, people(t, []int64{9}, []string{"z"}, []string{"d9"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite})
	if res.FilesRemoved != 3 || res.Version != 2 {
		t.Fatalf("overwrite: %+v", res)
	}
	if got := readRows(t, uri); len(got) != 1 || got[0] != row(9, "z", "d9") {
		t.Fatalf("after overwrite: %v", got)
	}
	// time travel still sees the old rows
	if got := readRows(t, uri, deltalite.WithVersion(1)); len(got) != 3 {
		t.Fatalf("version 1: %v", got)
	}
	// create_or_replace with a new schema and partitioning, history kept
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"x", "y"}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	rr, _ := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	res = mustWrite(t, uri, rr, deltalite.WriteOptions{Mode: deltalite.ModeCreateOrReplace})
	if res.Version != 3 || res.FilesRemoved != 1 {
		t.Fatalf("create_or_replace: %+v", res)
	}
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.DeltaSchema().String(); got != "struct<k:string>" || len(tb.PartitionColumns()) != 0 {
		t.Fatalf("replaced schema %s partitions %v", got, tb.PartitionColumns())
	}
	if got := readRows(t, uri); strings.Join(got, "|") != `k="x"|k="y"` {
		t.Fatalf("after create_or_replace: %v", got)
	}
	h, _ := tb.History(ctx, 0)
	if len(h) != 4 || h[0].Info.Operation != "CREATE OR REPLACE TABLE" {
		t.Fatalf("history: %+v", h[0].Info)
	}
}

func TestWriteSchemaModes(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	mustWrite(t, uri, people(t, []int64{1}, []string{"a"}, []string{"d1"}), deltalite.WriteOptions{})
	// an extra column is a mismatch in strict mode
	extra := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	mk := func() array.RecordReader {
		b := array.NewRecordBuilder(memory.DefaultAllocator, extra)
		defer b.Release()
		b.Field(0).(*array.Int32Builder).AppendValues([]int32{2}, nil)
		b.Field(1).(*array.Float64Builder).AppendValues([]float64{0.5}, nil)
		rec := b.NewRecordBatch()
		rr, _ := array.NewRecordReader(extra, []arrow.RecordBatch{rec})
		return rr
	}
	_, err := deltalite.Write(ctx, uri, mk(), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	if !errors.Is(err, deltalite.ErrSchemaMismatch) || !strings.Contains(err.Error(), "score") {
		t.Fatalf("strict append of an extra column: %v", err)
	}
	// merge mode adds it; missing columns are null; int32 widens to the long column
	mustWrite(t, uri, mk(), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	tb, _ := deltalite.Open(ctx, uri)
	if got := tb.DeltaSchema().String(); got != "struct<id:long,name:string,day:string,score:double>" {
		t.Fatalf("merged schema %s", got)
	}
	got := readRows(t, uri)
	want := []string{`day="d1", id=1, name="a", score=null`, `day=null, id=2, name=null, score=0.5`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows after merge:\n%s", strings.Join(got, "\n"))
	}
	// schema overwrite only with mode overwrite
	if _, err := deltalite.Write(ctx, uri, mk(), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaOverwrite}); !errors.Is(err, deltalite.ErrInvalidArgument) {
		t.Fatalf("schema overwrite with append: %v", err)
	}
	mustWrite(t, uri, mk(), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, SchemaMode: deltalite.SchemaOverwrite})
	tb, _ = deltalite.Open(ctx, uri)
	if got := tb.DeltaSchema().String(); got != "struct<id:integer,score:double>" {
		t.Fatalf("overwritten schema %s", got)
	}
}

func TestWriteAppTransaction(t *testing.T) {
	uri := t.TempDir()
	wo := deltalite.WriteOptions{Mode: deltalite.ModeAppend, AppID: "job-7", AppVersion: 3}
	mustWrite(t, uri, people(t, []int64{1}, []string{"a"}, []string{"d"}), wo)
	res := mustWrite(t, uri, people(t, []int64{1}, []string{"a"}, []string{"d"}), wo)
	if !res.Skipped {
		t.Fatalf("redelivered write was applied again: %+v", res)
	}
	wo.AppVersion = 4
	if res := mustWrite(t, uri, people(t, []int64{2}, []string{"b"}, []string{"d"}), wo); res.Skipped || res.Version != 1 {
		t.Fatalf("next app version: %+v", res)
	}
	if got := readRows(t, uri); len(got) != 2 {
		t.Fatalf("rows %v", got)
	}
}

func TestCreate(t *testing.T) {
	ctx := context.Background()
	sc, err := schema.Parse(`{"type":"struct","fields":[{"name":"id","type":"long","nullable":false,"metadata":{"comment":"key"}},{"name":"ts","type":"timestamp_ntz","nullable":true,"metadata":{}},{"name":"p","type":"string","nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	uri := t.TempDir()
	tb, err := deltalite.Create(ctx, uri, sc, deltalite.CreateOptions{PartitionBy: []string{"p"}, Properties: map[string]string{"owner": "team-a", "delta.columnMapping.mode": "name"}})
	if err != nil {
		t.Fatal(err)
	}
	p := tb.Protocol()
	if p.MinReaderVersion != 3 || p.MinWriterVersion != 7 || !p.HasFeature("timestampNtz") || !p.HasFeature("columnMapping") {
		t.Fatalf("protocol %s", p)
	}
	f := tb.DeltaSchema().Field("id")
	if f.Nullable || f.Metadata["comment"] != "key" || f.PhysicalName(schema.MappingName) == "id" {
		t.Fatalf("field %+v", f)
	}
	if tb.Metadata().Configuration["owner"] != "team-a" || tb.Metadata().Configuration["delta.columnMapping.maxColumnId"] != "3" {
		t.Fatalf("configuration %v", tb.Metadata().Configuration)
	}
	if _, err := deltalite.Create(ctx, uri, sc, deltalite.CreateOptions{}); !errors.Is(err, deltalite.ErrTableExists) {
		t.Fatalf("second create: %v", err)
	}
	if _, err := deltalite.Create(ctx, t.TempDir(), sc, deltalite.CreateOptions{PartitionBy: []string{"nope"}}); !errors.Is(err, deltalite.ErrInvalidArgument) {
		t.Fatalf("bad partition column: %v", err)
	}
}

func TestWriteReplaceWhere(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	mustWrite(t, uri, people(t, []int64{1, 2, 3, 4}, []string{"a", "b", "c", "d"}, []string{"d1", "d1", "d2", "d3"}),
		deltalite.WriteOptions{PartitionBy: []string{"day"}})
	// a partition predicate: only d1's file goes, nothing outside it is rewritten
	res := mustWrite(t, uri, people(t, []int64{10}, []string{"x"}, []string{"d1"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = 'd1'"})
	if res.FilesRemoved != 1 || res.FilesAdded != 1 {
		t.Fatalf("partition replace: %+v", res)
	}
	want := sortedCopy([]string{row(10, "x", "d1"), row(3, "c", "d2"), row(4, "d", "d3")})
	if got := readRows(t, uri); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after partition replace:\n%s", strings.Join(got, "\n"))
	}
	// rows outside the predicate are refused, and nothing changes
	if _, err := deltalite.Write(ctx, uri, people(t, []int64{11}, []string{"y"}, []string{"d2"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = 'd1'"}); !errors.Is(err, deltalite.ErrInvalidArgument) {
		t.Fatalf("row outside the predicate: %v", err)
	}
	// a data predicate: rows with id >= 4 are replaced; d2's row is kept
	mustWrite(t, uri, people(t, []int64{7}, []string{"z"}, []string{"d2"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "id >= 4"})
	want = sortedCopy([]string{row(3, "c", "d2"), row(7, "z", "d2")})
	if got := readRows(t, uri); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after data replace:\n%s", strings.Join(got, "\n"))
	}
	if _, err := deltalite.Write(ctx, uri, people(t, []int64{1}, []string{"a"}, []string{"d1"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "nope = 1"}); !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown column: %v", err)
	}
}

func readRowsAt(t testing.TB, uri string, v int64) []string {
	t.Helper()
	return readRows(t, uri, deltalite.WithVersion(v))
}

func TestWriteRefusesDuplicateColumns(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ID", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	rr := fromJSON(t, sc, `[{"id":1,"ID":2}]`)
	_, err := deltalite.Write(context.Background(), t.TempDir(), rr, deltalite.WriteOptions{})
	if !errors.Is(err, deltalite.ErrSchemaMismatch) || !strings.Contains(err.Error(), `"ID"`) {
		t.Fatalf("duplicate columns: %v", err)
	}
}

// TestReplaceWhereSkipsByStats: a replace-where on a data column leaves
// alone the files whose statistics exclude the predicate (neither removed
// nor rewritten), removes whole the files whose statistics put every row
// inside it, and the WRITE commit carries Spark's operationMetrics.
func TestReplaceWhereSkipsByStats(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	mustWrite(t, uri, people(t, []int64{1, 2, 8}, []string{"a", "b", "c"}, []string{"d", "d", "d"}), deltalite.WriteOptions{})
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	before := tb.FileURIs()
	mustWrite(t, uri, people(t, []int64{10, 12}, []string{"x", "y"}, []string{"d", "d"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	mustWrite(t, uri, people(t, []int64{5, 11}, []string{"p", "q"}, []string{"d", "d"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	res := mustWrite(t, uri, people(t, []int64{20}, []string{"z"}, []string{"d"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "id > 9"})
	// [1,8] is excluded by its max, [10,12] wholly selected, [5,11] rewritten.
	if res.FilesRemoved != 2 {
		t.Errorf("removed %d files, want 2 (the [10,12] and [5,11] files)", res.FilesRemoved)
	}
	if err := tb.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tb.FileURIs(), before[0]) {
		t.Errorf("the file of ids 1..8 was rewritten although its maximum excludes id > 9")
	}
	want := sortedCopy([]string{row(1, "a", "d"), row(2, "b", "d"), row(8, "c", "d"), row(5, "p", "d"), row(20, "z", "d")})
	if got := readRows(t, uri); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s", strings.Join(got, "\n"))
	}
	h, err := tb.History(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := h[0].Info.Raw["operationMetrics"].(map[string]any)
	wantMetrics := map[string]string{"numFiles": "1", "numOutputRows": "2", "numRemovedFiles": "2",
		"numDeletedRows": "3", "numCopiedRows": "1", "numAddedChangeFiles": "0"}
	for k, v := range wantMetrics {
		if m[k] != v {
			t.Errorf("operationMetrics[%s] = %v, want %s (all: %v)", k, m[k], v, m)
		}
	}
	for _, k := range []string{"numOutputBytes", "numRemovedBytes"} {
		if s, _ := m[k].(string); s == "" || s == "0" {
			t.Errorf("operationMetrics[%s] = %v", k, m[k])
		}
	}
	// The case: a double column whose maximum (8) excludes score > 9.
	scores := arrow.NewSchema([]arrow.Field{{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	suri := t.TempDir()
	mustWrite(t, suri, fromJSON(t, scores, `[{"name":"a","score":1.5},{"name":"b","score":8}]`), deltalite.WriteOptions{})
	res = mustWrite(t, suri, fromJSON(t, scores, `[{"name":"c","score":9.5}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "score > 9"})
	if res.FilesRemoved != 0 || res.FilesAdded != 1 {
		t.Errorf("score > 9 over a file of max 8: %+v", res)
	}
	// A plain append carries the WRITE metrics too.
	mustWrite(t, uri, people(t, []int64{30}, []string{"w"}, []string{"d"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	if h, err = tb.History(ctx, 1); err != nil {
		t.Fatal(err)
	}
	m, _ = h[0].Info.Raw["operationMetrics"].(map[string]any)
	if m["numFiles"] != "1" || m["numOutputRows"] != "1" || m["numOutputBytes"] == nil {
		t.Errorf("append operationMetrics %v", m)
	}
}

// Table.Write moves the open table to the version it committed, as
// Table.Upsert does; a skipped write leaves it where the table is.
func TestTableWriteMovesTheTable(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	mustWrite(t, uri, people(t, []int64{1}, []string{"a"}, []string{"d1"}), deltalite.WriteOptions{})
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tb.Write(ctx, people(t, []int64{2}, []string{"b"}, []string{"d2"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	if err != nil || res.Version != 1 || tb.Version() != 1 {
		t.Fatalf("append: %+v, %v; table at %d", res, err, tb.Version())
	}
	if rows, want := tablerows.Scan(t, tb), []string{row(1, "a", "d1"), row(2, "b", "d2")}; !slices.Equal(rows, want) {
		t.Errorf("the moved table reads %v, want %v", rows, want)
	}
	// Another writer commits; an ignored write still moves t to what it found.
	mustWrite(t, uri, people(t, []int64{3}, []string{"c"}, []string{"d3"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	res, err = tb.Write(ctx, people(t, []int64{4}, []string{"d"}, []string{"d4"}), deltalite.WriteOptions{Mode: deltalite.ModeIgnore})
	if err != nil || !res.Skipped || tb.Version() != 2 {
		t.Fatalf("ignore: %+v, %v; table at %d", res, err, tb.Version())
	}
}
