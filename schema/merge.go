package schema

import (
	"fmt"
	"strings"
)

// MergeOptions say what Merge may change beyond adding columns and
// relaxing nullability.
type MergeOptions struct {
	// Widen lets a table column take a wider source type (type widening:
	// WidenAll on a table with delta.enableTypeWidening=true).
	Widen Widening
	// Preview says the table has the preview of type widening
	// (typeWidening-preview), on which this engine changes no type: a
	// wider source is refused saying to widen the column with Spark or
	// cast the source.
	Preview bool
	// addOnly adds fields and changes nothing else: no type, no
	// nullability, no error for types that differ (AddFields).
	addOnly bool
}

// Merge evolves table to accept source, as schema mode "merge" does: source
// columns the table lacks are appended (nullable), nested struct fields
// likewise, and a table column the source makes nullable becomes nullable.
// Types must agree; a narrower source type is fine (it is cast up), a
// wider one is not unless o.Widen allows the change, which then widens the
// column (also a map key / value or array element). It reports whether
// anything changed. table is not modified; the type changes are not
// recorded (RecordTypeChanges does that).
func Merge(table, source *Struct, o MergeOptions) (*Struct, bool, error) {
	out := table.Clone()
	changed, err := mergeInto(out, source, "", o)
	if err != nil {
		return nil, false, err
	}
	return out, changed, nil
}

func mergeInto(dst, src *Struct, path string, o MergeOptions) (bool, error) {
	changed := false
	var bad []string
	for _, sf := range src.Fields {
		df := dst.Field(sf.Name)
		name := path + sf.Name
		if df == nil {
			nf := *sf
			nf.Nullable = true
			nf.Metadata = map[string]any{}
			dst.Fields = append(dst.Fields, &nf)
			changed = true
			continue
		}
		if sf.Nullable && !df.Nullable && !o.addOnly {
			df.Nullable = true
			changed = true
		}
		t, c, err := mergeType(df.Type, sf.Type, name, o)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		df.Type = t
		changed = changed || c
	}
	if len(bad) > 0 {
		return false, fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return changed, nil
}

// mergeType is the type of a table column of type dt written with source
// type st: dt when st fits it, st when o allows widening dt to it, within
// structs, maps and arrays too, whose struct fields are merged as columns
// are.
func mergeType(dt, st Type, name string, o MergeOptions) (Type, bool, error) {
	switch d := dt.(type) {
	case *Struct:
		if s, ok := st.(*Struct); ok {
			out := d.Clone()
			c, err := mergeInto(out, s, name+".", o)
			if err != nil {
				return nil, false, err
			}
			return out, c, nil
		}
	case *Array:
		if s, ok := st.(*Array); ok {
			e, c, err := mergeType(d.Element, s.Element, name+".element", o)
			if err != nil {
				return nil, false, err
			}
			return &Array{Element: e, ContainsNull: d.ContainsNull}, c, nil
		}
	case *Map:
		if s, ok := st.(*Map); ok {
			k, ck, err := mergeType(d.Key, s.Key, name+".key", o)
			if err != nil {
				return nil, false, err
			}
			v, cv, err := mergeType(d.Value, s.Value, name+".value", o)
			if err != nil {
				return nil, false, err
			}
			return &Map{Key: k, Value: v, ValueContainsNull: d.ValueContainsNull}, ck || cv, nil
		}
	}
	switch {
	case dt.String() == st.String(), CanWiden(st, dt), o.addOnly:
		return dt, false, nil
	case o.Widen.Allows(dt, st):
		return st, true, nil
	case CanWiden(dt, st) && o.Widen == WidenIceberg:
		return nil, false, fmt.Errorf("column %q is %s in the table but %s in the source, a type change Iceberg does not read, which the table's Iceberg compatibility forbids", name, dt, st)
	case CanWiden(dt, st) && o.Preview:
		return nil, false, fmt.Errorf("%s", PreviewRefusal(name, dt, st))
	case CanWiden(dt, st):
		return nil, false, fmt.Errorf("column %q is %s in the table but %s in the source: widening it needs type widening on the table "+
			"(set delta.enableTypeWidening=true, e.g. alter --set-property delta.enableTypeWidening=true, or widen it with alter --change-type %s=%s), or cast the source column to %s", name, dt, st, name, st, dt)
	}
	return nil, false, fmt.Errorf("column %q is %s in the table but %s in the source", name, dt, st)
}

// PreviewRefusal is the refusal of a type change from dt to st of column
// name on a table with the preview of type widening, saying what to do.
func PreviewRefusal(name string, dt, st Type) string {
	return fmt.Sprintf("column %q is %s in the table but %s in the source: the table has the preview of type widening (typeWidening-preview), "+
		"on which this engine changes no type (a change there must record the table version for preview readers); "+
		"widen the column with Spark (ALTER TABLE ... ALTER COLUMN %s TYPE %s), or cast the source column to %s", name, dt, st, name, st, dt)
}

// AddFields is dt with every struct field st holds and dt lacks appended,
// nullable and without metadata, at the end of its struct: within structs,
// array elements and map keys and values, as Spark's MERGE schema
// evolution adds nested fields (SchemaMergingUtils.mergeSchemas). Types
// are not changed (WidenType widens); dt is not modified. It reports
// whether a field was added.
func AddFields(dt, st Type) (Type, bool) {
	t, changed, _ := mergeType(dt, st, "", MergeOptions{addOnly: true}) // never fails
	return t, changed
}
