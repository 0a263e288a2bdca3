package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// writeParquet writes rec (given as JSON rows of Arrow schema sc) to
// dir/name with row groups of rgRows rows, keeping the Arrow schema in the
// file so that dictionary and timestamp types read back as written.
func writeParquet(t *testing.T, dir, name string, sc *arrow.Schema, rowsJSON string, rgRows int64, opts ...pqarrow.WriterOption) *protocol.Add {
	t.Helper()
	return writeParquetWith(t, dir, name, sc, rowsJSON, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rgRows)),
		pqarrow.NewArrowWriterProperties(append([]pqarrow.WriterOption{pqarrow.WithStoreSchema()}, opts...)...))
}

// writeParquetWith writes rows (JSON, Arrow schema sc) to dir/name with
// the given writer properties.
func writeParquetWith(t *testing.T, dir, name string, sc *arrow.Schema, rowsJSON string, props *parquet.WriterProperties, arrowProps pqarrow.ArrowWriterProperties) *protocol.Add {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(rowsJSON))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sc, f, props, arrowProps)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &protocol.Add{Path: name, PartitionValues: map[string]string{}}
}

func parseSchema(t *testing.T, fields string) *schema.Struct {
	t.Helper()
	sc, err := schema.Parse(`{"type":"struct","fields":[` + fields + `]}`)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func localSource(t *testing.T, dir string, sc *schema.Struct, files ...*protocol.Add) *fixedSource {
	t.Helper()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &fixedSource{st: st, sc: sc, files: files}
}

// TestPhysicalTypesBecomeTableTypes reads files whose physical types differ
// from the table's: the output has the table's types and the same values.
func TestPhysicalTypesBecomeTableTypes(t *testing.T) {
	dir := t.TempDir()
	fileSchema := arrow.NewSchema([]arrow.Field{
		{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "ts_ns_local", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "ntz_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "ts_int96", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "narrow", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "dict", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 5, Scale: 2}, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	add := writeParquet(t, dir, "a.parquet", fileSchema, `[
		{"ts_ms": -1, "ts_ns_local": -1500, "ntz_ms": 1000, "ts_int96": 1631099471123456789, "narrow": -7, "dict": "x", "dec": "123.45", "f": 1.5, "d": 1},
		{"ts_ms": null, "ts_ns_local": 1000, "ntz_ms": null, "ts_int96": null, "narrow": null, "dict": null, "dec": null, "f": null, "d": null},
		{"ts_ms": 86400000, "ts_ns_local": 0, "ntz_ms": -86400000, "ts_int96": -1, "narrow": 32767, "dict": "x", "dec": "-0.01", "f": -2, "d": -1}
	]`, 2, pqarrow.WithDeprecatedInt96Timestamps(false))
	// The same file again, with its nanosecond column written as INT96.
	int96 := writeParquet(t, dir, "b.parquet", arrow.NewSchema(fileSchema.Fields()[3:4], nil),
		`[{"ts_int96": 1631099471123456789}, {"ts_int96": null}, {"ts_int96": -1}]`, 2, pqarrow.WithDeprecatedInt96Timestamps(true))
	table := parseSchema(t, `
		{"name":"ts_ms","type":"timestamp","nullable":true,"metadata":{}},
		{"name":"ts_ns_local","type":"timestamp","nullable":true,"metadata":{}},
		{"name":"ntz_ms","type":"timestamp_ntz","nullable":true,"metadata":{}},
		{"name":"ts_int96","type":"timestamp","nullable":true,"metadata":{}},
		{"name":"narrow","type":"long","nullable":true,"metadata":{}},
		{"name":"dict","type":"string","nullable":true,"metadata":{}},
		{"name":"dec","type":"decimal(10,4)","nullable":true,"metadata":{}},
		{"name":"f","type":"double","nullable":true,"metadata":{}},
		{"name":"d","type":"timestamp_ntz","nullable":true,"metadata":{}}`)
	src := localSource(t, dir, table, add)
	sc, seq, err := New(src).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := schema.ToArrow(table, schema.ArrowOptions{})
	if !sc.Equal(want) {
		t.Fatalf("schema\n%s\nwant\n%s", sc, want)
	}
	var rows []string
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range rec.Schema().Fields() {
			if !arrow.TypeEqual(rec.Column(i).DataType(), f.Type) {
				t.Errorf("column %s holds %s, schema says %s", f.Name, rec.Column(i).DataType(), f.Type)
			}
		}
		rows = append(rows, rowStrings(rec)...)
	}
	wantRows := []string{
		"1969-12-31T23:59:59.999000Z|1969-12-31T23:59:59.999998Z|1970-01-01T00:00:01.000000Z|2021-09-08T11:11:11.123456Z|-7|\"x\"|123.45|1.5|1970-01-02T00:00:00.000000Z",
		"null|1970-01-01T00:00:00.000001Z|null|null|null|null|null|null|null",
		"1970-01-02T00:00:00.000000Z|1970-01-01T00:00:00.000000Z|1969-12-31T00:00:00.000000Z|1969-12-31T23:59:59.999999Z|32767|\"x\"|-0.01|-2|1969-12-31T00:00:00.000000Z",
	}
	if strings.Join(rows, "\n") != strings.Join(wantRows, "\n") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(wantRows, "\n"))
	}

	got := values(t, localSource(t, dir, parseSchema(t, `{"name":"ts_int96","type":"timestamp","nullable":true,"metadata":{}}`), int96), "ts_int96")
	if strings.Join(got, " ") != "1969-12-31T23:59:59.999999Z 2021-09-08T11:11:11.123456Z null" {
		t.Errorf("INT96: %v", got)
	}

	// A value that does not fit the table's type is an error naming the
	// file and the column, not a wrong number.
	bad := localSource(t, dir, parseSchema(t, `{"name":"narrow","type":"byte","nullable":true,"metadata":{}}`), add)
	if err := readAll(New(bad)); err == nil || !strings.Contains(err.Error(), "a.parquet") || !strings.Contains(err.Error(), "narrow") {
		t.Errorf("overflowing cast: %v", err)
	}
}

// rowStrings renders rows in column order, values joined by "|".
func rowStrings(rec arrow.RecordBatch) []string {
	var out []string
	for r := 0; r < int(rec.NumRows()); r++ {
		parts := make([]string, rec.NumCols())
		for c := range parts {
			parts[c] = arrowrows.Value(rec.Column(c), r)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

// TestDeletionVectorAcrossRowGroups deletes rows at row-group and batch
// edges of a file with several row groups: positions count over the file.
func TestDeletionVectorAcrossRowGroups(t *testing.T) {
	dir := t.TempDir()
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	var rows []string
	for i := range 1000 {
		rows = append(rows, fmt.Sprintf(`{"id": %d}`, i))
	}
	add := writeParquet(t, dir, "f.parquet", sc, "["+strings.Join(rows, ",")+"]", 100)
	deleted := []uint64{0, 99, 100, 101, 550, 998, 999}
	bm := dv.NewBitmap(deleted...)
	bm.AddRange(300, 400) // a whole row group
	d, err := dv.InlineDescriptor(bm)
	if err != nil {
		t.Fatal(err)
	}
	add.DeletionVector = d
	table := parseSchema(t, `{"name":"id","type":"long","nullable":true,"metadata":{}}`)
	src := localSource(t, dir, table, add)
	for _, bs := range []int{7, 64, 100, 8192} {
		got := values(t, src, "id", WithBatchSize(bs))
		if len(got) != 1000-len(deleted)-100 {
			t.Fatalf("batch size %d: %d rows", bs, len(got))
		}
		seen := map[string]bool{}
		for _, v := range got {
			seen[v] = true
		}
		for _, pos := range append(deleted, 300, 350, 399) {
			if seen[fmt.Sprint(pos)] {
				t.Errorf("batch size %d: deleted row %d returned", bs, pos)
			}
		}
		for _, pos := range []int{1, 98, 102, 299, 400, 549, 551, 997} {
			if !seen[fmt.Sprint(pos)] {
				t.Errorf("batch size %d: live row %d missing", bs, pos)
			}
		}
	}
	// With a row filter as well, and a count-only scan.
	if got := values(t, src, "id", WithFilters(mustFilter(t, "id", "<", "103"))); strings.Join(got, ",") != strings.Join(func() []string {
		var s []string
		for i := 1; i <= 102; i++ {
			if i != 99 && i != 100 && i != 101 {
				s = append(s, fmt.Sprint(i))
			}
		}
		sort.Strings(s)
		return s
	}(), ",") {
		t.Errorf("filtered: %v", got)
	}
	n := 0
	_, seq, err := New(src, WithColumns()).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		n += int(rec.NumRows())
	}
	if n != 893 {
		t.Errorf("row count %d, want 893", n)
	}
}
