package scan

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
)

// conformer turns arrays as a file stores them into the table's logical
// Arrow types: renaming struct fields from physical to logical names,
// filling fields the file lacks with nulls and casting leaf types.
type conformer struct {
	ctx  context.Context // carries the compute allocator
	mem  memory.Allocator
	mode schema.Mode
}

// conform returns src as Arrow type dt of Delta type t (t may be nil below
// a variant). The result is a new reference the caller releases.
func (c *conformer) conform(src arrow.Array, t schema.Type, dt arrow.DataType) (arrow.Array, error) {
	if d, ok := src.(*array.Dictionary); ok {
		plain, err := decodeDictionary(c.ctx, d)
		if err != nil {
			return nil, err
		}
		defer plain.Release()
		return c.conform(plain, t, dt)
	}
	switch dt := dt.(type) {
	case *arrow.StructType:
		s, ok := src.(*array.Struct)
		if !ok {
			return nil, mismatch(src, dt)
		}
		var st *schema.Struct
		if t != nil {
			st, _ = t.(*schema.Struct)
		}
		return c.conformStruct(s, st, dt)
	case *arrow.MapType:
		var mt *schema.Map
		if t != nil {
			mt, _ = t.(*schema.Map)
		}
		return c.conformMap(src, mt, dt)
	case *arrow.ListType:
		var et schema.Type
		if at, ok := t.(*schema.Array); ok {
			et = at.Element
		}
		return c.conformList(src, et, dt)
	}
	return castLeaf(c.ctx, c.mem, src, dt)
}

func mismatch(src arrow.Array, dt arrow.DataType) error {
	return fmt.Errorf("file stores %s where the table has %s", src.DataType(), dt)
}

// validity returns src's validity bitmap re-based to offset 0, as a new
// reference (nil when src has no nulls).
func (c *conformer) validity(src arrow.ArrayData) *memory.Buffer {
	bufs := src.Buffers()
	if src.NullN() == 0 || len(bufs) == 0 || bufs[0] == nil {
		return nil
	}
	if src.Offset() == 0 {
		bufs[0].Retain()
		return bufs[0]
	}
	out := memory.NewResizableBuffer(c.mem)
	out.Resize(int(bitutil.BytesForBits(int64(src.Len()))))
	bitutil.CopyBitmap(bufs[0].Bytes(), src.Offset(), src.Len(), out.Bytes(), 0)
	return out
}

// conformStruct matches the table's fields among the file's by physical
// name or field id (by name for a variant's value/metadata pair).
func (c *conformer) conformStruct(src *array.Struct, st *schema.Struct, dt *arrow.StructType) (arrow.Array, error) {
	n := src.Len()
	cands := structFields(src.DataType().(*arrow.StructType))
	children := make([]arrow.ArrayData, dt.NumFields())
	defer func() {
		for _, d := range children {
			if d != nil {
				d.Release()
			}
		}
	}()
	for i, tf := range dt.Fields() {
		var df *schema.Field
		if st != nil && i < len(st.Fields) {
			df = st.Fields[i]
		} else {
			df = &schema.Field{Name: tf.Name}
		}
		j := MatchField(cands, df, c.mode)
		var out arrow.Array
		if j < 0 {
			out = array.MakeArrayOfNull(c.mem, tf.Type, n)
		} else {
			var err error
			if out, err = c.conform(src.Field(j), df.Type, tf.Type); err != nil {
				return nil, fmt.Errorf("field %q: %w", df.Name, err)
			}
		}
		children[i] = out.Data()
		children[i].Retain()
		out.Release()
	}
	valid := c.validity(src.Data())
	if valid != nil {
		defer valid.Release()
	}
	data := array.NewData(dt, n, []*memory.Buffer{valid}, children, src.NullN(), 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// listParts returns the validity, int32 offsets and values of a list-like
// array, with the offset of src (offsets index into the whole values).
func (c *conformer) listParts(src arrow.Array) (valid, offsets *memory.Buffer, values arrow.Array, err error) {
	d := src.Data()
	switch l := src.(type) {
	case *array.List:
		valid, offsets = retainBuffer(d.Buffers()[0]), retainBuffer(d.Buffers()[1])
		values = l.ListValues()
		values.Retain()
	case *array.Map:
		valid, offsets = retainBuffer(d.Buffers()[0]), retainBuffer(d.Buffers()[1])
		values = l.ListValues()
		values.Retain()
	case *array.LargeList:
		valid = retainBuffer(d.Buffers()[0])
		wide := l.Offsets() // len+1 entries from src's offset
		narrow := memory.NewResizableBuffer(c.mem)
		narrow.Resize(arrow.Int32Traits.BytesRequired(d.Offset() + len(wide)))
		o32 := arrow.Int32Traits.CastFromBytes(narrow.Bytes())
		for i, v := range wide {
			if v > 1<<31-1 {
				narrow.Release()
				return nil, nil, nil, fmt.Errorf("list values exceed 2^31 elements")
			}
			o32[d.Offset()+i] = int32(v)
		}
		offsets = narrow
		values = l.ListValues()
		values.Retain()
	default:
		return nil, nil, nil, fmt.Errorf("file stores %s where the table has a list or map", src.DataType())
	}
	if valid != nil && src.NullN() == 0 {
		valid.Release()
		valid = nil
	}
	return valid, offsets, values, nil
}

func (c *conformer) conformList(src arrow.Array, et schema.Type, dt *arrow.ListType) (arrow.Array, error) {
	valid, offsets, values, err := c.listParts(src)
	if err != nil {
		return nil, err
	}
	defer releaseBuffers(valid, offsets)
	defer values.Release()
	elem, err := c.conform(values, et, dt.Elem())
	if err != nil {
		return nil, fmt.Errorf("list element: %w", err)
	}
	defer elem.Release()
	data := array.NewData(dt, src.Len(), []*memory.Buffer{valid, offsets}, []arrow.ArrayData{elem.Data()}, src.NullN(), src.Data().Offset())
	defer data.Release()
	return array.MakeFromData(data), nil
}

// conformMap reads a map, or a legacy list of key/value structs, by
// position of key and value.
func (c *conformer) conformMap(src arrow.Array, mt *schema.Map, dt *arrow.MapType) (arrow.Array, error) {
	valid, offsets, values, err := c.listParts(src)
	if err != nil {
		return nil, err
	}
	defer releaseBuffers(valid, offsets)
	defer values.Release()
	entries, ok := values.(*array.Struct)
	if !ok || entries.NumField() != 2 {
		return nil, mismatch(src, dt)
	}
	var kt, vt schema.Type
	if mt != nil {
		kt, vt = mt.Key, mt.Value
	}
	keys, err := c.conform(entries.Field(0), kt, dt.KeyType())
	if err != nil {
		return nil, fmt.Errorf("map key: %w", err)
	}
	defer keys.Release()
	items, err := c.conform(entries.Field(1), vt, dt.ItemType())
	if err != nil {
		return nil, fmt.Errorf("map value: %w", err)
	}
	defer items.Release()
	ed := array.NewData(dt.Elem(), entries.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), items.Data()}, 0, 0)
	defer ed.Release()
	data := array.NewData(dt, src.Len(), []*memory.Buffer{valid, offsets}, []arrow.ArrayData{ed}, src.NullN(), src.Data().Offset())
	defer data.Release()
	return array.MakeFromData(data), nil
}

func retainBuffer(b *memory.Buffer) *memory.Buffer {
	if b != nil {
		b.Retain()
	}
	return b
}

func releaseBuffers(bufs ...*memory.Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
}
