package extsort

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestGatherFlatMatchesTake: the one-pass gather of every flat type gives
// the rows arrow's take kernel gives, from several sources, sliced ones
// (a non-zero offset) and ones with nulls or without, in any order.
func TestGatherFlatMatchesTake(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	s := &Sorter{ctx: context.Background(), opt: Options{Allocator: mem}}
	rng := rand.New(rand.NewPCG(1, 2))
	types := []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Date32,
		arrow.FixedWidthTypes.Timestamp_us, arrow.FixedWidthTypes.Boolean, &arrow.Decimal128Type{Precision: 20, Scale: 3},
		arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, &arrow.FixedSizeBinaryType{ByteWidth: 3},
	}
	for _, dt := range types {
		t.Run(dt.String(), func(t *testing.T) {
			for _, nulls := range []bool{false, true} {
				srcs := make([]arrow.Array, 3)
				for i := range srcs {
					full := randomArray(t, mem, rng, dt, 50, nulls && i != 1)
					srcs[i] = array.NewSlice(full, 7, 50) // an offset of 7
					full.Release()
				}
				refs := make([]ref, 100)
				for i := range refs {
					refs[i] = ref{int32(rng.IntN(3)), int32(rng.IntN(43))}
				}
				got, ok := gatherFlat(mem, srcs, refs)
				if !ok {
					t.Fatalf("%s: not gathered in one pass", dt)
				}
				want, err := s.gatherTaken(srcs, refs, false)
				if err != nil {
					t.Fatal(err)
				}
				if !array.Equal(got, want) {
					t.Errorf("nulls %v: gathered\n%v\nwant\n%v", nulls, got, want)
				}
				if nulls && got.NullN() == 0 {
					t.Errorf("no null gathered from sources with nulls")
				}
				got.Release()
				want.Release()
				for _, a := range srcs {
					a.Release()
				}
			}
		})
	}
	list := array.MakeArrayOfNull(mem, arrow.ListOf(arrow.PrimitiveTypes.Int32), 3)
	defer list.Release()
	if _, ok := gatherFlat(mem, []arrow.Array{list}, []ref{{0, 1}}); ok {
		t.Error("a list column gathered as flat")
	}
}

func randomArray(t *testing.T, mem memory.Allocator, rng *rand.Rand, dt arrow.DataType, n int, nulls bool) arrow.Array {
	t.Helper()
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i := range n {
		if nulls && rng.IntN(4) == 0 {
			b.AppendNull()
			continue
		}
		v := rng.Int64()
		switch b := b.(type) {
		case *array.Int8Builder:
			b.Append(int8(v))
		case *array.Int16Builder:
			b.Append(int16(v))
		case *array.Int32Builder:
			b.Append(int32(v))
		case *array.Int64Builder:
			b.Append(v)
		case *array.Float32Builder:
			b.Append(float32(v))
		case *array.Float64Builder:
			b.Append(float64(v) / 3)
		case *array.Date32Builder:
			b.Append(arrow.Date32(v))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(v))
		case *array.BooleanBuilder:
			b.Append(v%2 == 0)
		case *array.Decimal128Builder:
			b.Append(decimal128.FromI64(v))
		case *array.StringBuilder:
			b.Append(string(rune('a'+i%26)) + "-" + string(make([]byte, rng.IntN(5))))
		case *array.BinaryBuilder:
			b.Append([]byte{byte(v), byte(v >> 8)}[:rng.IntN(3)])
		case *array.FixedSizeBinaryBuilder:
			b.Append([]byte{byte(v), byte(v >> 8), byte(i)})
		default:
			t.Fatalf("no generator for %s", dt)
		}
	}
	return b.NewArray()
}
