// Package schema is the Delta table schema: its JSON form (schemaString),
// the mapping to and from Arrow, column mapping (physical names and field
// ids) and the text form of partition values.
//
// It is pure data: it never does I/O.
package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/deltalite-go/deltalite/internal/jsonkeys"
)

// Type is a Delta data type: *Primitive, *Decimal, *Struct, *Array or *Map.
type Type interface {
	// String is the Delta name: "long", "decimal(10,2)", "struct<...>".
	String() string
	isType()
}

// Primitive is a Delta primitive type, named as in the schema JSON.
type Primitive struct{ Name string }

const (
	String       = "string"
	Long         = "long"
	Integer      = "integer"
	Short        = "short"
	Byte         = "byte"
	Float        = "float"
	Double       = "double"
	Boolean      = "boolean"
	Binary       = "binary"
	Date         = "date"
	Timestamp    = "timestamp"
	TimestampNTZ = "timestamp_ntz"
	Variant      = "variant"
	// Void is Spark's NullType: a column that only ever holds null.
	Void = "void"
)

var primitiveNames = map[string]bool{String: true, Long: true, Integer: true, Short: true, Byte: true,
	Float: true, Double: true, Boolean: true, Binary: true, Date: true, Timestamp: true,
	TimestampNTZ: true, Variant: true, Void: true}

func (p *Primitive) String() string { return p.Name }
func (*Primitive) isType()          {}

// Decimal is decimal(precision, scale), precision at most 38.
type Decimal struct{ Precision, Scale int }

func (d *Decimal) String() string { return fmt.Sprintf("decimal(%d,%d)", d.Precision, d.Scale) }
func (*Decimal) isType()          {}

// Field is one column of a struct. Metadata holds column mapping keys,
// generation expressions, invariants and anything else an engine wrote.
type Field struct {
	Name     string         `json:"name"`
	Type     Type           `json:"-"`
	Nullable bool           `json:"nullable"`
	Metadata map[string]any `json:"metadata"`
}

// Struct is a struct type; a table schema is a Struct.
type Struct struct{ Fields []*Field }

func (*Struct) isType() {}
func (s *Struct) String() string {
	parts := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		parts[i] = f.Name + ":" + f.Type.String()
	}
	return "struct<" + strings.Join(parts, ",") + ">"
}

// Field returns the field with the given name (exact match first, then
// case-insensitive, as Spark resolves columns), or nil.
func (s *Struct) Field(name string) *Field {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	for _, f := range s.Fields {
		if strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}

// Index returns the position of the named field, or -1.
func (s *Struct) Index(name string) int {
	f := s.Field(name)
	for i, g := range s.Fields {
		if g == f {
			return i
		}
	}
	return -1
}

// Without returns s without the top-level field name (found as Field finds
// it); s itself when there is none. Fields are shared, not copied.
func (s *Struct) Without(name string) *Struct {
	i := s.Index(name)
	if i < 0 {
		return s
	}
	return &Struct{Fields: append(s.Fields[:i:i], s.Fields[i+1:]...)}
}

// Array is an array type.
type Array struct {
	Element      Type
	ContainsNull bool
}

func (*Array) isType()          {}
func (a *Array) String() string { return "array<" + a.Element.String() + ">" }

// Map is a map type.
type Map struct {
	Key, Value        Type
	ValueContainsNull bool
}

func (*Map) isType()          {}
func (m *Map) String() string { return "map<" + m.Key.String() + "," + m.Value.String() + ">" }

// Parse decodes a schemaString.
func Parse(schemaString string) (*Struct, error) {
	var raw json.RawMessage
	if err := json.Unmarshal([]byte(schemaString), &raw); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	if err := jsonkeys.Unique(raw); err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	t, err := parseType(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	s, ok := t.(*Struct)
	if !ok {
		return nil, fmt.Errorf("invalid schema: top level is %s, not a struct", t)
	}
	return s, nil
}

var decimalRe = regexp.MustCompile(`^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$`)

func parseType(raw json.RawMessage) (Type, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		return parsePrimitive(name)
	}
	var obj struct {
		Type              string            `json:"type"`
		Fields            []json.RawMessage `json:"fields"`
		ElementType       json.RawMessage   `json:"elementType"`
		ContainsNull      *bool             `json:"containsNull"`
		KeyType           json.RawMessage   `json:"keyType"`
		ValueType         json.RawMessage   `json:"valueType"`
		ValueContainsNull *bool             `json:"valueContainsNull"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("type is neither a name nor an object: %s", truncate(raw))
	}
	switch obj.Type {
	case "struct":
		s := &Struct{}
		seen := map[string]bool{}
		for _, fr := range obj.Fields {
			var f struct {
				Name     *string         `json:"name"`
				Type     json.RawMessage `json:"type"`
				Nullable *bool           `json:"nullable"`
				Metadata map[string]any  `json:"metadata"`
			}
			if err := json.Unmarshal(fr, &f); err != nil {
				return nil, fmt.Errorf("invalid field %s: %w", truncate(fr), err)
			}
			if f.Name == nil {
				return nil, fmt.Errorf("field without a name: %s", truncate(fr))
			}
			if len(f.Type) == 0 {
				return nil, fmt.Errorf("field %q has no type", *f.Name)
			}
			lower := strings.ToLower(*f.Name)
			if seen[lower] {
				return nil, fmt.Errorf("duplicate field %q", *f.Name)
			}
			seen[lower] = true
			t, err := parseType(f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", *f.Name, err)
			}
			nullable := true
			if f.Nullable != nil {
				nullable = *f.Nullable
			}
			s.Fields = append(s.Fields, &Field{Name: *f.Name, Type: t, Nullable: nullable, Metadata: f.Metadata})
		}
		return s, nil
	case "array":
		if len(obj.ElementType) == 0 {
			return nil, fmt.Errorf("array without elementType")
		}
		e, err := parseType(obj.ElementType)
		if err != nil {
			return nil, err
		}
		return &Array{Element: e, ContainsNull: obj.ContainsNull == nil || *obj.ContainsNull}, nil
	case "map":
		if len(obj.KeyType) == 0 || len(obj.ValueType) == 0 {
			return nil, fmt.Errorf("map without keyType or valueType")
		}
		k, err := parseType(obj.KeyType)
		if err != nil {
			return nil, err
		}
		v, err := parseType(obj.ValueType)
		if err != nil {
			return nil, err
		}
		return &Map{Key: k, Value: v, ValueContainsNull: obj.ValueContainsNull == nil || *obj.ValueContainsNull}, nil
	default:
		return nil, fmt.Errorf("unknown type %q", obj.Type)
	}
}

func parsePrimitive(name string) (Type, error) {
	if m := decimalRe.FindStringSubmatch(name); m != nil {
		p, _ := strconv.Atoi(m[1])
		s, _ := strconv.Atoi(m[2])
		if p < 1 || p > 38 || s < 0 || s > p {
			return nil, fmt.Errorf("invalid decimal precision/scale in %q", name)
		}
		return &Decimal{Precision: p, Scale: s}, nil
	}
	if name == "decimal" {
		return &Decimal{Precision: 10, Scale: 0}, nil
	}
	switch name {
	case "int":
		name = Integer
	case "bigint":
		name = Long
	case "tinyint":
		name = Byte
	case "smallint":
		name = Short
	}
	if !primitiveNames[name] {
		return nil, fmt.Errorf("unknown type %q", name)
	}
	return &Primitive{Name: name}, nil
}

func truncate(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// JSON renders the schema as a schemaString.
func (s *Struct) JSON() string {
	b, err := json.Marshal(typeJSON(s))
	if err != nil {
		panic(err) // only maps, slices and strings: cannot fail
	}
	return string(b)
}

// The JSON forms, with fields in Spark's order.
type (
	structJSON struct {
		Type   string      `json:"type"`
		Fields []fieldJSON `json:"fields"`
	}
	fieldJSON struct {
		Name     string         `json:"name"`
		Type     any            `json:"type"`
		Nullable bool           `json:"nullable"`
		Metadata map[string]any `json:"metadata"`
	}
	arrayJSON struct {
		Type         string `json:"type"`
		ElementType  any    `json:"elementType"`
		ContainsNull bool   `json:"containsNull"`
	}
	mapJSON struct {
		Type              string `json:"type"`
		KeyType           any    `json:"keyType"`
		ValueType         any    `json:"valueType"`
		ValueContainsNull bool   `json:"valueContainsNull"`
	}
)

func typeJSON(t Type) any {
	switch t := t.(type) {
	case *Primitive:
		return t.Name
	case *Decimal:
		return t.String()
	case *Struct:
		fields := make([]fieldJSON, len(t.Fields))
		for i, f := range t.Fields {
			md := f.Metadata
			if md == nil {
				md = map[string]any{}
			}
			fields[i] = fieldJSON{Name: f.Name, Type: typeJSON(f.Type), Nullable: f.Nullable, Metadata: md}
		}
		return structJSON{Type: "struct", Fields: fields}
	case *Array:
		return arrayJSON{Type: "array", ElementType: typeJSON(t.Element), ContainsNull: t.ContainsNull}
	case *Map:
		return mapJSON{Type: "map", KeyType: typeJSON(t.Key), ValueType: typeJSON(t.Value), ValueContainsNull: t.ValueContainsNull}
	}
	return nil
}

// MinMaxEligible reports whether Delta keeps min/max statistics for a
// type, which is Spark's SkippingEligibleDataType: numbers, dates,
// timestamps and strings; not booleans, binaries, variants or nested
// types.
func MinMaxEligible(t Type) bool {
	switch t := t.(type) {
	case *Decimal:
		return true
	case *Primitive:
		switch t.Name {
		case Byte, Short, Integer, Long, Float, Double, Date, Timestamp, TimestampNTZ, String:
			return true
		}
	}
	return false
}
