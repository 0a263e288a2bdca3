package upsert

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A source batch built by doubling builders keeps its rows and loses its
// spare capacity; a tight batch is kept as it is.
func TestCompactSourceBatch(t *testing.T) {
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	payload := strings.Repeat("x", 3000)
	for i := range 2000 {
		if i%7 == 0 {
			b.Field(0).AppendNull()
			b.Field(1).AppendNull()
			continue
		}
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(payload[:2500+i%100])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	spare := func(r arrow.RecordBatch) (n int) {
		for _, c := range r.Columns() {
			walkBuffers(c.Data(), func(b *memory.Buffer) { n += cap(b.Buf()) - b.Len() })
		}
		return n
	}
	if spare(rec) < 1<<20 {
		t.Fatalf("the fixture has %d spare bytes; it must have doubling slack to test", spare(rec))
	}
	out := compact(rec)
	defer out.Release()
	if out == rec {
		t.Fatal("a batch with spare capacity was not compacted")
	}
	if got := spare(out); got != 0 {
		t.Errorf("compacted batch still has %d spare bytes", got)
	}
	if !array.RecordEqual(rec, out) {
		t.Fatal("compacted batch differs from the original")
	}
	again := compact(out)
	defer again.Release()
	if again != out {
		t.Error("a tight batch was copied again")
	}
	// A slice keeps its offset into the copied buffers.
	sl := out.NewSlice(10, 20)
	defer sl.Release()
	c2 := compactData(sl.Column(1).Data())
	defer c2.Release()
	arr := array.MakeFromData(c2)
	defer arr.Release()
	if !array.Equal(arr, sl.Column(1)) {
		t.Error("a compacted slice differs from the slice")
	}
}
