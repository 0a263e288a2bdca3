package schema

import (
	"fmt"
	"strings"
)

// TypeChangesKey is the column metadata key under which Delta's type
// widening records a field's type changes (PROTOCOL.md, Type Change
// Metadata): a list of {fromType, toType[, fieldPath]}, on the nearest
// struct field, fieldPath leading to a map key / value or array element.
const TypeChangesKey = "delta.typeChanges"

// Widening says which type changes a schema evolution may apply to the
// table's columns.
type Widening int

const (
	// NoWidening: a column keeps its type (the table does not enable type
	// widening).
	NoWidening Widening = iota
	// WidenAll: every change Delta's type widening supports (CanWiden), as
	// Spark's schema evolution applies them on a table with
	// delta.enableTypeWidening=true (allowAutomaticWidening=always, its
	// default since Delta 4.0).
	WidenAll
	// WidenIceberg: only the changes Iceberg V2 reads too
	// (IcebergCanWiden), on a table with an Iceberg compatibility feature.
	WidenIceberg
)

// Allows reports whether w lets a column of type from take type to.
func (w Widening) Allows(from, to Type) bool {
	switch w {
	case WidenAll:
		return CanWiden(from, to)
	case WidenIceberg:
		return IcebergCanWiden(from, to)
	}
	return false
}

// intWidth is the byte width of Delta's integral types.
var intWidth = map[string]int{Byte: 1, Short: 2, Integer: 4, Long: 8}

// CanWiden reports whether Delta's type widening supports changing a
// column of type from to type to (Spark's
// TypeWidening.isTypeChangeSupported): byte -> short -> integer -> long,
// float -> double, byte / short / integer -> double, date ->
// timestamp_ntz, decimal(p, s) -> decimal(p+k1, s+k2) with k1 >= k2 >= 0,
// byte / short / integer -> decimal(10+k1, k2) and long -> decimal(20+k1,
// k2) likewise. Only atomic types: a caller recurses into structs, maps
// and arrays. The same type is not a change.
func CanWiden(from, to Type) bool {
	if from == nil || to == nil || from.String() == to.String() {
		return false
	}
	switch t := to.(type) {
	case *Decimal:
		switch f := from.(type) {
		case *Decimal:
			return decimalWider(t, f.Precision-f.Scale, f.Scale)
		case *Primitive:
			switch f.Name {
			case Byte, Short, Integer:
				return decimalWider(t, 10, 0)
			case Long:
				return decimalWider(t, 20, 0)
			}
		}
	case *Primitive:
		f, ok := from.(*Primitive)
		if !ok {
			return false
		}
		switch {
		case intWidth[f.Name] > 0 && intWidth[t.Name] > 0:
			return intWidth[f.Name] < intWidth[t.Name]
		case t.Name == Double:
			return f.Name == Float || f.Name == Byte || f.Name == Short || f.Name == Integer
		case t.Name == TimestampNTZ:
			return f.Name == Date
		}
	}
	return false
}

// decimalWider: d keeps at least intDigits digits before the point and
// scale after it (Spark's DecimalType.isWiderThan).
func decimalWider(d *Decimal, intDigits, scale int) bool {
	return d.Precision-d.Scale >= intDigits && d.Scale >= scale
}

// IcebergCanWiden reports whether the change is also one Iceberg V2
// reads (Spark's isTypeChangeSupportedByIceberg): integer widening, float
// -> double and a decimal's precision (not its scale). A table with an
// Iceberg compatibility feature must refuse the others (PROTOCOL.md,
// Writer Requirements for Type Widening).
func IcebergCanWiden(from, to Type) bool {
	if !CanWiden(from, to) {
		return false
	}
	switch t := to.(type) {
	case *Decimal:
		f, ok := from.(*Decimal)
		return ok && f.Scale == t.Scale
	case *Primitive:
		f := from.(*Primitive)
		return intWidth[t.Name] > 0 || (f.Name == Float && t.Name == Double)
	}
	return false
}

// TypeChange is one recorded change of a field's type; Path is empty for
// the field itself, else the way to the map key / value or array element
// changed ("value", "element.key").
type TypeChange struct {
	From, To Type
	Path     string
}

// TypeChanges returns the type changes recorded in f's metadata, oldest
// first; an entry this engine cannot parse is an error naming the field.
func (f *Field) TypeChanges() ([]TypeChange, error) {
	raw, ok := f.Metadata[TypeChangesKey]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("column %q: %s is not a list", f.Name, TypeChangesKey)
	}
	var out []TypeChange
	for _, e := range list {
		m, ok := e.(map[string]any)
		if c, isNew := e.(typeChangeJSON); isNew {
			m, ok = map[string]any{"fromType": c.FromType, "toType": c.ToType, "fieldPath": c.FieldPath}, true
		}
		from, fok := m["fromType"].(string)
		to, tok := m["toType"].(string)
		if !ok || !fok || !tok {
			return nil, fmt.Errorf("column %q: a %s entry without fromType and toType: %v", f.Name, TypeChangesKey, e)
		}
		ft, err := ParseTypeName(from)
		if err != nil {
			return nil, fmt.Errorf("column %q: %s: %w", f.Name, TypeChangesKey, err)
		}
		tt, err := ParseTypeName(to)
		if err != nil {
			return nil, fmt.Errorf("column %q: %s: %w", f.Name, TypeChangesKey, err)
		}
		path, _ := m["fieldPath"].(string)
		out = append(out, TypeChange{From: ft, To: tt, Path: path})
	}
	return out, nil
}

// CheckTypeChanges refuses a schema that records a type change this
// engine cannot read old files across (a reader must fail on one:
// PROTOCOL.md, Reader Requirements for Type Widening), naming the column
// and the two types: every change CanWiden allows reads, and so does an
// integer to any decimal, which the preview of type widening (Delta 3.2,
// typeWidening-preview) wrote with fewer digits than the protocol now
// asks (byte -> decimal(4,1)): reads cast those values with an overflow
// check, so a value the decimal cannot hold fails the read, never reads
// wrong. String-to-string changes (char / varchar) are not widening and
// are let through, as Spark does.
func CheckTypeChanges(sc *Struct) error {
	var bad error
	walkFields(sc, "", func(path string, f *Field) {
		if bad != nil {
			return
		}
		changes, err := f.TypeChanges()
		if err != nil {
			bad = err
			return
		}
		for _, c := range changes {
			if c.From.String() == String && c.To.String() == String {
				continue
			}
			if !CanWiden(c.From, c.To) && !integerToDecimal(c.From, c.To) {
				col := path + f.Name
				if c.Path != "" {
					col += "." + c.Path
				}
				bad = fmt.Errorf("column %q records a type change from %s to %s, which Delta's type widening does not support", col, c.From, c.To)
				return
			}
		}
	})
	return bad
}

func integerToDecimal(from, to Type) bool {
	p, ok := from.(*Primitive)
	_, dec := to.(*Decimal)
	return ok && dec && intWidth[p.Name] > 0
}

// walkFields calls fn for every struct field of sc, nested ones included
// (within structs, arrays and maps), with the dotted path of its parent.
func walkFields(sc *Struct, prefix string, fn func(path string, f *Field)) {
	for _, f := range sc.Fields {
		fn(prefix, f)
		walkType(f.Type, prefix+f.Name+".", fn)
	}
}

func walkType(t Type, prefix string, fn func(string, *Field)) {
	switch t := t.(type) {
	case *Struct:
		walkFields(t, prefix, fn)
	case *Array:
		walkType(t.Element, prefix+"element.", fn)
	case *Map:
		walkType(t.Key, prefix+"key.", fn)
		walkType(t.Value, prefix+"value.", fn)
	}
}

// RecordTypeChanges returns next with the type changes from old recorded
// in the metadata of the fields they concern, appended to those recorded
// before, as Spark's TypeWideningMetadata.addTypeWideningMetadata does:
// a struct field whose atomic type widened gets {fromType, toType}, the
// struct field holding a widened map key / value or array element gets
// them with the fieldPath to it. Fields are matched by name; new fields
// record nothing. next is changed in place and returned.
func RecordTypeChanges(old, next *Struct) *Struct {
	for _, nf := range next.Fields {
		of := old.Field(nf.Name)
		if of == nil {
			continue
		}
		var changes []any
		collectChanges(of.Type, nf.Type, "", &changes)
		if len(changes) > 0 {
			if nf.Metadata == nil {
				nf.Metadata = map[string]any{}
			}
			prev, _ := nf.Metadata[TypeChangesKey].([]any)
			nf.Metadata[TypeChangesKey] = append(append([]any(nil), prev...), changes...)
		}
	}
	return next
}

// collectChanges appends the changes from ot to nt within one struct
// field (path leads from it to a map or array part), recursing into nested
// structs, whose own fields record their changes.
func collectChanges(ot, nt Type, path string, out *[]any) {
	switch n := nt.(type) {
	case *Struct:
		if o, ok := ot.(*Struct); ok {
			RecordTypeChanges(o, n)
		}
	case *Array:
		if o, ok := ot.(*Array); ok {
			collectChanges(o.Element, n.Element, join(path, "element"), out)
		}
	case *Map:
		if o, ok := ot.(*Map); ok {
			collectChanges(o.Key, n.Key, join(path, "key"), out)
			collectChanges(o.Value, n.Value, join(path, "value"), out)
		}
	default:
		if CanWiden(ot, nt) {
			*out = append(*out, typeChangeJSON{ToType: nt.String(), FromType: ot.String(), FieldPath: path})
		}
	}
}

// typeChangeJSON is one recorded type change with its keys in the order
// Spark 4.4 writes them (toType, fromType, fieldPath).
type typeChangeJSON struct {
	ToType    string `json:"toType"`
	FromType  string `json:"fromType"`
	FieldPath string `json:"fieldPath,omitempty"`
}

func join(path, part string) string {
	if path == "" {
		return part
	}
	return path + "." + part
}

// ParseTypeName reads an atomic type as the Delta schema or Spark SQL
// names it: long or bigint, integer or int, short or smallint, byte or
// tinyint, decimal(p,s), timestamp_ntz, ... (case and spaces ignored).
func ParseTypeName(s string) (Type, error) {
	name := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	if name == "" {
		return nil, fmt.Errorf("no type given")
	}
	return parsePrimitive(name)
}

// ColumnChange is one widened atomic type between two schemas: Path is
// the column's (field names, then "key", "value" or "element" within
// maps and arrays).
type ColumnChange struct {
	Path     []string
	From, To Type
}

// Column is the path as one dotted name, as Spark shows it.
func (c ColumnChange) Column() string { return QuoteColumnPath(c.Path) }

// Widened lists the widening type changes from old to next (fields matched
// by name, new fields ignored), in schema order.
func Widened(old, next *Struct) []ColumnChange {
	var out []ColumnChange
	var walk func(ot, nt Type, path []string)
	walk = func(ot, nt Type, path []string) {
		switch n := nt.(type) {
		case *Struct:
			o, ok := ot.(*Struct)
			if !ok {
				return
			}
			for _, nf := range n.Fields {
				if of := o.Field(nf.Name); of != nil {
					walk(of.Type, nf.Type, append(path[:len(path):len(path)], nf.Name))
				}
			}
		case *Array:
			if o, ok := ot.(*Array); ok {
				walk(o.Element, n.Element, append(path[:len(path):len(path)], "element"))
			}
		case *Map:
			if o, ok := ot.(*Map); ok {
				walk(o.Key, n.Key, append(path[:len(path):len(path)], "key"))
				walk(o.Value, n.Value, append(path[:len(path):len(path)], "value"))
			}
		default:
			if CanWiden(ot, nt) {
				out = append(out, ColumnChange{Path: path, From: ot, To: nt})
			}
		}
	}
	walk(old, next, nil)
	return out
}

// WidenType is dt with every atomic type within it (struct fields by name,
// array elements, map keys and values) that st holds wider taken from st
// where w allows the change, as Spark's schema evolution widens nested
// fields (TypeWidening.isTypeChangeSupportedForSchemaEvolution, applied
// through SchemaMergingUtils). Fields st lacks or adds, and types w does
// not allow, stay as dt has them. It reports whether anything widened; dt
// is not modified.
func WidenType(dt, st Type, w Widening) (Type, bool) {
	switch d := dt.(type) {
	case *Struct:
		s, ok := st.(*Struct)
		if !ok {
			return dt, false
		}
		var fields []*Field
		for i, df := range d.Fields {
			sf := s.Field(df.Name)
			if sf == nil {
				continue
			}
			t, c := WidenType(df.Type, sf.Type, w)
			if !c {
				continue
			}
			if fields == nil {
				fields = append([]*Field(nil), d.Fields...)
			}
			nf := *df
			nf.Type = t
			fields[i] = &nf
		}
		if fields == nil {
			return dt, false
		}
		return &Struct{Fields: fields}, true
	case *Array:
		s, ok := st.(*Array)
		if !ok {
			return dt, false
		}
		e, c := WidenType(d.Element, s.Element, w)
		if !c {
			return dt, false
		}
		return &Array{Element: e, ContainsNull: d.ContainsNull}, true
	case *Map:
		s, ok := st.(*Map)
		if !ok {
			return dt, false
		}
		k, ck := WidenType(d.Key, s.Key, w)
		v, cv := WidenType(d.Value, s.Value, w)
		if !ck && !cv {
			return dt, false
		}
		return &Map{Key: k, Value: v, ValueContainsNull: d.ValueContainsNull}, true
	}
	if w.Allows(dt, st) {
		return st, true
	}
	return dt, false
}
