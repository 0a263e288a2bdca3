package scan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/stats"
)

// valueGetter returns a function reading row i of a logical-typed array as
// a stats.Value, so rows are judged with the same comparisons as
// statistics and partition values. nil for types filters cannot compare.
func valueGetter(arr arrow.Array) func(int) stats.Value {
	switch a := arr.(type) {
	case *array.Int64:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Int, Int: a.Value(i)} }
	case *array.Int32:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Int, Int: int64(a.Value(i))} }
	case *array.Int16:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Int, Int: int64(a.Value(i))} }
	case *array.Int8:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Int, Int: int64(a.Value(i))} }
	case *array.Date32:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Int, Int: int64(a.Value(i))} }
	case *array.Timestamp:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Int, Int: int64(a.Value(i))} }
	case *array.Float32:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Float, Float: float64(a.Value(i))} }
	case *array.Float64:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Float, Float: a.Value(i)} }
	case *array.Boolean:
		return func(i int) stats.Value {
			if a.Value(i) {
				return stats.Value{Kind: stats.Bool, Int: 1}
			}
			return stats.Value{Kind: stats.Bool}
		}
	case *array.String:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Bytes, Bytes: a.Value(i)} }
	case *array.Binary:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Bytes, Bytes: a.ValueString(i)} }
	case *array.Decimal128:
		return func(i int) stats.Value { return stats.Value{Kind: stats.Decimal, Decimal: a.Value(i)} }
	}
	return nil
}
