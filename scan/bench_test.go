package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// fixedSource is a Source over files written by a test.
type fixedSource struct {
	st    storage.Store
	sc    *schema.Struct
	parts []string
	files []*protocol.Add
}

func (s *fixedSource) Store() storage.Store       { return s.st }
func (s *fixedSource) Schema() *schema.Struct     { return s.sc }
func (s *fixedSource) PartitionColumns() []string { return s.parts }
func (s *fixedSource) ColumnMapping() schema.Mode { return schema.MappingNone }
func (s *fixedSource) Files() []*protocol.Add     { return s.files }

// wideTable writes files×rows rows of cols columns (longs, doubles,
// strings, timestamps in turn) plus a string partition column, as
// Snappy-compressed Parquet with 64Ki-row row groups.
func wideTable(tb testing.TB, files, rows, cols int) *fixedSource {
	tb.Helper()
	dir := tb.TempDir()
	st, err := storage.NewLocal(dir)
	if err != nil {
		tb.Fatal(err)
	}
	src := &fixedSource{st: st, sc: &schema.Struct{}, parts: []string{"part"}}
	kinds := []string{schema.Long, schema.Double, schema.String, schema.Timestamp}
	for c := 0; c < cols; c++ {
		src.sc.Fields = append(src.sc.Fields, &schema.Field{Name: fmt.Sprintf("c%02d", c), Type: &schema.Primitive{Name: kinds[c%4]}, Nullable: true})
	}
	src.sc.Fields = append(src.sc.Fields, &schema.Field{Name: "part", Type: &schema.Primitive{Name: schema.String}, Nullable: true})
	data := &schema.Struct{Fields: src.sc.Fields[:cols]}
	asc, err := schema.ToArrow(data, schema.ArrowOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	mem := memory.DefaultAllocator
	for f := 0; f < files; f++ {
		bld := array.NewRecordBuilder(mem, asc)
		for c := 0; c < cols; c++ {
			for r := 0; r < rows; r++ {
				v := int64(f*rows + r)
				switch b := bld.Field(c).(type) {
				case *array.Int64Builder:
					b.Append(v * int64(c+1))
				case *array.Float64Builder:
					b.Append(float64(v) / 3)
				case *array.StringBuilder:
					b.Append(fmt.Sprintf("value-%d", v%1000))
				case *array.TimestampBuilder:
					if r%17 == 0 {
						b.AppendNull()
					} else {
						b.Append(arrow.Timestamp(v * 1_000_000))
					}
				}
			}
		}
		rec := bld.NewRecordBatch()
		bld.Release()
		name := fmt.Sprintf("part=p%d/file-%d.parquet", f%2, f)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			tb.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(64*1024))
		w, err := pqarrow.NewFileWriter(asc, out, props, pqarrow.NewArrowWriterProperties())
		if err != nil {
			tb.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			tb.Fatal(err)
		}
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
		rec.Release()
		info, _ := os.Stat(filepath.Join(dir, name))
		src.files = append(src.files, &protocol.Add{Path: name, Size: info.Size(),
			PartitionValues: map[string]string{"part": fmt.Sprintf("p%d", f%2)},
			Stats:           fmt.Sprintf(`{"numRecords":%d}`, rows)})
	}
	return src
}

func TestWideGeneratedTable(t *testing.T) {
	src := wideTable(t, 3, 1000, 8)
	rows := readRows(t, src, WithBatchSize(300), WithFilters(mustFilter(t, "part", "=", "p0")), WithColumns("part", "c00", "c03"))
	if len(rows) != 2000 {
		t.Fatalf("%d rows", len(rows))
	}
	if rows[0] != `c00=0, c03=null, part="p0"` {
		t.Errorf("first row %s", rows[0])
	}
}

// BenchmarkScanWide scans 4 files × 200,000 rows × 32 columns (+1
// partition column), reporting rows per second.
func BenchmarkScanWide(b *testing.B) {
	const files, rows, cols = 4, 200_000, 32
	src := wideTable(b, files, rows, cols)
	b.ResetTimer()
	for b.Loop() {
		if n := countRows(b, New(src)); n != files*rows {
			b.Fatalf("%d rows", n)
		}
	}
	b.ReportMetric(float64(files*rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// countRows runs s and counts the rows of its batches.
func countRows(tb testing.TB, s *Scan) int {
	tb.Helper()
	n, _ := scanTotals(tb, s)
	return n
}

// scanTotals runs s and returns the rows of its batches and the bytes of
// their buffers.
func scanTotals(tb testing.TB, s *Scan) (rows int, bytes int64) {
	tb.Helper()
	_, seq, err := s.Records(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	for rec, err := range seq {
		if err != nil {
			tb.Fatal(err)
		}
		rows += int(rec.NumRows())
		for _, c := range rec.Columns() {
			bytes += dataBytes(c.Data())
		}
	}
	return rows, bytes
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}
