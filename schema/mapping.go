package schema

import (
	"maps"

	"github.com/google/uuid"
)

// AssignColumnMapping gives every field (nested ones too) that lacks them a
// column id above maxID and a physical name "col-<uuid>", as Spark does
// when column mapping is turned on; it returns the new highest id, for
// delta.columnMapping.maxColumnId.
func AssignColumnMapping(s *Struct, maxID int64) int64 {
	var walk func(t Type)
	walk = func(t Type) {
		switch t := t.(type) {
		case *Struct:
			for _, f := range t.Fields {
				if f.Metadata == nil {
					f.Metadata = map[string]any{}
				}
				if _, ok := f.ColumnID(); !ok {
					maxID++
					f.Metadata[ColumnIDKey] = maxID
				}
				if p, _ := f.Metadata[PhysicalNameKey].(string); p == "" {
					f.Metadata[PhysicalNameKey] = "col-" + uuid.NewString()
				}
				walk(f.Type)
			}
		case *Array:
			walk(t.Element)
		case *Map:
			walk(t.Key)
			walk(t.Value)
		}
	}
	walk(s)
	return maxID
}

// Clone returns a deep copy of the schema.
func (s *Struct) Clone() *Struct {
	c := &Struct{Fields: make([]*Field, len(s.Fields))}
	for i, f := range s.Fields {
		nf := *f
		nf.Type = cloneType(f.Type)
		nf.Metadata = maps.Clone(f.Metadata)
		c.Fields[i] = &nf
	}
	return c
}

func cloneType(t Type) Type {
	switch t := t.(type) {
	case *Struct:
		return t.Clone()
	case *Array:
		return &Array{Element: cloneType(t.Element), ContainsNull: t.ContainsNull}
	case *Map:
		return &Map{Key: cloneType(t.Key), Value: cloneType(t.Value), ValueContainsNull: t.ValueContainsNull}
	}
	return t // primitives and decimals are never modified in place
}
