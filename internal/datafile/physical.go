package datafile

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/schema"
)

// Data files hold the non-partition columns under their physical names,
// with Parquet field ids under column mapping, and without void columns:
// like Spark, the writer drops columns that can only be null, and readers
// fill a column a file lacks with nulls.

// fileField is the Arrow field of a data column in the file.
func fileField(f *schema.Field, mode schema.Mode) (arrow.Field, error) {
	af, err := schema.ArrowField(f, schema.ArrowOptions{Physical: true, Mode: mode})
	if err != nil {
		return arrow.Field{}, err
	}
	af.Type = fileType(f.Type, af.Type, mode)
	return af, nil
}

// fileType rebuilds nested struct types without their void fields, and
// with physical names below the top level.
func fileType(t schema.Type, dt arrow.DataType, mode schema.Mode) arrow.DataType {
	switch t := t.(type) {
	case *schema.Struct:
		var fields []arrow.Field
		for _, f := range t.Fields {
			if isVoid(f.Type) {
				continue
			}
			af, err := fileField(f, mode)
			if err != nil {
				return dt // unreachable: the parent type mapped
			}
			fields = append(fields, af)
		}
		return arrow.StructOf(fields...)
	case *schema.Array:
		lt := dt.(*arrow.ListType)
		ef := lt.ElemField()
		ef.Type = fileType(t.Element, ef.Type, mode)
		return arrow.ListOfField(ef)
	case *schema.Map:
		mt := dt.(*arrow.MapType)
		m := arrow.MapOf(fileType(t.Key, mt.KeyType(), mode), fileType(t.Value, mt.ItemType(), mode))
		m.SetItemNullable(t.ValueContainsNull)
		return m
	}
	return dt
}

// retype shares the buffers of a logical array under its file type: names,
// zones and nested field names change, void struct fields are dropped,
// values are not copied. The result must be released.
func retype(d arrow.ArrayData, t schema.Type, dt arrow.DataType) arrow.ArrayData {
	var children []arrow.ArrayData
	switch t := t.(type) {
	case *schema.Struct:
		st := dt.(*arrow.StructType)
		k := 0
		for i, f := range t.Fields {
			if isVoid(f.Type) {
				continue
			}
			c := retype(d.Children()[i], f.Type, st.Field(k).Type)
			defer c.Release()
			children = append(children, c)
			k++
		}
	case *schema.Array:
		c := retype(d.Children()[0], t.Element, dt.(*arrow.ListType).Elem())
		defer c.Release()
		children = []arrow.ArrayData{c}
	case *schema.Map:
		mt := dt.(*arrow.MapType)
		entries := d.Children()[0]
		k := retype(entries.Children()[0], t.Key, mt.KeyType())
		defer k.Release()
		v := retype(entries.Children()[1], t.Value, mt.ItemType())
		defer v.Release()
		e := array.NewData(mt.Elem(), entries.Len(), entries.Buffers(), []arrow.ArrayData{k, v}, entries.NullN(), entries.Offset())
		defer e.Release()
		children = []arrow.ArrayData{e}
	default:
		children = d.Children()
	}
	return array.NewData(dt, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
}
