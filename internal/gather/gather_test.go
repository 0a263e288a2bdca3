package gather

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
)

// TestGatherIsTake: Rows copies the rows arrow's take kernel copies, for
// every type it handles, with and without nulls, from arrays with an
// offset; it declines other types.
func TestGatherIsTake(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rnd := rand.New(rand.NewPCG(7, 8))
	types := []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Boolean,
		arrow.FixedWidthTypes.Date32, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		&arrow.Decimal128Type{Precision: 18, Scale: 4}, &arrow.FixedSizeBinaryType{ByteWidth: 3},
		arrow.BinaryTypes.String, arrow.BinaryTypes.Binary,
	}
	rows := []int32{5, 0, 99, 42, 42, 7, 63, 64, 65, 1}
	for _, dt := range types {
		for _, withNulls := range []bool{false, true} {
			b := array.NewBuilder(mem, dt)
			for i := range 120 {
				if withNulls && i%4 == 1 {
					b.AppendNull()
					continue
				}
				appendValue(b, rnd, i)
			}
			full := b.NewArray()
			b.Release()
			a := array.NewSlice(full, 11, 111)
			full.Release()
			got, ok := Rows(mem, a, rows)
			if !ok {
				t.Fatalf("%s: declined", dt)
			}
			idx := array.NewInt32Builder(mem)
			idx.AppendValues(rows, nil)
			ia := idx.NewArray()
			idx.Release()
			want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), a, ia)
			if err != nil {
				t.Fatal(err)
			}
			if !array.Equal(got, want) || got.NullN() != want.NullN() {
				t.Errorf("%s (nulls %v): gathered %v, take gives %v", dt, withNulls, got, want)
			}
			for _, x := range []arrow.Array{got, want, ia, a} {
				x.Release()
			}
		}
	}
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	lb.AppendNull()
	l := lb.NewArray()
	lb.Release()
	defer l.Release()
	if _, ok := Rows(mem, l, []int32{0}); ok {
		t.Error("Rows took a list")
	}
}

func appendValue(b array.Builder, rnd *rand.Rand, i int) {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(rnd.Int32()))
	case *array.Int16Builder:
		b.Append(int16(rnd.Int32()))
	case *array.Int32Builder:
		b.Append(rnd.Int32())
	case *array.Int64Builder:
		b.Append(rnd.Int64())
	case *array.Float32Builder:
		b.Append(rnd.Float32())
	case *array.Float64Builder:
		b.Append(rnd.Float64())
	case *array.BooleanBuilder:
		b.Append(rnd.IntN(2) == 0)
	case *array.Date32Builder:
		b.Append(arrow.Date32(rnd.Int32N(40000)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(rnd.Int64()))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(rnd.Int64()))
	case *array.FixedSizeBinaryBuilder:
		b.Append([]byte{byte(i), byte(rnd.Int32()), 3})
	case *array.StringBuilder:
		b.Append(fmt.Sprintf("s%d-%x", i, rnd.Uint32()>>rnd.IntN(32)))
	case *array.BinaryBuilder:
		b.Append([]byte(fmt.Sprintf("%x", rnd.Uint64()))[:rnd.IntN(8)])
	}
}

// TestRowsFromDirtyPool: with the engine's pool, Rows hands out buffers it
// does not clear first; what a deletion vector leaves (ascending rows in
// runs) comes out as take gives it even when every pooled buffer held
// other bytes before.
func TestRowsFromDirtyPool(t *testing.T) {
	pool := &arrowmem.Pool{}
	for size := 1 << 12; size <= 1<<20; size += size / 8 {
		b := pool.Allocate(size)
		for i := range b {
			b[i] = 0xAA
		}
		pool.Free(b)
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	var rows []int32
	for i := range int32(5000) {
		if rnd.IntN(10) != 0 { // a tenth deleted
			rows = append(rows, i)
		}
	}
	for _, dt := range []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Boolean} {
		b := array.NewBuilder(memory.DefaultAllocator, dt)
		for i := range 5000 {
			if i%7 == 3 {
				b.AppendNull()
				continue
			}
			appendValue(b, rnd, i)
		}
		a := b.NewArray()
		b.Release()
		got, ok := Rows(pool, a, rows)
		if !ok {
			t.Fatalf("%s: declined", dt)
		}
		idx := array.NewInt32Builder(memory.DefaultAllocator)
		idx.AppendValues(rows, nil)
		ia := idx.NewArray()
		idx.Release()
		want, err := compute.TakeArray(context.Background(), a, ia)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(got, want) || got.NullN() != want.NullN() {
			t.Errorf("%s: gathered from a dirty pool differs from take", dt)
		}
		for _, x := range []arrow.Array{got, want, ia, a} {
			x.Release()
		}
	}
}
