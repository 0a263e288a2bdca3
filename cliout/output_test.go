package cliout

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// The table format prints rows chunk by chunk as batches arrive, before
// the scan ends.
func TestTableSinkStreams(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "word", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "tab\there"}, nil)
	b.Field(0).AppendNull()
	rec := b.NewRecordBatch()
	defer rec.Release()
	var out bytes.Buffer
	sink := NewTableSink(&out, sc, -1, false)
	if err := sink.Write(rec); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "word\na\ntab here\nnull\n" {
		t.Errorf("after one batch: %q", got)
	}
	capped := NewTableSink(&out, sc, 2, false).(*tableSink)
	if err := capped.Write(rec); err != ErrSinkFull || !capped.more || capped.printed != 2 {
		t.Errorf("a third row past a cap of 2: %v, %d printed", err, capped.printed)
	}
}

// TestParquetSinkBoundsRowGroups: --format parquet ends a row group once
// its encoded column chunks reach the bound, instead of holding the whole
// output in one (arrow-go's default bound is 64 Mi rows); every row is
// written once.
func TestParquetSinkBoundsRowGroups(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "payload", Type: arrow.BinaryTypes.Binary}}, nil)
	var buf bytes.Buffer
	s, err := NewSink("parquet", &buf, sc)
	if err != nil {
		t.Fatal(err)
	}
	s.(*parquetSink).rowGroupBytes = 64 << 10
	rnd := rand.New(rand.NewPCG(1, 2))
	const batches, rows = 20, 64
	for b := range batches {
		ids := array.NewInt64Builder(memory.DefaultAllocator)
		pay := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
		for i := range rows {
			ids.Append(int64(b*rows + i))
			v := make([]byte, 1024) // incompressible: 64 KiB a batch
			for j := range v {
				v[j] = byte(rnd.Uint32())
			}
			pay.Append(v)
		}
		rec := array.NewRecordBatch(sc, []arrow.Array{ids.NewArray(), pay.NewArray()}, rows)
		if err := s.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := pf.NumRows(); got != batches*rows {
		t.Fatalf("%d rows written, want %d", got, batches*rows)
	}
	if got := pf.NumRowGroups(); got < batches/2 {
		t.Fatalf("%d row groups for %d batches of 64 KiB under a 64 KiB bound, want one per batch or two", got, batches)
	}
}
