package deltalite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
)

// jsonSource is a one-batch source of the rows (a JSON array) with the
// Arrow fields given.
func jsonSource(t testing.TB, fields []arrow.Field, rows string) array.RecordReader {
	t.Helper()
	sc := arrow.NewSchema(fields, nil)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	rr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

var (
	fID = arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	fTS = arrow.Field{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true}
	fD  = arrow.Field{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true}
	fV  = arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int32, Nullable: true}
)

// identityTable creates (id identity, ts, d = CAST(ts AS DATE), v)
// partitioned by d with the Go schema builder.
func identityTable(t *testing.T, always bool) string {
	t.Helper()
	uri := t.TempDir()
	sc := &schema.Struct{Fields: []*schema.Field{
		(&schema.Field{Name: "id", Type: &schema.Primitive{Name: schema.Long}}).Identity(10, 5, always),
		{Name: "ts", Type: &schema.Primitive{Name: schema.Timestamp}, Nullable: true},
		(&schema.Field{Name: "d", Type: &schema.Primitive{Name: schema.Date}, Nullable: true}).Generated("CAST(ts AS DATE)"),
		{Name: "v", Type: &schema.Primitive{Name: schema.Integer}, Nullable: true},
	}}
	if _, err := deltalite.Create(context.Background(), uri, sc, deltalite.CreateOptions{PartitionBy: []string{"d"}}); err != nil {
		t.Fatal(err)
	}
	return uri
}

// logFiles lists the table's data files and commits, to prove a refusal
// changed nothing.
func logFiles(t *testing.T, uri string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(uri, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, strings.TrimPrefix(p, uri))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func highWaterMark(t *testing.T, tbl *deltalite.Table) any {
	t.Helper()
	return tbl.Snapshot().Schema().Field("id").Metadata[schema.IdentityHighWaterMarkKey]
}

func TestIdentityAndGeneratedColumnsOnEveryWrite(t *testing.T) {
	ctx := context.Background()
	uri := identityTable(t, true)
	tbl, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	p := tbl.Snapshot().Protocol()
	if !p.HasFeature("identityColumns") || !p.HasFeature("generatedColumns") {
		t.Fatalf("protocol %s lacks the features the schema needs", p)
	}
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fTS, fV}, `[{"ts":"2024-03-01T23:30:00Z","v":1},{"ts":"2024-03-02T00:10:00Z","v":2}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fV, fTS}, `[{"ts":"2024-03-03T12:00:00Z","v":3}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	want := []string{
		`d=2024-03-01, id=10, ts=2024-03-01T23:30:00.000000Z, v=1`,
		`d=2024-03-02, id=15, ts=2024-03-02T00:10:00.000000Z, v=2`,
		`d=2024-03-03, id=20, ts=2024-03-03T12:00:00.000000Z, v=3`,
	}
	assertRows(t, uri, want)
	if tbl, err = deltalite.Open(ctx, uri); err != nil {
		t.Fatal(err)
	}
	if hwm := highWaterMark(t, tbl); hwm != float64(20) {
		t.Fatalf("high watermark %v, want 20", hwm)
	}

	// Refusals change nothing.
	before := logFiles(t, uri)
	for _, c := range []struct {
		name   string
		fields []arrow.Field
		rows   string
		want   string
	}{
		{"identity given", []arrow.Field{fID, fTS, fV}, `[{"id":99,"ts":"2024-03-01T00:00:00Z","v":1}]`, "identity column id is GENERATED ALWAYS"},
		{"generated wrong", []arrow.Field{fTS, fD, fV}, `[{"ts":"2024-03-01T00:00:00Z","d":"2024-03-09","v":1}]`, "generated column d = CAST(ts AS DATE)"},
	} {
		_, err := deltalite.Write(ctx, uri, jsonSource(t, c.fields, c.rows), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if after := logFiles(t, uri); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Fatalf("%s: the refused write left files:\n%s", c.name, strings.Join(after, "\n"))
		}
	}
	// A given generated value that matches is taken.
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fTS, fD, fV}, `[{"ts":"2024-03-04T01:00:00Z","d":"2024-03-04","v":4}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	want = append(want, `d=2024-03-04, id=25, ts=2024-03-04T01:00:00.000000Z, v=4`)
	assertRows(t, uri, want)

	// UPDATE of the column d reads moves the row's partition; the identity
	// column may not be set.
	if tbl, err = deltalite.Open(ctx, uri); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Update(ctx, deltalite.UpdateOptions{Predicate: "v = 1", Set: map[string]string{"ts": "TIMESTAMP '2024-03-05 08:00:00'"}}); err != nil {
		t.Fatal(err)
	}
	want[0] = `d=2024-03-05, id=10, ts=2024-03-05T08:00:00.000000Z, v=1`
	assertRows(t, uri, want)
	before = logFiles(t, uri)
	if _, err := tbl.Update(ctx, deltalite.UpdateOptions{Predicate: "v = 2", Set: map[string]string{"id": "1"}}); err == nil ||
		!strings.Contains(err.Error(), "identity column id cannot be updated") {
		t.Fatalf("update of the identity column: %v", err)
	}
	if _, err := tbl.Update(ctx, deltalite.UpdateOptions{Predicate: "v = 2", Set: map[string]string{"d": "DATE '2020-01-01'"}}); err == nil ||
		!strings.Contains(err.Error(), "generated column d") {
		t.Fatalf("update of the generated column to a wrong value: %v", err)
	}
	if after := logFiles(t, uri); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("a refused update left files:\n%s", strings.Join(after, "\n"))
	}

	// OPTIMIZE copies rows unchanged: allowed, and the rows stay.
	if _, err := tbl.Optimize(ctx, deltalite.OptimizeOptions{}); err != nil {
		t.Fatal(err)
	}
	assertRows(t, uri, want)

	// An overwrite numbers on from the high watermark.
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fTS, fV}, `[{"ts":"2024-04-01T00:00:00Z","v":7}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite})
	assertRows(t, uri, []string{`d=2024-04-01, id=30, ts=2024-04-01T00:00:00.000000Z, v=7`})
}

func TestIdentityByDefaultTakesGivenValues(t *testing.T) {
	uri := identityTable(t, false)
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fID, fTS, fV}, `[{"id":1000,"ts":"2024-03-01T00:00:00Z","v":1}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fTS, fV}, `[{"ts":"2024-03-01T00:00:00Z","v":2}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	// As Spark: explicit values do not move the high watermark, so the
	// first generated value is the start.
	assertRows(t, uri, []string{
		`d=2024-03-01, id=10, ts=2024-03-01T00:00:00.000000Z, v=2`,
		`d=2024-03-01, id=1000, ts=2024-03-01T00:00:00.000000Z, v=1`,
	})
}

func assertRows(t *testing.T, uri string, want []string) {
	t.Helper()
	got := sortedCopy(readRows(t, uri))
	if strings.Join(got, "\n") != strings.Join(sortedCopy(want), "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(sortedCopy(want), "\n"))
	}
}

func TestMergeAndUpsertKeepColumnRules(t *testing.T) {
	ctx := context.Background()
	uri := identityTable(t, true)
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fTS, fV}, `[{"ts":"2024-03-01T10:00:00Z","v":1},{"ts":"2024-03-02T10:00:00Z","v":2}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	tbl, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	// UPDATE SET * moves v=2's ts (d recomputed, id kept); INSERT * numbers v=3.
	src := jsonSource(t, []arrow.Field{fTS, fV}, `[{"ts":"2024-03-07T10:00:00Z","v":2},{"ts":"2024-03-08T10:00:00Z","v":3}]`)
	if _, err := tbl.Merge(ctx, src, deltalite.MergeOptions{Predicate: "t.v = s.v", MergeType: "upsert"}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`d=2024-03-01, id=10, ts=2024-03-01T10:00:00.000000Z, v=1`,
		`d=2024-03-07, id=15, ts=2024-03-07T10:00:00.000000Z, v=2`,
		`d=2024-03-08, id=20, ts=2024-03-08T10:00:00.000000Z, v=3`,
	}
	assertRows(t, uri, want)
	if hwm := highWaterMark(t, tbl); hwm != float64(20) {
		t.Fatalf("high watermark after the merge %v, want 20", hwm)
	}
	// A merge that would insert an explicit identity value is refused and
	// changes nothing.
	before := logFiles(t, uri)
	bad := jsonSource(t, []arrow.Field{fID, fTS, fV}, `[{"id":1,"ts":"2024-03-09T10:00:00Z","v":9}]`)
	if _, err := tbl.Merge(ctx, bad, deltalite.MergeOptions{Predicate: "t.v = s.v", MergeType: "upsert"}); err == nil ||
		!strings.Contains(err.Error(), "identity column id is GENERATED ALWAYS") {
		t.Fatalf("merge inserting an identity value: %v", err)
	}
	if after := logFiles(t, uri); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("a refused merge left files:\n%s", strings.Join(after, "\n"))
	}
	// The upsert: v=3 superseded (a new identity value, as its row is
	// inserted anew), v=4 inserted.
	up := jsonSource(t, []arrow.Field{fTS, fV}, `[{"ts":"2024-03-08T11:00:00Z","v":3},{"ts":"2024-03-10T10:00:00Z","v":4}]`)
	if _, err := tbl.Upsert(ctx, up, deltalite.UpsertOptions{PrimaryKeys: []string{"v"}}); err != nil {
		t.Fatal(err)
	}
	// Partitions are written in parallel: which of the two takes 25 is
	// not fixed, only that they take 25 and 30.
	want[2] = `d=2024-03-08, id=25, ts=2024-03-08T11:00:00.000000Z, v=3`
	want = append(want, `d=2024-03-10, id=30, ts=2024-03-10T10:00:00.000000Z, v=4`)
	swapped := append([]string{}, want...)
	swapped[2], swapped[3] = strings.Replace(want[2], "id=25", "id=30", 1), strings.Replace(want[3], "id=30", "id=25", 1)
	got := strings.Join(sortedCopy(readRows(t, uri)), "\n")
	if got != strings.Join(sortedCopy(want), "\n") && got != strings.Join(sortedCopy(swapped), "\n") {
		t.Fatalf("rows after the upsert:\n%s\nwant:\n%s", got, strings.Join(sortedCopy(want), "\n"))
	}
	if tbl, err = deltalite.Open(ctx, uri); err != nil {
		t.Fatal(err)
	}
	if hwm := highWaterMark(t, tbl); hwm != float64(30) {
		t.Fatalf("high watermark after the upsert %v, want 30", hwm)
	}
}

// A predicate on ts skips the partitions of d = CAST(ts AS DATE) it rules
// out, with no statistics to help (dataSkippingNumIndexedCols 0).
func TestGeneratedPartitionPruning(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	sc := &schema.Struct{Fields: []*schema.Field{
		{Name: "ts", Type: &schema.Primitive{Name: schema.Timestamp}, Nullable: true},
		(&schema.Field{Name: "d", Type: &schema.Primitive{Name: schema.Date}, Nullable: true}).Generated("CAST(ts AS DATE)"),
		{Name: "v", Type: &schema.Primitive{Name: schema.Integer}, Nullable: true},
	}}
	if _, err := deltalite.Create(ctx, uri, sc, deltalite.CreateOptions{PartitionBy: []string{"d"},
		Properties: map[string]string{"delta.dataSkippingNumIndexedCols": "0"}}); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fTS, fV},
		`[{"ts":"2024-03-01T10:00:00Z","v":1},{"ts":"2024-03-02T10:00:00Z","v":2},{"ts":"2024-03-03T10:00:00Z","v":3},{"ts":"2024-03-04T10:00:00Z","v":4}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	snap := openT(t, uri).Snapshot()
	for where, files := range map[string]int{
		"ts >= TIMESTAMP '2024-03-03 00:00:00'":                                          2,
		"ts > TIMESTAMP '2024-03-03 12:00:00'":                                           2, // d = 2024-03-03 may still hold later rows
		"TIMESTAMP '2024-03-02 00:00:00' > ts":                                           2,
		"ts = TIMESTAMP '2024-03-02 10:00:00'":                                           1,
		"ts >= TIMESTAMP '2024-03-02 00:00:00' AND ts < TIMESTAMP '2024-03-03 00:00:00'": 2,
		"v >= 3": 4, // no generated column reads v
	} {
		tasks, err := scan.New(snap, scan.WithWhere(where)).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != files {
			t.Errorf("WHERE %s: %d files planned, want %d", where, len(tasks), files)
		}
	}
	// DELETE and UPDATE decide files the same way: the two later partitions
	// are not read.
	st, err := openT(t, uri).Delete(ctx, deltalite.DeleteOptions{Predicate: "ts < TIMESTAMP '2024-03-02 00:00:00'"})
	if err != nil || st.RowsDeleted != 1 || st.FilesScanned != 2 {
		t.Fatalf("delete: %v, %d rows deleted, %d files scanned; want 1 and 2", err, st.RowsDeleted, st.FilesScanned)
	}
	assertRows(t, uri, []string{
		"d=2024-03-02, ts=2024-03-02T10:00:00.000000Z, v=2",
		"d=2024-03-03, ts=2024-03-03T10:00:00.000000Z, v=3",
		"d=2024-03-04, ts=2024-03-04T10:00:00.000000Z, v=4",
	})
}
