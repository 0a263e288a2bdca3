package checkpoint

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// appendStatsParsed writes the typed form of a JSON stats string. Values
// that are absent, or that do not fit the column's type, are written as
// null: stats_parsed is an index, and a missing bound only means a file
// cannot be skipped.
func appendStatsParsed(sb *array.StructBuilder, cols []*statCol, stats string) {
	if stats == "" {
		sb.AppendNull()
		return
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(stats)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		sb.AppendNull()
		return
	}
	sb.Append(true)
	st := sb.Type().(*arrow.StructType)
	for i, f := range st.Fields() {
		b := sb.FieldBuilder(i)
		v := m[f.Name]
		switch f.Name {
		case "numRecords":
			appendJSONValue(b, &schema.Primitive{Name: schema.Long}, v)
		case "tightBounds":
			appendJSONValue(b, &schema.Primitive{Name: schema.Boolean}, v)
		case "minValues", "maxValues":
			appendMinMax(b.(*array.StructBuilder), cols, v)
		case "nullCount":
			appendNullCounts(b.(*array.StructBuilder), cols, v)
		default:
			b.AppendNull()
		}
	}
}

// appendMinMax writes minValues or maxValues: the columns with min/max
// statistics, nested for structs.
func appendMinMax(sb *array.StructBuilder, cols []*statCol, v any) {
	m, ok := beginStruct(sb, v)
	if !ok {
		return
	}
	i := 0
	for _, c := range cols {
		if !c.minMax {
			continue
		}
		b := sb.FieldBuilder(i)
		i++
		if c.children != nil {
			appendMinMax(b.(*array.StructBuilder), c.children, m[c.name])
			continue
		}
		appendJSONValue(b, c.typ, m[c.name])
	}
}

// appendNullCounts writes nullCount: a long per column, nested for
// structs.
func appendNullCounts(sb *array.StructBuilder, cols []*statCol, v any) {
	m, ok := beginStruct(sb, v)
	if !ok {
		return
	}
	i := 0
	for _, c := range cols {
		if c.children != nil {
			if nullCountType(c.children) == nil {
				continue
			}
			appendNullCounts(sb.FieldBuilder(i).(*array.StructBuilder), c.children, m[c.name])
			i++
			continue
		}
		appendJSONValue(sb.FieldBuilder(i), &schema.Primitive{Name: schema.Long}, m[c.name])
		i++
	}
}

// beginStruct appends a struct for the JSON object v, or a null when v is
// not an object.
func beginStruct(sb *array.StructBuilder, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		sb.AppendNull()
		return nil, false
	}
	sb.Append(true)
	return m, true
}

// appendJSONValue appends a JSON statistic (json.Number, string, bool or
// nil) to a builder of Delta type t, or null when it does not convert.
func appendJSONValue(b array.Builder, t schema.Type, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	var err error
	switch bb := b.(type) {
	case *array.Int64Builder:
		var n int64
		if n, err = jsonInt(v, 64); err == nil {
			bb.Append(n)
		}
	case *array.Int32Builder:
		var n int64
		if n, err = jsonInt(v, 32); err == nil {
			bb.Append(int32(n))
		}
	case *array.Int16Builder:
		var n int64
		if n, err = jsonInt(v, 16); err == nil {
			bb.Append(int16(n))
		}
	case *array.Int8Builder:
		var n int64
		if n, err = jsonInt(v, 8); err == nil {
			bb.Append(int8(n))
		}
	case *array.Float64Builder:
		var f float64
		if f, err = jsonFloat(v); err == nil {
			bb.Append(f)
		}
	case *array.Float32Builder:
		var f float64
		if f, err = jsonFloat(v); err == nil {
			bb.Append(float32(f))
		}
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			err = errNoConv
		} else {
			bb.Append(x)
		}
	case *array.StringBuilder:
		s, ok := v.(string)
		if !ok {
			err = errNoConv
		} else {
			bb.Append(s)
		}
	case *array.Date32Builder:
		s, ok := v.(string)
		var d time.Time
		if !ok {
			err = errNoConv
		} else if d, err = time.Parse("2006-01-02", s); err == nil {
			bb.Append(arrow.Date32FromTime(d))
		}
	case *array.TimestampBuilder:
		s, ok := v.(string)
		var us int64
		if !ok {
			err = errNoConv
		} else if us, err = schema.ParseTimestamp(s); err == nil {
			bb.Append(arrow.Timestamp(us))
		}
	case *array.Decimal128Builder:
		d, ok := t.(*schema.Decimal)
		var n decimal128.Num
		if !ok {
			err = errNoConv
		} else if n, err = schema.ParseDecimal(jsonText(v), d.Precision, d.Scale); err == nil {
			bb.Append(n)
		}
	default:
		err = errNoConv
	}
	if err != nil {
		b.AppendNull()
	}
}

var errNoConv = errs.New(errs.Internal, "", "statistic does not convert")

func jsonText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case string:
		return x
	}
	return ""
}

func jsonInt(v any, bits int) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, errNoConv
	}
	return strconv.ParseInt(n.String(), 10, bits)
}

// jsonFloat reads a number, or the strings Spark writes for non-finite
// values.
func jsonFloat(v any) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		return strconv.ParseFloat(x.String(), 64)
	case string:
		if f, ok := schema.ParseNonFinite(x); ok {
			return f, nil
		}
	}
	return 0, errNoConv
}

// appendPartitionsParsed writes the typed partition values of an add.
func appendPartitionsParsed(sb *array.StructBuilder, cols []partCol, a *protocol.Add) error {
	sb.Append(true)
	for i, c := range cols {
		b := sb.FieldBuilder(i)
		s, present := a.PartitionValues[c.name]
		if !present {
			b.AppendNull()
			continue
		}
		v, ok, err := schema.ParsePartitionValue(c.typ, s)
		if err != nil {
			return errs.New(errs.InvalidArgument, "", "add %s: %v", a.Path, err)
		}
		if !ok {
			b.AppendNull()
			continue
		}
		appendTyped(b, v)
	}
	return nil
}

// appendTyped appends a value of schema.ParsePartitionValue's Go types.
func appendTyped(b array.Builder, v any) {
	switch bb := b.(type) {
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Int32Builder:
		bb.Append(v.(int32))
	case *array.Int16Builder:
		bb.Append(v.(int16))
	case *array.Int8Builder:
		bb.Append(v.(int8))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.Float32Builder:
		bb.Append(v.(float32))
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Date32Builder:
		bb.Append(v.(arrow.Date32))
	case *array.TimestampBuilder:
		bb.Append(v.(arrow.Timestamp))
	case *array.Decimal128Builder:
		bb.Append(v.(decimal128.Num))
	default:
		b.AppendNull()
	}
}
