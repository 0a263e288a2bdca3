package zorder

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// checkOrder asserts that the keys of a column whose rows are in ascending
// value order (nulls first) never decrease, and increase where strict says
// the rows differ in what the encoding keeps.
func checkOrder(t *testing.T, name string, a arrow.Array, strict func(i int) bool) {
	t.Helper()
	defer a.Release()
	keys, err := Keys([]arrow.Array{a})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i := 1; i < len(keys); i++ {
		c := bytes.Compare(keys[i-1], keys[i])
		if c > 0 || (c == 0 && strict(i)) {
			t.Errorf("%s: key of row %d (%x) not below row %d (%x)", name, i-1, keys[i-1], i, keys[i])
		}
	}
}

func always(int) bool { return true }

func TestKeyOrderPerType(t *testing.T) {
	mem := memory.DefaultAllocator
	ints := []int64{math.MinInt64, -1 << 40, -5, -1, 0, 1, 7, 1 << 40, math.MaxInt64}
	{
		b := array.NewInt64Builder(mem)
		b.AppendNull()
		b.AppendValues(ints, nil)
		checkOrder(t, "int64", b.NewArray(), always)
	}
	{
		b := array.NewInt8Builder(mem)
		b.AppendNull()
		b.AppendValues([]int8{-128, -1, 0, 1, 127}, nil)
		checkOrder(t, "int8", b.NewArray(), always)
	}
	{
		b := array.NewInt16Builder(mem)
		b.AppendNull()
		b.AppendValues([]int16{-32768, -300, 0, 300, 32767}, nil)
		checkOrder(t, "int16", b.NewArray(), always)
	}
	{
		b := array.NewInt32Builder(mem)
		b.AppendNull()
		b.AppendValues([]int32{math.MinInt32, -70000, 0, 70000, math.MaxInt32}, nil)
		checkOrder(t, "int32", b.NewArray(), always)
	}
	{
		b := array.NewDate32Builder(mem)
		b.AppendNull()
		b.AppendValues([]arrow.Date32{-719162, -1, 0, 19000, 2932896}, nil)
		checkOrder(t, "date", b.NewArray(), always)
	}
	for _, tz := range []string{"UTC", ""} { // timestamp and timestamp_ntz
		b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: tz})
		b.AppendNull()
		b.AppendValues([]arrow.Timestamp{-62135596800000000, -1, 0, 1, 253402300799999999}, nil)
		checkOrder(t, "timestamp "+tz, b.NewArray(), always)
	}
	{
		b := array.NewBooleanBuilder(mem)
		b.AppendNull()
		b.AppendValues([]bool{false, true}, nil)
		checkOrder(t, "boolean", b.NewArray(), always)
	}
	floats := []float64{math.Inf(-1), -math.MaxFloat64, -1.5, -math.SmallestNonzeroFloat64,
		math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 2.25, math.MaxFloat64, math.Inf(1), math.NaN(), -math.NaN()}
	{
		b := array.NewFloat64Builder(mem)
		b.AppendNull()
		b.AppendValues(floats, nil)
		// -0 equals +0 and NaNs are one value, as SQL orders them.
		checkOrder(t, "float64", b.NewArray(), func(i int) bool { return i != 6 && i != 12 })
	}
	{
		b := array.NewFloat32Builder(mem)
		b.AppendNull()
		b.AppendValues([]float32{float32(math.Inf(-1)), -3, float32(math.Copysign(0, -1)), 0, 1e-30, 3, float32(math.NaN())}, nil)
		checkOrder(t, "float32", b.NewArray(), func(i int) bool { return i != 4 })
	}
	{
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: 2})
		b.AppendNull()
		for _, v := range []decimal128.Num{decimal128.FromI64(math.MinInt64).Mul(decimal128.FromI64(1 << 40)),
			decimal128.FromI64(-100), decimal128.FromI64(-1), decimal128.FromI64(0), decimal128.FromI64(1),
			decimal128.FromU64(math.MaxUint64), decimal128.FromU64(math.MaxUint64).Mul(decimal128.FromI64(1 << 40))} {
			b.Append(v)
		}
		checkOrder(t, "decimal", b.NewArray(), always)
	}
	strs := []string{"", "\x00", "a", "ab", "abc", "b", "ba", "zzzz", "\xff"}
	{
		b := array.NewStringBuilder(mem)
		b.AppendNull()
		b.AppendValues(strs, nil)
		// "" and "\x00" differ only in padding.
		checkOrder(t, "string", b.NewArray(), func(i int) bool { return i != 2 })
	}
	{
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		b.AppendNull()
		for _, s := range []string{"a", "aa", "b"} {
			b.Append([]byte(s))
		}
		checkOrder(t, "binary", b.NewArray(), always)
	}
	{
		// Strings are told apart by their first ValueWidth bytes only.
		long := "0123456789abcdef"
		b := array.NewStringBuilder(mem)
		b.AppendValues([]string{long + "a", long + "b", long + "c"}, nil)
		checkOrder(t, "long string", b.NewArray(), func(int) bool { return false })
	}
}

func TestUnsupportedType(t *testing.T) {
	err := Supported(arrow.ListOf(arrow.PrimitiveTypes.Int32))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("list<item: int32")) {
		t.Fatalf("want an error naming the type, got %v", err)
	}
	if err := Supported(arrow.BinaryTypes.String); err != nil {
		t.Fatal(err)
	}
}

// morton is the reference z-curve index of (x, y): bits of x and y
// alternate, x's first.
func morton(x, y uint8) uint16 {
	var z uint16
	for b := 7; b >= 0; b-- {
		z = z<<1 | uint16(x>>b&1)
		z = z<<1 | uint16(y>>b&1)
	}
	return z
}

func TestInterleaveIsZCurve(t *testing.T) {
	for x := range 256 {
		for y := range 256 {
			dst := make([]byte, 2)
			Interleave(dst, [][]byte{{byte(x)}, {byte(y)}})
			if got, want := uint16(dst[0])<<8|uint16(dst[1]), morton(uint8(x), uint8(y)); got != want {
				t.Fatalf("(%d,%d): %016b, want %016b", x, y, got, want)
			}
		}
	}
	// Three codes of two bytes: bit b of the key is bit b/3 of code b%3.
	codes := [][]byte{{0xff, 0x00}, {0x00, 0xff}, {0xaa, 0x55}}
	dst := make([]byte, 6)
	Interleave(dst, codes)
	for b := range 48 {
		got := dst[b/8] >> (7 - b%8) & 1
		c, cb := codes[b%3], b/3
		if want := c[cb/8] >> (7 - cb%8) & 1; got != want {
			t.Fatalf("bit %d = %d, want %d", b, got, want)
		}
	}
}

// TestInterleaveWays: the byte-wise interleaving of 2 to 8 codes agrees
// with the bit-by-bit one.
func TestInterleaveWays(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 10; n++ {
		for range 200 {
			codes := make([][]byte, n)
			for c := range codes {
				codes[c] = make([]byte, Width)
				for i := range codes[c] {
					codes[c][i] = byte(rng.Uint32())
				}
			}
			got, want := make([]byte, n*Width), make([]byte, n*Width)
			Interleave(got, codes)
			interleaveBits(want, codes)
			if !bytes.Equal(got, want) {
				t.Fatalf("%d codes: %x, want %x", n, got, want)
			}
		}
	}
}

func TestKeysSortRowsAlongZCurve(t *testing.T) {
	mem := memory.DefaultAllocator
	xb, yb := array.NewInt32Builder(mem), array.NewInt64Builder(mem)
	type pt struct{ x, y uint8 }
	var pts []pt
	for x := range 16 {
		for y := range 16 {
			pts = append(pts, pt{uint8(x), uint8(y)})
		}
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	for _, p := range pts {
		xb.Append(int32(p.x))
		yb.Append(int64(p.y))
	}
	xs, ys := xb.NewArray(), yb.NewArray()
	defer xs.Release()
	defer ys.Release()
	keys, err := Keys([]arrow.Array{xs, ys})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys[0]) != 2*Width {
		t.Fatalf("key of %d bytes, want %d", len(keys[0]), 2*Width)
	}
	idx := make([]int, len(pts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return bytes.Compare(keys[idx[a]], keys[idx[b]]) < 0 })
	got := make([]uint16, len(idx))
	for i, j := range idx {
		got[i] = morton(pts[j].x, pts[j].y)
	}
	if !slices.IsSorted(got) {
		t.Fatalf("rows sorted by key are not in z-curve order: %v", got)
	}
	// The first quadrant (x, y < 8) comes before any row outside it.
	for i := range 64 {
		if p := pts[idx[i]]; p.x >= 8 || p.y >= 8 {
			t.Fatalf("row %d of the curve is (%d,%d), outside the first quadrant", i, p.x, p.y)
		}
	}
}

func TestKeysRejectsMismatchedColumns(t *testing.T) {
	mem := memory.DefaultAllocator
	a := array.MakeArrayOfNull(mem, arrow.PrimitiveTypes.Int32, 3)
	b := array.MakeArrayOfNull(mem, arrow.PrimitiveTypes.Int32, 2)
	defer a.Release()
	defer b.Release()
	if _, err := Keys([]arrow.Array{a, b}); err == nil {
		t.Fatal("columns of different lengths accepted")
	}
	if _, err := Keys(nil); err == nil {
		t.Fatal("no columns accepted")
	}
}
