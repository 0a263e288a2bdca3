package datafile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestColumnFileWritesWhatPqarrowWrites: the parallel encoder writes the
// very bytes pqarrow's FileWriter writes for the same batches (sliced,
// with nulls, of every flat kind, past the row cap of a row group, with
// dictionaries that fit and ones that fall back to plain), and rejects a
// nested schema.
func TestColumnFileWritesWhatPqarrowWrites(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "k", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 18, Scale: 4}, Nullable: true},
	}, nil)
	if !flatSchema(s) || flatSchema(arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)}}, nil)) {
		t.Fatal("flatSchema misjudges a schema")
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	var recs []arrow.RecordBatch
	var rows int64
	for range 3 {
		b := array.NewRecordBuilder(mem, s)
		for i := range 1000 {
			null := rnd.IntN(7) == 0
			b.Field(0).(*array.Int64Builder).Append(int64(rows) + int64(i))
			appendOrNull(b.Field(1), null, func() { b.Field(1).(*array.Int32Builder).Append(int32(rnd.IntN(9))) })
			appendOrNull(b.Field(2), null, func() { b.Field(2).(*array.Float64Builder).Append(rnd.Float64()) })
			appendOrNull(b.Field(3), null, func() { b.Field(3).(*array.BooleanBuilder).Append(i%3 == 0) })
			appendOrNull(b.Field(4), null, func() { b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("v%d", rnd.IntN(20))) })
			b.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("%016x", rnd.Uint64()))
			appendOrNull(b.Field(6), null, func() { b.Field(6).(*array.TimestampBuilder).Append(arrow.Timestamp(rnd.Int64N(1 << 50))) })
			appendOrNull(b.Field(7), null, func() { b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(rnd.Int64N(1000))) })
		}
		full := b.NewRecordBatch()
		b.Release()
		rec := full.NewSlice(13, 987) // offsets into every buffer
		full.Release()
		rows += rec.NumRows()
		recs = append(recs, rec)
	}
	defer releaseAll(recs)
	props := parquet.NewWriterProperties(parquet.WithAllocator(mem), parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(1200), parquet.WithDictionaryDefault(true), parquet.WithStats(true),
		parquet.WithDictionaryPageSizeLimit(4<<10), parquet.WithDataPageSize(8<<10))

	var want bytes.Buffer
	fw, err := pqarrow.NewFileWriter(s, &want, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	tbl := array.NewTableFromRecords(s, recs)
	defer tbl.Release()
	if err := fw.WriteTable(tbl, rows); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}

	for _, workers := range []int{1, 2, 4} {
		var got bytes.Buffer
		cf, err := newColumnFile(s, &got, props, workers)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		seen := map[int]int64{}
		if err := cf.write(recs, rows, func(col int, pieces []arrow.Array) {
			mu.Lock()
			defer mu.Unlock()
			for _, a := range pieces {
				seen[col] += int64(a.Len())
			}
		}); err != nil {
			t.Fatal(err)
		}
		for col := range s.NumFields() {
			if seen[col] != rows {
				t.Errorf("%d workers: column %d handed %d rows to the statistics, want %d", workers, col, seen[col], rows)
			}
		}
		if err := cf.close(); err != nil {
			t.Fatal(err)
		}
		// The pages must match byte for byte; the footers can differ only in
		// order, as arrow-go writes a column's encoding stats in map order.
		g, w := got.Bytes(), want.Bytes()
		if want.Len() < 10000 || !bytes.Equal(pages(g), pages(w)) || len(g) != len(w) {
			t.Fatalf("columnFile with %d workers wrote %d bytes, pqarrow %d: the pages differ", workers, len(g), len(w))
		}
		if gm, wm := footerSummary(t, g), footerSummary(t, w); gm != wm {
			t.Fatalf("%d workers: footers differ:\n%s\npqarrow's:\n%s", workers, gm, wm)
		}
	}
}

// pages is a Parquet file without its footer.
func pages(b []byte) []byte {
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	return b[:len(b)-8-n]
}

// footerSummary lists what a footer says of each column chunk.
func footerSummary(t *testing.T, b []byte) string {
	t.Helper()
	r, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	md := r.MetaData()
	fmt.Fprintf(&out, "%d rows, %d row groups, %q\n", md.NumRows, md.NumRowGroups(), md.GetCreatedBy())
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		fmt.Fprintf(&out, "row group %d: %d rows, %d bytes\n", g, rg.NumRows(), rg.TotalByteSize())
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			st, err := cc.StatsSet()
			if err != nil {
				t.Fatal(err)
			}
			var enc string
			if st {
				s, _ := cc.Statistics()
				e, _ := s.Encode()
				enc = fmt.Sprintf("%x %x %d", e.Min, e.Max, e.NullCount)
			}
			fmt.Fprintf(&out, "  %s %v dict@%d data@%d %d/%d stats %s\n", cc.PathInSchema(), cc.Encodings(),
				cc.DictionaryPageOffset(), cc.DataPageOffset(), cc.TotalCompressedSize(), cc.TotalUncompressedSize(), enc)
		}
	}
	return out.String()
}

func appendOrNull(b array.Builder, null bool, value func()) {
	if null {
		b.AppendNull()
		return
	}
	value()
}
