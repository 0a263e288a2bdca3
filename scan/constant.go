package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// constantArray repeats one value (a Go value of the kinds
// schema.ParsePartitionValue returns; nil for null) n times as type dt.
func constantArray(mem memory.Allocator, dt arrow.DataType, v any, n int) (arrow.Array, error) {
	if v == nil {
		return array.MakeArrayOfNull(mem, dt, n), nil
	}
	bld := array.NewBuilder(mem, dt)
	defer bld.Release()
	bld.Reserve(n)
	ok := true
	switch b := bld.(type) {
	case *array.StringBuilder:
		ok = fill(b.Append, v, n)
	case *array.BinaryBuilder:
		ok = fill(b.Append, v, n)
	case *array.Int64Builder:
		ok = fill(b.Append, v, n)
	case *array.Int32Builder:
		ok = fill(b.Append, v, n)
	case *array.Int16Builder:
		ok = fill(b.Append, v, n)
	case *array.Int8Builder:
		ok = fill(b.Append, v, n)
	case *array.Float32Builder:
		ok = fill(b.Append, v, n)
	case *array.Float64Builder:
		ok = fill(b.Append, v, n)
	case *array.BooleanBuilder:
		ok = fill(b.Append, v, n)
	case *array.Date32Builder:
		ok = fill(b.Append, v, n)
	case *array.TimestampBuilder:
		ok = fill(b.Append, v, n)
	case *array.Decimal128Builder:
		ok = fill[decimal128.Num](b.Append, v, n)
	default:
		ok = false
	}
	if !ok {
		return nil, fmt.Errorf("no constant column of type %s from a %T", dt, v)
	}
	return bld.NewArray(), nil
}

func fill[T any](appendFn func(T), v any, n int) bool {
	x, ok := v.(T)
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		appendFn(x)
	}
	return true
}
