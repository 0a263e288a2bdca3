package keyset

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var mem = memory.DefaultAllocator

// build makes an array of dt from Go values; nil is null.
func build(t testing.TB, dt arrow.DataType, vals ...any) arrow.Array {
	t.Helper()
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(int64(v.(int)))
		case *array.Int32Builder:
			b.Append(int32(v.(int)))
		case *array.Int16Builder:
			b.Append(int16(v.(int)))
		case *array.Int8Builder:
			b.Append(int8(v.(int)))
		case *array.Uint32Builder:
			b.Append(uint32(v.(int)))
		case *array.Date32Builder:
			b.Append(arrow.Date32(v.(int)))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(v.(int)))
		case *array.Float64Builder:
			b.Append(v.(float64))
		case *array.Float32Builder:
			b.Append(v.(float32))
		case *array.BooleanBuilder:
			b.Append(v.(bool))
		case *array.Decimal128Builder:
			b.Append(decimal128.FromI64(int64(v.(int))))
		case *array.StringBuilder:
			b.Append(v.(string))
		case *array.LargeStringBuilder:
			b.Append(v.(string))
		case *array.BinaryBuilder:
			b.Append([]byte(v.(string)))
		case *array.BinaryDictionaryBuilder:
			if err := b.AppendString(v.(string)); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("no builder case for %T", b)
		}
	}
	return b.NewArray()
}

// fill inserts every row of cols and returns the entries.
func fill(t testing.TB, s *Set, cols ...arrow.Array) []int {
	t.Helper()
	b, err := s.Bind(cols)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, cols[0].Len())
	for i := range out {
		e, _, err := b.Insert(i)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = e
	}
	return out
}

func finds(t testing.TB, s *Set, cols ...arrow.Array) []int {
	t.Helper()
	b, err := s.Bind(cols)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, cols[0].Len())
	for i := range out {
		out[i] = b.Find(i)
	}
	return out
}

func eq(t *testing.T, what string, got, want []int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

var (
	tsUTC = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	tsNTZ = &arrow.TimestampType{Unit: arrow.Microsecond}
	dec   = &arrow.Decimal128Type{Precision: 10, Scale: 2}
	dictS = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
)

// TestEveryKeyType: each single-column key type stores distinct values as
// distinct entries, finds them again, and never stores or finds a null.
func TestEveryKeyType(t *testing.T) {
	cases := []struct {
		name   string
		dt     arrow.DataType
		src    []any
		probeT arrow.DataType // type of the probing array, when not dt
		probe  []any
		want   []int
	}{
		{"long", arrow.PrimitiveTypes.Int64, []any{1, 2, -3, nil}, nil, []any{2, 3, -3, nil}, []int{1, -1, 2, -1}},
		{"long from int32 file", arrow.PrimitiveTypes.Int64, []any{1, 2}, arrow.PrimitiveTypes.Int32, []any{2, 1, 7}, []int{1, 0, -1}},
		{"long from uint32 file", arrow.PrimitiveTypes.Int64, []any{1, 4000000000}, arrow.PrimitiveTypes.Uint32, []any{4000000000}, []int{1}},
		{"int", arrow.PrimitiveTypes.Int32, []any{5, -5}, nil, []any{-5, 6}, []int{1, -1}},
		{"short", arrow.PrimitiveTypes.Int16, []any{5, -5}, nil, []any{-5}, []int{1}},
		{"byte", arrow.PrimitiveTypes.Int8, []any{5, -5}, nil, []any{5}, []int{0}},
		{"date", arrow.FixedWidthTypes.Date32, []any{19000, 19001}, nil, []any{19001, 0}, []int{1, -1}},
		{"timestamp", tsUTC, []any{1, 1_000_000}, nil, []any{1_000_000, 2}, []int{1, -1}},
		{"timestamp_ntz", tsNTZ, []any{1, 1_000_000}, nil, []any{1}, []int{0}},
		{"bool", arrow.FixedWidthTypes.Boolean, []any{true, false}, nil, []any{false, true, nil}, []int{1, 0, -1}},
		{"decimal", dec, []any{150, -150}, nil, []any{-150, 151}, []int{1, -1}},
		{"string", arrow.BinaryTypes.String, []any{"a", "", "ü"}, nil, []any{"", "ü", "b"}, []int{1, 2, -1}},
		{"string from large_string file", arrow.BinaryTypes.String, []any{"a", "bb"}, arrow.BinaryTypes.LargeString, []any{"bb"}, []int{1}},
		{"string from binary file", arrow.BinaryTypes.String, []any{"a", "bb"}, arrow.BinaryTypes.Binary, []any{"a"}, []int{0}},
		{"string from dictionary", arrow.BinaryTypes.String, []any{"x", "y"}, dictS, []any{"y", "x", "z", nil}, []int{1, 0, -1, -1}},
		{"binary", arrow.BinaryTypes.Binary, []any{"\x00", "\x00\x00"}, nil, []any{"\x00\x00", ""}, []int{1, -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New([]arrow.DataType{c.dt}, 0)
			if err != nil {
				t.Fatal(err)
			}
			src := build(t, c.dt, c.src...)
			defer src.Release()
			entries := fill(t, s, src)
			nonNull := 0
			for i, v := range c.src {
				if v == nil {
					if entries[i] != -1 {
						t.Fatalf("null key stored as entry %d", entries[i])
					}
					continue
				}
				if entries[i] != nonNull {
					t.Fatalf("entries %v", entries)
				}
				nonNull++
			}
			if s.Len() != nonNull {
				t.Fatalf("Len %d, want %d", s.Len(), nonNull)
			}
			pt := c.probeT
			if pt == nil {
				pt = c.dt
			}
			probe := build(t, pt, c.probe...)
			defer probe.Release()
			eq(t, "find", finds(t, s, probe), c.want)
		})
	}
}

// TestFloatSemantics: delta-rs MERGE's equality on float keys: NaN
// matches NaN (any NaN payload), -0.0 matches 0.0, infinities match.
func TestFloatSemantics(t *testing.T) {
	otherNaN := math.Float64frombits(0x7ff8000000000001)
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32} {
		conv := func(vs ...float64) []any {
			out := make([]any, len(vs))
			for i, v := range vs {
				if dt.ID() == arrow.FLOAT32 {
					out[i] = float32(v)
				} else {
					out[i] = v
				}
			}
			return out
		}
		s, _ := New([]arrow.DataType{dt}, 0)
		src := build(t, dt, conv(0.0, math.NaN(), math.Inf(1), 1.5)...)
		defer src.Release()
		fill(t, s, src)
		probe := build(t, dt, conv(math.Copysign(0, -1), otherNaN, math.Inf(1), math.Inf(-1), 0.0, 1.5)...)
		defer probe.Release()
		eq(t, dt.String(), finds(t, s, probe), []int{0, 1, 2, -1, 0, 3})
	}
	// A float file column under a double key column.
	s, _ := New([]arrow.DataType{arrow.PrimitiveTypes.Float64}, 0)
	src := build(t, arrow.PrimitiveTypes.Float64, 0.5, math.NaN())
	defer src.Release()
	fill(t, s, src)
	probe := build(t, arrow.PrimitiveTypes.Float32, float32(0.5), float32(math.NaN()))
	defer probe.Release()
	eq(t, "float under double", finds(t, s, probe), []int{0, 1})
}

// TestComposite: only the whole tuple matches; a null in any component
// never matches; a bytes component cannot bleed into the next.
func TestComposite(t *testing.T) {
	types := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, tsUTC}
	s, err := New(types, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := build(t, types[0], "a", "a", "b", nil, "ab")
	b := build(t, types[1], 1, 2, 1, 1, 1)
	c := build(t, types[2], 10, 10, 10, 10, nil)
	defer a.Release()
	defer b.Release()
	defer c.Release()
	eq(t, "insert", fill(t, s, a, b, c), []int{0, 1, 2, -1, -1})
	pa := build(t, types[0], "a", "a", "b", "a", "ab")
	pb := build(t, types[1], 2, 1, 2, 1, 1)
	pc := build(t, types[2], 10, 11, 10, nil, 10)
	defer pa.Release()
	defer pb.Release()
	defer pc.Release()
	eq(t, "find", finds(t, s, pa, pb, pc), []int{1, -1, -1, -1, -1})
	// Two strings: ("ab","c") must differ from ("a","bc").
	s2, _ := New([]arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.String}, 0)
	x := build(t, arrow.BinaryTypes.String, "ab")
	y := build(t, arrow.BinaryTypes.String, "c")
	defer x.Release()
	defer y.Release()
	fill(t, s2, x, y)
	x2 := build(t, arrow.BinaryTypes.String, "a", "ab")
	y2 := build(t, arrow.BinaryTypes.String, "bc", "c")
	defer x2.Release()
	defer y2.Release()
	eq(t, "split", finds(t, s2, x2, y2), []int{-1, 0})
}

// TestPairMode: two integer columns and a decimal pack into two words.
func TestPairMode(t *testing.T) {
	s, _ := New([]arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32}, 0)
	if s.mode != modePair {
		t.Fatalf("mode %d", s.mode)
	}
	a := build(t, arrow.PrimitiveTypes.Int64, 1, 1, 2)
	b := build(t, arrow.PrimitiveTypes.Int32, 1, 2, 1)
	defer a.Release()
	defer b.Release()
	eq(t, "insert", fill(t, s, a, b), []int{0, 1, 2})
	eq(t, "again", fill(t, s, a, b), []int{0, 1, 2})
	pa := build(t, arrow.PrimitiveTypes.Int64, 2, 1)
	pb := build(t, arrow.PrimitiveTypes.Int32, 2, 2)
	defer pa.Release()
	defer pb.Release()
	eq(t, "find", finds(t, s, pa, pb), []int{-1, 1})
}

// TestNoColumns: a key of no columns is the empty tuple, which every row
// has: the partition itself is the identity.
func TestNoColumns(t *testing.T) {
	s, err := New(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Bind(nil)
	if e, added, _ := b.Insert(0); e != 0 || !added {
		t.Fatalf("first insert %d %v", e, added)
	}
	if e, added, _ := b.Insert(5); e != 0 || added {
		t.Fatalf("second insert %d %v", e, added)
	}
	if b.Find(3) != 0 {
		t.Fatal("empty tuple not found")
	}
}

// TestGrowthAndBytes: a set grows past its hint, keeps every key, and
// accounts for its memory.
func TestGrowthAndBytes(t *testing.T) {
	const n = 100_000
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String} {
		s, _ := New([]arrow.DataType{dt}, 10)
		vals := make([]any, n)
		for i := range vals {
			if dt.ID() == arrow.STRING {
				vals[i] = "key-" + string(rune('a'+i%26)) + itoa(i)
			} else {
				vals[i] = i * 7919
			}
		}
		arr := build(t, dt, vals...)
		entries := fill(t, s, arr)
		for i, e := range entries {
			if e != i {
				t.Fatalf("%s: entry of row %d is %d", dt, i, e)
			}
		}
		got := finds(t, s, arr)
		for i, e := range got {
			if e != i {
				t.Fatalf("%s: find of row %d is %d", dt, i, e)
			}
		}
		if s.Len() != n {
			t.Fatalf("Len %d", s.Len())
		}
		if b := s.Bytes(); b < n*8 || b > n*64 {
			t.Fatalf("%s: Bytes %d for %d keys", dt, b, n)
		}
		arr.Release()
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestBindRefusesIncompatibleArrays: a file column whose values would mean
// other keys is refused rather than misread.
func TestBindRefusesIncompatibleArrays(t *testing.T) {
	cases := []struct {
		set, arr arrow.DataType
	}{
		{tsUTC, &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}},
		{dec, &arrow.Decimal128Type{Precision: 10, Scale: 3}},
		{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String},
		{arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64},
		{arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Int32},
	}
	for _, c := range cases {
		s, _ := New([]arrow.DataType{c.set}, 0)
		a := array.MakeArrayOfNull(mem, c.arr, 1)
		if _, err := s.Bind([]arrow.Array{a}); err == nil {
			t.Errorf("%s bound as %s", c.arr, c.set)
		}
		a.Release()
	}
	if _, err := New([]arrow.DataType{arrow.ListOf(arrow.PrimitiveTypes.Int64)}, 0); err == nil {
		t.Error("list key accepted")
	}
}

// TestNoAllocationPerKey: inserting and finding keys does not allocate
// per key once the set has room.
func TestNoAllocationPerKey(t *testing.T) {
	for _, types := range [][]arrow.DataType{
		{arrow.PrimitiveTypes.Int64},
		{arrow.BinaryTypes.String},
		{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, tsUTC},
	} {
		const n = 4096
		cols := make([]arrow.Array, len(types))
		for j, dt := range types {
			vals := make([]any, n)
			for i := range vals {
				if dt.ID() == arrow.STRING {
					vals[i] = "k" + itoa(i)
				} else {
					vals[i] = i
				}
			}
			cols[j] = build(t, dt, vals...)
			defer cols[j].Release()
		}
		allocs := testing.AllocsPerRun(1, func() {
			s, _ := New(types, 0)
			b, _ := s.Bind(cols)
			for i := 0; i < n; i++ {
				b.Insert(i)
			}
			for i := 0; i < n; i++ {
				b.Find(i)
			}
		})
		// Slices of entries may grow a few times; never once per key.
		if allocs > 40 {
			t.Errorf("%v: %.0f allocations for %d keys", types, allocs, n)
		}
	}
}
