package peers

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// Table is what a peer engine read: the canonical document of
// python/peerlib/canon.py.
type Table struct {
	// Engine that read the table.
	Engine string `json:"engine"`
	// Version read, when the peer reports it.
	Version *int64 `json:"version"`
	// Columns in the order the peer returned them.
	Columns []string `json:"columns"`
	// Types as the peer's Arrow names them (for messages).
	Types []string `json:"types"`
	// Fields with their canonical types, from which Schema is built.
	Fields []Field `json:"schema"`
	// NumRows is the number of rows.
	NumRows int `json:"num_rows"`
	// Rows in canonical JSON form, numbers as json.Number.
	Rows []map[string]any `json:"rows"`
}

// Field is a column or nested field with its canonical type: a string for a
// primitive or an object for struct, list and map.
type Field struct {
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Nullable bool            `json:"nullable"`
}

// DecodeTable parses a canonical table document.
func DecodeTable(data []byte) (Table, error) {
	var tb Table
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&tb); err != nil {
		return Table{}, fmt.Errorf("decoding a peer's table: %w", err)
	}
	return tb, nil
}

// Schema returns the Arrow schema of the peer's rows: integer widths, float
// widths, decimal precision and scale, nullability and nesting as the peer
// had them; timestamps in microseconds (UTC or without zone); every string
// kind as utf8 and every binary kind as binary.
func (tb Table) Schema() (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(tb.Fields))
	for i, f := range tb.Fields {
		af, err := f.arrow()
		if err != nil {
			return nil, err
		}
		fields[i] = af
	}
	return arrow.NewSchema(fields, nil), nil
}

func (f Field) arrow() (arrow.Field, error) {
	dt, err := canonicalType(f.Type)
	if err != nil {
		return arrow.Field{}, fmt.Errorf("field %q: %w", f.Name, err)
	}
	return arrow.Field{Name: f.Name, Type: dt, Nullable: f.Nullable}, nil
}

func canonicalType(raw json.RawMessage) (arrow.DataType, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		return primitiveType(name)
	}
	var nested struct {
		Struct []Field `json:"struct"`
		List   *Field  `json:"list"`
		Map    []Field `json:"map"`
	}
	if err := json.Unmarshal(raw, &nested); err != nil {
		return nil, fmt.Errorf("type %s: %w", raw, err)
	}
	switch {
	case nested.Struct != nil:
		fs := make([]arrow.Field, len(nested.Struct))
		for i, f := range nested.Struct {
			af, err := f.arrow()
			if err != nil {
				return nil, err
			}
			fs[i] = af
		}
		return arrow.StructOf(fs...), nil
	case nested.List != nil:
		el, err := nested.List.arrow()
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(el), nil
	case len(nested.Map) == 2:
		k, err := nested.Map[0].arrow()
		if err != nil {
			return nil, err
		}
		v, err := nested.Map[1].arrow()
		if err != nil {
			return nil, err
		}
		mt := arrow.MapOfWithMetadata(k.Type, k.Metadata, v.Type, v.Metadata)
		mt.SetItemNullable(v.Nullable)
		return mt, nil
	}
	return nil, fmt.Errorf("unknown type %s", raw)
}

func primitiveType(name string) (arrow.DataType, error) {
	switch name {
	case "int8":
		return arrow.PrimitiveTypes.Int8, nil
	case "int16":
		return arrow.PrimitiveTypes.Int16, nil
	case "int32":
		return arrow.PrimitiveTypes.Int32, nil
	case "int64":
		return arrow.PrimitiveTypes.Int64, nil
	case "uint8":
		return arrow.PrimitiveTypes.Uint8, nil
	case "uint16":
		return arrow.PrimitiveTypes.Uint16, nil
	case "uint32":
		return arrow.PrimitiveTypes.Uint32, nil
	case "uint64":
		return arrow.PrimitiveTypes.Uint64, nil
	case "float16", "float32":
		return arrow.PrimitiveTypes.Float32, nil
	case "float64":
		return arrow.PrimitiveTypes.Float64, nil
	case "bool":
		return arrow.FixedWidthTypes.Boolean, nil
	case "string":
		return arrow.BinaryTypes.String, nil
	case "binary":
		return arrow.BinaryTypes.Binary, nil
	case "date":
		return arrow.FixedWidthTypes.Date32, nil
	case "timestamp":
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	case "timestamp_ntz":
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case "time":
		return arrow.FixedWidthTypes.Time64us, nil
	case "null":
		return arrow.Null, nil
	}
	if strings.HasPrefix(name, "decimal(") && strings.HasSuffix(name, ")") {
		var p, s int32
		if _, err := fmt.Sscanf(name, "decimal(%d,%d)", &p, &s); err != nil {
			return nil, fmt.Errorf("type %q: %w", name, err)
		}
		return &arrow.Decimal128Type{Precision: p, Scale: s}, nil
	}
	return nil, fmt.Errorf("unknown type %q", name)
}

// Record rebuilds the peer's rows as one Arrow record batch with Schema.
// The caller releases it.
func (tb Table) Record() (arrow.RecordBatch, error) {
	schema, err := tb.Schema()
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for r, row := range tb.Rows {
		for i, f := range schema.Fields() {
			if err := appendValue(b.Field(i), f.Type, row[f.Name]); err != nil {
				return nil, fmt.Errorf("row %d, column %q: %w", r, f.Name, err)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

// Lines renders the peer's rows with testkit/arrowrows, sorted, for
// comparison with arrowrows.Rows over what deltalite read.
func (tb Table) Lines(t testing.TB) []string {
	t.Helper()
	rec, err := tb.Record()
	if err != nil {
		t.Fatalf("peers: %s rows: %v", tb.Engine, err)
	}
	defer rec.Release()
	return arrowrows.Rows(rec)
}

// Int64s returns the values of an integer column, sorted; a null or a
// non-integer fails the test.
func (tb Table) Int64s(t testing.TB, column string) []int64 {
	t.Helper()
	out := make([]int64, 0, len(tb.Rows))
	for i, row := range tb.Rows {
		n, ok := row[column].(json.Number)
		if !ok {
			t.Fatalf("peers: %s row %d: column %q is %v, not an integer", tb.Engine, i, column, row[column])
		}
		v, err := n.Int64()
		if err != nil {
			t.Fatalf("peers: %s row %d: column %q: %v", tb.Engine, i, column, err)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

func appendValue(b array.Builder, dt arrow.DataType, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.Int8Builder:
		n, err := asInt(v, 8)
		bb.Append(int8(n))
		return err
	case *array.Int16Builder:
		n, err := asInt(v, 16)
		bb.Append(int16(n))
		return err
	case *array.Int32Builder:
		n, err := asInt(v, 32)
		bb.Append(int32(n))
		return err
	case *array.Int64Builder:
		n, err := asInt(v, 64)
		bb.Append(n)
		return err
	case *array.Uint8Builder:
		n, err := asUint(v, 8)
		bb.Append(uint8(n))
		return err
	case *array.Uint16Builder:
		n, err := asUint(v, 16)
		bb.Append(uint16(n))
		return err
	case *array.Uint32Builder:
		n, err := asUint(v, 32)
		bb.Append(uint32(n))
		return err
	case *array.Uint64Builder:
		n, err := asUint(v, 64)
		bb.Append(n)
		return err
	case *array.Float32Builder:
		f, err := asFloat(v, 32)
		bb.Append(float32(f))
		return err
	case *array.Float64Builder:
		f, err := asFloat(v, 64)
		bb.Append(f)
		return err
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		bb.Append(x)
		return typeErr(ok, "a boolean", v)
	case *array.StringBuilder:
		s, ok := v.(string)
		bb.Append(s)
		return typeErr(ok, "a string", v)
	case *array.BinaryBuilder:
		s, ok := v.(string)
		if !ok {
			bb.AppendNull()
			return typeErr(false, "a hex string", v)
		}
		raw, err := hex.DecodeString(s)
		bb.Append(raw)
		return err
	case *array.Date32Builder:
		s, ok := v.(string)
		if !ok {
			bb.AppendNull()
			return typeErr(false, "a date string", v)
		}
		d, err := time.Parse(time.DateOnly, s)
		bb.Append(arrow.Date32FromTime(d))
		return err
	case *array.TimestampBuilder:
		n, err := asInt(v, 64)
		bb.Append(arrow.Timestamp(n))
		return err
	case *array.Time64Builder:
		n, err := asInt(v, 64)
		bb.Append(arrow.Time64(n))
		return err
	case *array.Decimal128Builder:
		s, ok := v.(string)
		if !ok {
			bb.AppendNull()
			return typeErr(false, "a decimal string", v)
		}
		dt := dt.(*arrow.Decimal128Type)
		n, err := decimal128.FromString(s, dt.Precision, dt.Scale)
		bb.Append(n)
		return err
	case *array.NullBuilder:
		bb.AppendNull()
		return nil
	case *array.StructBuilder:
		m, ok := v.(map[string]any)
		if !ok {
			bb.AppendNull()
			return typeErr(false, "an object", v)
		}
		bb.Append(true)
		st := dt.(*arrow.StructType)
		for i, f := range st.Fields() {
			if err := appendValue(bb.FieldBuilder(i), f.Type, m[f.Name]); err != nil {
				return fmt.Errorf("field %q: %w", f.Name, err)
			}
		}
		return nil
	case *array.MapBuilder:
		pairs, ok := v.([]any)
		if !ok {
			bb.AppendNull()
			return typeErr(false, "a list of [key, value] pairs", v)
		}
		mt := dt.(*arrow.MapType)
		bb.Append(true)
		for _, p := range pairs {
			kv, ok := p.([]any)
			if !ok || len(kv) != 2 {
				return typeErr(false, "a [key, value] pair", p)
			}
			if err := appendValue(bb.KeyBuilder(), mt.KeyType(), kv[0]); err != nil {
				return err
			}
			if err := appendValue(bb.ItemBuilder(), mt.ItemType(), kv[1]); err != nil {
				return err
			}
		}
		return nil
	case *array.ListBuilder:
		items, ok := v.([]any)
		if !ok {
			bb.AppendNull()
			return typeErr(false, "a list", v)
		}
		el := dt.(*arrow.ListType).Elem()
		bb.Append(true)
		for _, it := range items {
			if err := appendValue(bb.ValueBuilder(), el, it); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("no builder for %s", dt)
}

func typeErr(ok bool, want string, v any) error {
	if ok {
		return nil
	}
	return fmt.Errorf("want %s, got %T %v", want, v, v)
}

func asInt(v any, bits int) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, typeErr(false, "an integer", v)
	}
	return strconv.ParseInt(n.String(), 10, bits)
}

func asUint(v any, bits int) (uint64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, typeErr(false, "an unsigned integer", v)
	}
	return strconv.ParseUint(n.String(), 10, bits)
}

func asFloat(v any, bits int) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		return strconv.ParseFloat(x.String(), bits)
	case string:
		switch x {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
	}
	return 0, typeErr(false, "a number", v)
}
