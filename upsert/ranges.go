package upsert

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/stats"
)

// valueSet is the sorted distinct values of one key column over a
// partition's source keys, to ask whether any falls within a file's or a
// row group's [min, max] bounds. That is exact per column, where a single
// source-wide range prunes nothing once the keys scatter.
type valueSet struct {
	kind   stats.Kind // Int (integers, dates, timestamps, booleans), Float, Bytes or Decimal
	ints   []int64
	floats []float64
	strs   []string // views into the source's buffers
	decs   []decimal128.Num
	// nan: a NaN key, which bounds never cover (writers leave NaN out of
	// statistics), so this column cannot prune.
	nan bool
}

func newValueSet(dt arrow.DataType) *valueSet {
	switch dt.ID() {
	case arrow.FLOAT32, arrow.FLOAT64:
		return &valueSet{kind: stats.Float}
	case arrow.STRING, arrow.BINARY:
		return &valueSet{kind: stats.Bytes}
	case arrow.DECIMAL128:
		return &valueSet{kind: stats.Decimal}
	}
	return &valueSet{kind: stats.Int}
}

// add appends row i of arr (a table-typed key column, not null there).
func (v *valueSet) add(arr arrow.Array, i int) {
	switch a := arr.(type) {
	case *array.Int8:
		v.ints = append(v.ints, int64(a.Value(i)))
	case *array.Int16:
		v.ints = append(v.ints, int64(a.Value(i)))
	case *array.Int32:
		v.ints = append(v.ints, int64(a.Value(i)))
	case *array.Int64:
		v.ints = append(v.ints, a.Value(i))
	case *array.Date32:
		v.ints = append(v.ints, int64(a.Value(i)))
	case *array.Timestamp:
		v.ints = append(v.ints, int64(a.Value(i)))
	case *array.Boolean:
		if a.Value(i) {
			v.ints = append(v.ints, 1)
		} else {
			v.ints = append(v.ints, 0)
		}
	case *array.Float32:
		v.addFloat(float64(a.Value(i)))
	case *array.Float64:
		v.addFloat(a.Value(i))
	case *array.String:
		v.strs = append(v.strs, a.Value(i))
	case *array.Binary:
		v.strs = append(v.strs, a.ValueString(i))
	case *array.Decimal128:
		v.decs = append(v.decs, a.Value(i))
	default:
		v.nan = true // unknown representation: never prune on it
	}
}

func (v *valueSet) addFloat(f float64) {
	if math.IsNaN(f) {
		v.nan = true
		return
	}
	v.floats = append(v.floats, f)
}

// finish sorts and dedupes; it returns the bytes the set holds.
func (v *valueSet) finish() int64 {
	slices.Sort(v.ints)
	v.ints = slices.Compact(v.ints)
	slices.Sort(v.floats)
	v.floats = slices.Compact(v.floats)
	slices.Sort(v.strs)
	v.strs = slices.Compact(v.strs)
	slices.SortFunc(v.decs, func(a, b decimal128.Num) int { return a.Cmp(b) })
	v.decs = slices.Compact(v.decs)
	return int64(cap(v.ints))*8 + int64(cap(v.floats))*8 + int64(cap(v.strs))*16 + int64(cap(v.decs))*16
}

// normalize makes a bound comparable with the set: booleans compare as
// integers.
func normalize(b stats.Value) stats.Value {
	if b.Kind == stats.Bool {
		b.Kind = stats.Int
	}
	return b
}

// anyIn reports whether some value lies within [lo, hi]; an unknown bound
// is open. It answers true whenever it cannot decide.
func (v *valueSet) anyIn(lo, hi stats.Value) bool {
	if v == nil || v.nan {
		return true
	}
	lo, hi = normalize(lo), normalize(hi)
	if (lo.Known() && lo.Kind != v.kind) || (hi.Known() && hi.Kind != v.kind) {
		return true
	}
	switch v.kind {
	case stats.Int:
		return inRange(v.ints, lo.Known(), hi.Known(), func(x int64) bool { return x >= lo.Int }, func(x int64) bool { return x <= hi.Int })
	case stats.Float:
		if (lo.Known() && math.IsNaN(lo.Float)) || (hi.Known() && math.IsNaN(hi.Float)) {
			return true
		}
		return inRange(v.floats, lo.Known(), hi.Known(), func(x float64) bool { return x >= lo.Float }, func(x float64) bool { return x <= hi.Float })
	case stats.Bytes:
		return inRange(v.strs, lo.Known(), hi.Known(), func(x string) bool { return strings.Compare(x, lo.Bytes) >= 0 }, func(x string) bool { return x <= hi.Bytes })
	case stats.Decimal:
		return inRange(v.decs, lo.Known(), hi.Known(), func(x decimal128.Num) bool { return x.Cmp(lo.Decimal) >= 0 }, func(x decimal128.Num) bool { return x.Cmp(hi.Decimal) <= 0 })
	}
	return true
}

// inRange finds the first value at or above lo in sorted vals and checks it
// is at or below hi.
func inRange[T any](vals []T, hasLo, hasHi bool, atLeastLo, atMostHi func(T) bool) bool {
	i := 0
	if hasLo {
		i = sort.Search(len(vals), func(j int) bool { return atLeastLo(vals[j]) })
	}
	if i == len(vals) {
		return false
	}
	return !hasHi || atMostHi(vals[i])
}
