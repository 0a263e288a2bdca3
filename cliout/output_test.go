package cliout

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
