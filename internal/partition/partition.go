// Package partition groups the rows of a record batch by their partition
// values and reads those values as the Go values schema formats for the
// log. The writer and the upsert engine both split batches this way.
//
// It holds no state and does no I/O.
package partition

import (
	"math"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// GroupRows gives each of the n rows the dense id of its value set over
// cols, in order of first appearance, and returns the number of sets.
// Values are compared as stored (float bits, decimal units); nulls of a
// column share one id.
func GroupRows(cols []arrow.Array, n int) ([]int32, int, error) {
	if len(cols) == 0 {
		return make([]int32, n), min(n, 1), nil
	}
	ids, groups, err := valueIDs(cols[0], n)
	if err != nil {
		return nil, 0, err
	}
	for _, arr := range cols[1:] {
		col, k, err := valueIDs(arr, n)
		if err != nil {
			return nil, 0, err
		}
		if k == 1 {
			continue
		}
		pairs := map[[2]int32]int32{}
		for i := range ids {
			key := [2]int32{ids[i], col[i]}
			id, ok := pairs[key]
			if !ok {
				id = int32(len(pairs))
				pairs[key] = id
			}
			ids[i] = id
		}
		groups = len(pairs)
	}
	return ids, groups, nil
}

// Value is row i of a partition column as the Go value
// schema.FormatPartitionValue takes; the row must not be null.
func Value(arr arrow.Array, i int) (any, error) {
	switch a := arr.(type) {
	case *array.String:
		return a.Value(i), nil
	case *array.Binary:
		return a.Value(i), nil
	case *array.Int8:
		return a.Value(i), nil
	case *array.Int16:
		return a.Value(i), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Date32:
		return a.Value(i), nil
	case *array.Timestamp:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Decimal128:
		return a.Value(i), nil
	}
	return nil, errs.New(errs.UnsupportedTable, "", "a partition column of Arrow type %s", arr.DataType())
}

// valueIDs numbers the distinct values of one column in order of first
// appearance; nulls share one id.
func valueIDs(arr arrow.Array, n int) ([]int32, int, error) {
	ids := make([]int32, n)
	switch a := arr.(type) {
	case *array.String:
		return ids, number(ids, a, func(i int) string { return a.Value(i) }, strings.Clone), nil
	case *array.Binary:
		return ids, number(ids, a, func(i int) string { return unsafeString(a.Value(i)) }, strings.Clone), nil
	case *array.Int8:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Int16:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Int32:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Int64:
		return ids, number(ids, a, a.Value, same), nil
	case *array.Date32:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Timestamp:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Float32:
		return ids, number(ids, a, func(i int) uint64 { return uint64(math.Float32bits(a.Value(i))) }, same), nil
	case *array.Float64:
		return ids, number(ids, a, func(i int) uint64 { return math.Float64bits(a.Value(i)) }, same), nil
	case *array.Boolean:
		return ids, number(ids, a, a.Value, same), nil
	case *array.Decimal128:
		return ids, number(ids, a, a.Value, same), nil
	}
	return nil, 0, errs.New(errs.UnsupportedTable, "", "a partition column of Arrow type %s", arr.DataType())
}

func same[T any](v T) T { return v }

// number fills ids for one typed column; nulls take the last id. keep
// copies a key that outlives the batch (string views into Arrow buffers).
func number[K comparable](ids []int32, arr arrow.Array, value func(int) K, keep func(K) K) int {
	seen := map[K]int32{}
	hasNull := false
	var prev K
	prevID := int32(-1)
	for i := range ids {
		if arr.IsNull(i) {
			ids[i], hasNull = -1, true
			continue
		}
		v := value(i)
		if prevID >= 0 && v == prev {
			ids[i] = prevID // runs of one value are common in sorted input
			continue
		}
		id, ok := seen[v]
		if !ok {
			id = int32(len(seen))
			seen[keep(v)] = id
		}
		ids[i], prev, prevID = id, v, id
	}
	if !hasNull {
		return len(seen)
	}
	nullID := int32(len(seen))
	for i := range ids {
		if ids[i] < 0 {
			ids[i] = nullID
		}
	}
	return len(seen) + 1
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
