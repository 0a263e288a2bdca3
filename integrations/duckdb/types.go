//go:build duckdb_arrow

package duckdbio

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// typeInfo is the DuckDB type of a column of the scan's logical Arrow
// schema. Delta timestamps are instants (TIMESTAMP WITH TIME ZONE),
// timestamp_ntz columns are wall-clock TIMESTAMPs.
func typeInfo(dt arrow.DataType) (duckdb.TypeInfo, error) {
	simple := func(t duckdb.Type) (duckdb.TypeInfo, error) { return duckdb.NewTypeInfo(t) }
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return simple(duckdb.TYPE_BOOLEAN)
	case *arrow.Int8Type:
		return simple(duckdb.TYPE_TINYINT)
	case *arrow.Int16Type:
		return simple(duckdb.TYPE_SMALLINT)
	case *arrow.Int32Type:
		return simple(duckdb.TYPE_INTEGER)
	case *arrow.Int64Type:
		return simple(duckdb.TYPE_BIGINT)
	case *arrow.Float32Type:
		return simple(duckdb.TYPE_FLOAT)
	case *arrow.Float64Type:
		return simple(duckdb.TYPE_DOUBLE)
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return simple(duckdb.TYPE_VARCHAR)
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType, *arrow.FixedSizeBinaryType:
		return simple(duckdb.TYPE_BLOB)
	case *arrow.Date32Type:
		return simple(duckdb.TYPE_DATE)
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return simple(duckdb.TYPE_TIMESTAMP)
		}
		return simple(duckdb.TYPE_TIMESTAMP_TZ)
	case *arrow.Decimal128Type:
		return duckdb.NewDecimalInfo(uint8(t.Precision), uint8(t.Scale))
	case *arrow.ListType:
		return listInfo(t.Elem())
	case *arrow.LargeListType:
		return listInfo(t.Elem())
	case *arrow.MapType:
		k, err := typeInfo(t.KeyType())
		if err != nil {
			return nil, err
		}
		v, err := typeInfo(t.ItemType())
		if err != nil {
			return nil, err
		}
		return duckdb.NewMapInfo(k, v)
	case *arrow.StructType:
		if t.NumFields() == 0 {
			return nil, fmt.Errorf("struct with no fields")
		}
		entries := make([]duckdb.StructEntry, t.NumFields())
		for i, f := range t.Fields() {
			ti, err := typeInfo(f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			if entries[i], err = duckdb.NewStructEntry(ti, f.Name); err != nil {
				return nil, err
			}
		}
		return duckdb.NewStructInfo(entries[0], entries[1:]...)
	}
	return nil, fmt.Errorf("type %s has no DuckDB counterpart here", dt)
}

func listInfo(elem arrow.DataType) (duckdb.TypeInfo, error) {
	ti, err := typeInfo(elem)
	if err != nil {
		return nil, err
	}
	return duckdb.NewListInfo(ti)
}

// writer copies n values of an Arrow column, from row off, into column col
// of a DuckDB chunk.
type writer func(ch duckdb.DataChunk, col int, a arrow.Array, off, n int) error

// writerFor returns the writer of an Arrow type: a typed loop for the flat
// types, so values are not boxed, and Go values for nested ones.
func writerFor(dt arrow.DataType) writer {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return typed(func(a *array.Boolean, i int) bool { return a.Value(i) })
	case *arrow.Int8Type:
		return typed(func(a *array.Int8, i int) int8 { return a.Value(i) })
	case *arrow.Int16Type:
		return typed(func(a *array.Int16, i int) int16 { return a.Value(i) })
	case *arrow.Int32Type:
		return typed(func(a *array.Int32, i int) int32 { return a.Value(i) })
	case *arrow.Int64Type:
		return typed(func(a *array.Int64, i int) int64 { return a.Value(i) })
	case *arrow.Float32Type:
		return typed(func(a *array.Float32, i int) float32 { return a.Value(i) })
	case *arrow.Float64Type:
		return typed(func(a *array.Float64, i int) float64 { return a.Value(i) })
	case *arrow.StringType:
		return typed(func(a *array.String, i int) string { return a.Value(i) })
	case *arrow.LargeStringType:
		return typed(func(a *array.LargeString, i int) string { return a.Value(i) })
	case *arrow.StringViewType:
		return typed(func(a *array.StringView, i int) string { return a.Value(i) })
	case *arrow.Date32Type:
		return typed(func(a *array.Date32, i int) time.Time { return a.Value(i).ToTime() })
	case *arrow.TimestampType:
		return typed(func(a *array.Timestamp, i int) time.Time { return a.Value(i).ToTime(t.Unit) })
	}
	return func(ch duckdb.DataChunk, col int, a arrow.Array, off, n int) error {
		for i := range n {
			if err := ch.SetValue(col, i, goValue(a, off+i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// typed is the writer of a flat Arrow array type A whose values get reads.
func typed[A arrow.Array, T any](get func(A, int) T) writer {
	return func(ch duckdb.DataChunk, col int, a arrow.Array, off, n int) error {
		arr := a.(A)
		for i := range n {
			var err error
			if arr.IsNull(off + i) {
				err = ch.SetValue(col, i, nil)
			} else {
				err = duckdb.SetChunkValue(ch, col, i, get(arr, off+i))
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// goValue is row i of a as the Go value duckdb-go writes into the column's
// DuckDB type (see typeInfo); nil for null.
func goValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean, *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Float32, *array.Float64,
		*array.String, *array.LargeString, *array.StringView,
		*array.Binary, *array.LargeBinary, *array.BinaryView, *array.FixedSizeBinary:
		// duckdb-go takes these as the Go values Arrow holds.
		return a.(interface{ ValueAsAny(int) any }).ValueAsAny(i)
	case *array.Date32:
		return a.Value(i).ToTime()
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit)
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return duckdb.Decimal{Width: uint8(dt.Precision), Scale: uint8(dt.Scale), Value: a.Value(i).BigInt()}
	case *array.Map: // before *array.List: a Map is a List of key/value structs
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		m := duckdb.OrderedMap{}
		for j := int(start); j < int(end); j++ {
			m.Set(goValue(keys, j), goValue(items, j))
		}
		return m
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			out = append(out, goValue(vals, j))
		}
		return out
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		out := make(map[string]any, st.NumFields())
		for f := range st.NumFields() {
			out[st.Field(f).Name] = goValue(a.Field(f), i)
		}
		return out
	}
	return a.ValueStr(i)
}
