package datafile

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// TestDictionaryOnlyWhereItFits: a column whose distinct values overflow
// the dictionary page and columns of distinct values (string, decimal,
// int64, double, timestamp) are written plain, repetitive columns and ones
// of a few hundred values keep their dictionary, and every value reads back.
func TestDictionaryOnlyWhereItFits(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := mustSchema(t, fields("id string", "kind string", "payload binary", "city string", "amount decimal(38,10)", "price decimal(10,2)",
		"seq long", "level long", "x double", "ts timestamp", "qty integer"))
	as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
	b := array.NewRecordBuilder(mem, as)
	rnd := rand.New(rand.NewPCG(3, 4))
	const rows = 2000
	for i := range rows {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("%016x", rnd.Uint64()))
		b.Field(1).(*array.StringBuilder).Append([]string{"a", "b", "c"}[i%3])
		p := make([]byte, 2048)
		for j := range p {
			p[j] = byte(rnd.Uint32())
		}
		b.Field(2).(*array.BinaryBuilder).Append(p)
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("city-%d", rnd.IntN(300)))
		b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(rnd.Int64()))
		b.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rnd.IntN(50) * 100)))
		b.Field(6).(*array.Int64Builder).Append(int64(i))
		b.Field(7).(*array.Int64Builder).Append(int64(rnd.IntN(300)))
		b.Field(8).(*array.Float64Builder).Append(rnd.Float64())
		b.Field(9).(*array.TimestampBuilder).Append(arrow.Timestamp(rnd.Int64N(1 << 50)))
		b.Field(10).(*array.Int32Builder).Append(int32(rnd.IntN(20)))
	}
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	st := storage.NewMemory()
	adds := writeAll(t, st, Options{Schema: sc, Allocator: mem}, rec)
	if len(adds) != 1 {
		t.Fatalf("%d files", len(adds))
	}
	pf := openParquet(t, st, adds[0])
	rg := pf.MetaData().RowGroup(0)
	for i, want := range []bool{false, true, false, true, false, true, false, true, false, false, true} {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		if got := cc.HasDictionaryPage(); got != want {
			t.Errorf("column %s: dictionary page %v, want %v", cc.PathInSchema(), got, want)
		}
	}
	if got := readRows(t, &addsSource{st: st, sc: sc, files: adds}); len(got) != rows {
		t.Fatalf("%d rows read back", len(got))
	}
}
