package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/deltalite-go/deltalite/schema"
)

// litScalar is the Arrow scalar of a constant.
func litScalar(n *lit) (scalar.Scalar, error) {
	return makeScalar(n.v, n.t)
}

func makeScalar(v any, t schema.Type) (scalar.Scalar, error) {
	dt, err := arrowType(t)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return scalar.MakeNullScalar(dt), nil
	}
	switch x := v.(type) {
	case bool:
		return scalar.NewBooleanScalar(x), nil
	case int8:
		return scalar.NewInt8Scalar(x), nil
	case int16:
		return scalar.NewInt16Scalar(x), nil
	case int32:
		return scalar.NewInt32Scalar(x), nil
	case int64:
		return scalar.NewInt64Scalar(x), nil
	case float32:
		return scalar.NewFloat32Scalar(x), nil
	case float64:
		return scalar.NewFloat64Scalar(x), nil
	case string:
		return scalar.NewStringScalar(x), nil
	case []byte:
		return scalar.NewBinaryScalar(memory.NewBufferBytes(x), arrow.BinaryTypes.Binary), nil
	case arrow.Date32:
		return scalar.NewDate32Scalar(x), nil
	case arrow.Timestamp:
		return scalar.NewTimestampScalar(x, dt), nil
	case decimal128.Num:
		return scalar.NewDecimal128Scalar(x, dt), nil
	}
	return nil, fmt.Errorf("no scalar for a %T of type %s", v, typeName(t))
}

// goValue reads row i of an array as a Go value of the package's kinds.
func goValue(arr arrow.Array, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return append([]byte(nil), a.Value(i)...)
	case *array.Date32:
		return a.Value(i)
	case *array.Timestamp:
		return a.Value(i)
	case *array.Decimal128:
		return a.Value(i)
	}
	return nil
}

// newBuilder is a builder for values of Delta type t.
func newBuilder(mem memory.Allocator, t schema.Type) (array.Builder, error) {
	dt, err := arrowType(t)
	if err != nil {
		return nil, err
	}
	return array.NewBuilder(mem, dt), nil
}

// appendValue appends a Go value (nil for null) to a builder of its type.
func appendValue(b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	case *array.Int8Builder:
		b.Append(v.(int8))
	case *array.Int16Builder:
		b.Append(v.(int16))
	case *array.Int32Builder:
		b.Append(v.(int32))
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.Float32Builder:
		b.Append(v.(float32))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.BinaryBuilder:
		b.Append(v.([]byte))
	case *array.Date32Builder:
		b.Append(v.(arrow.Date32))
	case *array.TimestampBuilder:
		b.Append(v.(arrow.Timestamp))
	case *array.Decimal128Builder:
		b.Append(v.(decimal128.Num))
	case *array.MapBuilder:
		m := v.(*strMap)
		b.Append(true)
		for i := range m.keys {
			appendValue(b.KeyBuilder(), m.keys[i])
			appendValue(b.ItemBuilder(), m.vals[i])
		}
	case *array.ListBuilder:
		b.Append(true)
		for _, x := range v.([]any) {
			appendValue(b.ValueBuilder(), x)
		}
	default:
		b.AppendNull()
	}
}
