package scan

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/schema"
)

// fieldID is the Parquet field id pqarrow attached to a file field.
func fieldID(f *arrow.Field) (int64, bool) {
	v, ok := f.Metadata.GetValue(schema.ParquetFieldIDKey)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(v, 10, 64)
	return id, err == nil && id >= 0
}

// MatchField finds which of a file's fields (one struct level) stores the
// Delta field f, or -1 when the file predates the column. Readers of data
// files that are not scans (the upsert's key probe) use it to find the
// same column a scan reads.
//
// Under id mapping the Parquet field id decides, falling back to the
// physical name only in a file without any field ids at this level. Under
// name mapping the physical name must match exactly. Without mapping the
// name matches exactly, then case-insensitively, as Spark resolves columns.
func MatchField(cands []*arrow.Field, f *schema.Field, mode schema.Mode) int {
	if mode == schema.MappingID {
		if id, ok := f.ColumnID(); ok {
			anyID := false
			for i, c := range cands {
				cid, has := fieldID(c)
				anyID = anyID || has
				if has && cid == id {
					return i
				}
			}
			if anyID {
				return -1
			}
		}
	}
	name := f.PhysicalName(mode)
	for i, c := range cands {
		if c.Name == name {
			return i
		}
	}
	if mode == schema.MappingNone {
		for i, c := range cands {
			if strings.EqualFold(c.Name, name) {
				return i
			}
		}
	}
	return -1
}

func manifestFields(fs []pqarrow.SchemaField) []*arrow.Field {
	out := make([]*arrow.Field, len(fs))
	for i := range fs {
		out[i] = fs[i].Field
	}
	return out
}

func structFields(st *arrow.StructType) []*arrow.Field {
	out := make([]*arrow.Field, st.NumFields())
	for i := range out {
		f := st.Field(i)
		out[i] = &f
	}
	return out
}

// leaves appends the Parquet leaf columns needed to read Delta type t from
// file field sf: for a struct only the children the table still has (and,
// when none is left, one leaf so the struct's own nulls are known); for
// lists, maps and primitives every leaf below.
func leaves(dst []int, sf *pqarrow.SchemaField, t schema.Type, mode schema.Mode) []int {
	if sf.IsLeaf() {
		return append(dst, sf.ColIndex)
	}
	if st, ok := t.(*schema.Struct); ok && sf.Field.Type.ID() == arrow.STRUCT {
		cands := manifestFields(sf.Children)
		n := len(dst)
		for _, f := range st.Fields {
			if j := MatchField(cands, f, mode); j >= 0 {
				dst = leaves(dst, &sf.Children[j], f.Type, mode)
			}
		}
		if len(dst) == n && len(sf.Children) > 0 {
			dst = firstLeaf(dst, &sf.Children[0])
		}
		return dst
	}
	for i := range sf.Children {
		dst = leaves(dst, &sf.Children[i], nil, mode)
	}
	return dst
}

func firstLeaf(dst []int, sf *pqarrow.SchemaField) []int {
	for !sf.IsLeaf() && len(sf.Children) > 0 {
		sf = &sf.Children[0]
	}
	if sf.IsLeaf() {
		dst = append(dst, sf.ColIndex)
	}
	return dst
}
