package schema

import (
	"fmt"
	"strings"
)

// Merge evolves table to accept source, as schema mode "merge" does: source
// columns the table lacks are appended (nullable), nested struct fields
// likewise, and a table column the source makes nullable becomes nullable.
// Types must agree; a narrower source integer is fine (it is cast up), a
// wider one is not (that would need the typeWidening feature).
// It reports whether anything changed. table is not modified.
func Merge(table, source *Struct) (*Struct, bool, error) {
	out := table.Clone()
	changed, err := mergeInto(out, source, "")
	if err != nil {
		return nil, false, err
	}
	return out, changed, nil
}

func mergeInto(dst, src *Struct, path string) (bool, error) {
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
		if sf.Nullable && !df.Nullable {
			df.Nullable = true
			changed = true
		}
		c, err := mergeType(df, sf.Type, name)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		changed = changed || c
	}
	if len(bad) > 0 {
		return false, fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return changed, nil
}

var intRank = map[string]int{Byte: 1, Short: 2, Integer: 3, Long: 4}

func mergeType(df *Field, st Type, name string) (bool, error) {
	switch dt := df.Type.(type) {
	case *Struct:
		ss, ok := st.(*Struct)
		if !ok {
			return false, fmt.Errorf("column %q is %s in the table but %s in the source", name, dt, st)
		}
		return mergeInto(dt, ss, name+".")
	case *Primitive:
		sp, ok := st.(*Primitive)
		if ok && sp.Name == dt.Name {
			return false, nil
		}
		if ok && intRank[sp.Name] > 0 && intRank[sp.Name] <= intRank[dt.Name] {
			return false, nil
		}
	}
	if df.Type.String() == st.String() {
		return false, nil
	}
	return false, fmt.Errorf("column %q is %s in the table but %s in the source", name, df.Type, st)
}
