package schema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Column mapping metadata keys.
const (
	PhysicalNameKey = "delta.columnMapping.physicalName"
	ColumnIDKey     = "delta.columnMapping.id"
	// ParquetFieldIDKey is the Arrow field metadata key pqarrow maps to
	// Parquet field ids.
	ParquetFieldIDKey = "PARQUET:field_id"
)

// Mode is the column mapping mode of a table (delta.columnMapping.mode).
type Mode string

const (
	MappingNone Mode = "none"
	MappingName Mode = "name"
	MappingID   Mode = "id"
)

// ParseMode reads delta.columnMapping.mode; empty means none.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "none":
		return MappingNone, nil
	case "name":
		return MappingName, nil
	case "id":
		return MappingID, nil
	}
	return "", fmt.Errorf("unknown column mapping mode %q", s)
}

// PhysicalName is the name of the field in data files under mode m.
func (f *Field) PhysicalName(m Mode) string {
	if m != MappingNone {
		if p, ok := f.Metadata[PhysicalNameKey].(string); ok && p != "" {
			return p
		}
	}
	return f.Name
}

// ColumnID is the column mapping id of the field, if it has one.
func (f *Field) ColumnID() (int64, bool) {
	switch v := f.Metadata[ColumnIDKey].(type) {
	case float64:
		return int64(v), true
	case int64:
		return v, true
	case int:
		return int64(v), true
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// ArrowOptions choose the names the Arrow schema carries.
type ArrowOptions struct {
	// Physical names fields by their physical (data file) names under Mode,
	// and attaches Parquet field ids when the schema has column ids.
	Physical bool
	Mode     Mode
}

// ToArrow maps a Delta schema to Arrow: long→int64, timestamp→timestamp[us,
// UTC], timestamp_ntz→timestamp[us], date→date32, decimal→decimal128,
// string→utf8, binary→binary, array→list, map→map, struct→struct.
func ToArrow(s *Struct, opt ArrowOptions) (*arrow.Schema, error) {
	fields, err := arrowFields(s, opt)
	if err != nil {
		return nil, err
	}
	return arrow.NewSchema(fields, nil), nil
}

func arrowFields(s *Struct, opt ArrowOptions) ([]arrow.Field, error) {
	out := make([]arrow.Field, len(s.Fields))
	for i, f := range s.Fields {
		af, err := ArrowField(f, opt)
		if err != nil {
			return nil, err
		}
		out[i] = af
	}
	return out, nil
}

// ArrowField maps one Delta field to an Arrow field.
func ArrowField(f *Field, opt ArrowOptions) (arrow.Field, error) {
	t, err := ArrowType(f.Type, opt)
	if err != nil {
		return arrow.Field{}, fmt.Errorf("column %q: %w", f.Name, err)
	}
	name := f.Name
	var md arrow.Metadata
	if opt.Physical {
		name = f.PhysicalName(opt.Mode)
		if id, ok := f.ColumnID(); ok && opt.Mode != MappingNone {
			md = arrow.NewMetadata([]string{ParquetFieldIDKey}, []string{strconv.FormatInt(id, 10)})
		}
	}
	return arrow.Field{Name: name, Type: t, Nullable: f.Nullable, Metadata: md}, nil
}

// ArrowType maps a Delta type to Arrow.
func ArrowType(t Type, opt ArrowOptions) (arrow.DataType, error) {
	switch t := t.(type) {
	case *Primitive:
		switch t.Name {
		case String:
			return arrow.BinaryTypes.String, nil
		case Long:
			return arrow.PrimitiveTypes.Int64, nil
		case Integer:
			return arrow.PrimitiveTypes.Int32, nil
		case Short:
			return arrow.PrimitiveTypes.Int16, nil
		case Byte:
			return arrow.PrimitiveTypes.Int8, nil
		case Float:
			return arrow.PrimitiveTypes.Float32, nil
		case Double:
			return arrow.PrimitiveTypes.Float64, nil
		case Boolean:
			return arrow.FixedWidthTypes.Boolean, nil
		case Binary:
			return arrow.BinaryTypes.Binary, nil
		case Date:
			return arrow.FixedWidthTypes.Date32, nil
		case Timestamp:
			return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
		case TimestampNTZ:
			return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
		case Void:
			return arrow.Null, nil
		case Variant:
			return arrow.StructOf(
				arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary},
				arrow.Field{Name: "metadata", Type: arrow.BinaryTypes.Binary}), nil
		}
	case *Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case *Struct:
		fields, err := arrowFields(t, opt)
		if err != nil {
			return nil, err
		}
		return arrow.StructOf(fields...), nil
	case *Array:
		e, err := ArrowType(t.Element, opt)
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: "element", Type: e, Nullable: t.ContainsNull}), nil
	case *Map:
		k, err := ArrowType(t.Key, opt)
		if err != nil {
			return nil, err
		}
		v, err := ArrowType(t.Value, opt)
		if err != nil {
			return nil, err
		}
		m := arrow.MapOf(k, v)
		m.SetItemNullable(t.ValueContainsNull)
		return m, nil
	}
	return nil, fmt.Errorf("no Arrow type for %v", t)
}

// FromArrow maps an Arrow schema to a Delta schema. Unsigned integers widen
// to the next signed type; large and view strings/binaries map to
// string/binary; timestamps of any unit map to timestamp (with a zone) or
// timestamp_ntz (without).
func FromArrow(s *arrow.Schema) (*Struct, error) {
	out := &Struct{}
	if err := uniqueNames(s.Fields(), ""); err != nil {
		return nil, err
	}
	for _, f := range s.Fields() {
		df, err := fieldFromArrow(f)
		if err != nil {
			return nil, err
		}
		out.Fields = append(out.Fields, df)
	}
	return out, nil
}

func fieldFromArrow(f arrow.Field) (*Field, error) {
	t, err := TypeFromArrow(f.Type)
	if err != nil {
		return nil, fmt.Errorf("column %q: %w", f.Name, err)
	}
	return &Field{Name: f.Name, Type: t, Nullable: f.Nullable, Metadata: map[string]any{}}, nil
}

// TypeFromArrow maps one Arrow type to Delta.
func TypeFromArrow(t arrow.DataType) (Type, error) {
	p := func(n string) (Type, error) { return &Primitive{Name: n}, nil }
	switch t := t.(type) {
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return p(String)
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType, *arrow.FixedSizeBinaryType:
		return p(Binary)
	case *arrow.Int64Type, *arrow.Uint32Type:
		return p(Long)
	case *arrow.Int32Type, *arrow.Uint16Type:
		return p(Integer)
	case *arrow.Int16Type, *arrow.Uint8Type:
		return p(Short)
	case *arrow.Int8Type:
		return p(Byte)
	case *arrow.Uint64Type:
		return &Decimal{Precision: 20, Scale: 0}, nil
	case *arrow.Float16Type, *arrow.Float32Type:
		return p(Float)
	case *arrow.Float64Type:
		return p(Double)
	case *arrow.BooleanType:
		return p(Boolean)
	case *arrow.NullType:
		return p(Void)
	case *arrow.Date32Type, *arrow.Date64Type:
		return p(Date)
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return p(TimestampNTZ)
		}
		return p(Timestamp)
	case *arrow.Decimal128Type:
		return &Decimal{Precision: int(t.Precision), Scale: int(t.Scale)}, nil
	case *arrow.Decimal32Type:
		return &Decimal{Precision: int(t.Precision), Scale: int(t.Scale)}, nil
	case *arrow.Decimal64Type:
		return &Decimal{Precision: int(t.Precision), Scale: int(t.Scale)}, nil
	case *arrow.DictionaryType:
		return TypeFromArrow(t.ValueType)
	case *arrow.StructType:
		s := &Struct{}
		if err := uniqueNames(t.Fields(), "struct "); err != nil {
			return nil, err
		}
		for _, f := range t.Fields() {
			df, err := fieldFromArrow(f)
			if err != nil {
				return nil, err
			}
			s.Fields = append(s.Fields, df)
		}
		return s, nil
	case *arrow.MapType:
		k, err := TypeFromArrow(t.KeyType())
		if err != nil {
			return nil, err
		}
		v, err := TypeFromArrow(t.ItemType())
		if err != nil {
			return nil, err
		}
		return &Map{Key: k, Value: v, ValueContainsNull: t.ItemField().Nullable}, nil
	case arrow.ListLikeType:
		e, err := TypeFromArrow(t.Elem())
		if err != nil {
			return nil, err
		}
		return &Array{Element: e, ContainsNull: t.ElemField().Nullable}, nil
	}
	return nil, fmt.Errorf("the Arrow type %s has no Delta equivalent", t)
}

// uniqueNames refuses two fields whose names differ at most in case: Delta
// resolves columns case-insensitively, so such a schema cannot be a table's.
func uniqueNames(fields []arrow.Field, what string) error {
	seen := make(map[string]string, len(fields))
	for _, f := range fields {
		low := strings.ToLower(f.Name)
		if prev, dup := seen[low]; dup {
			return fmt.Errorf("%sfields %q and %q have the same name (Delta column names are case-insensitive)", what, prev, f.Name)
		}
		seen[low] = f.Name
	}
	return nil
}
