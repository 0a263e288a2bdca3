package datafile

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// Conform casts a source batch to the table schema's logical Arrow form, the
// batch Writer.Write takes.
//
// Columns are matched by name (exactly, else case-insensitively, as Spark
// resolves them), at every struct level, and put in table order. Values are
// cast without loss: integers to any integer type, float or decimal that
// holds every value; float to double; every string kind (large, view,
// dictionary-encoded) to string and every binary kind to binary; decimals
// rescaled when no digit is lost; timestamps of any unit to microseconds
// (nanoseconds floored), where a timestamp without a zone is taken as UTC
// for a timestamp column and a zoned timestamp becomes its wall-clock time
// in its zone for a timestamp_ntz column; dates to timestamps at midnight
// UTC; lists of any kind to lists. A missing nullable column is filled with
// nulls.
//
// A source column the table lacks, a missing non-nullable column, a null in
// a non-nullable column, and a cast that is impossible or would lose a value
// are reported together in one ErrSchemaMismatch naming the columns.
func Conform(rec arrow.RecordBatch, target *schema.Struct, mem memory.Allocator) (_ arrow.RecordBatch, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errs.Recovered(errs.Internal, "", "conform", r)
		}
	}()
	if target == nil {
		return nil, errs.New(errs.InvalidArgument, "", "Conform needs a target schema")
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	logical, err := schema.ToArrow(target, schema.ArrowOptions{})
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "table schema")
	}
	c := &conformer{ctx: compute.WithAllocator(context.Background(), mem), mem: mem}
	n := int(rec.NumRows())
	srcFields := rec.Schema().Fields()
	match, extra, dup := matchNames(srcFields, target.Fields)
	if len(extra) > 0 {
		c.problem("columns not in the table: %s (the table has %s)", quoteNames(extra), target)
	}
	for _, d := range dup {
		c.problem("column %q matches more than one column of the batch", d)
	}
	cols := make([]arrow.Array, len(target.Fields))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, f := range target.Fields {
		dt := logical.Field(i).Type
		j := match[i]
		if j < 0 {
			if !f.Nullable {
				c.problem("column %q is not nullable and missing from the batch", f.Name)
				continue
			}
			cols[i] = array.MakeArrayOfNull(mem, dt, n)
			continue
		}
		cols[i] = c.conform(rec.Column(j), f.Type, dt, f.Name)
	}
	if len(c.problems) == 0 {
		var nulls []nullCount
		for i, f := range target.Fields {
			nulls = nullViolations(nulls, cols[i], f.Type, f.Nullable, f.Name, nil)
		}
		for _, v := range nulls {
			c.problem("non-nullable column %q has %d nulls", v.path, v.n)
		}
	}
	if len(c.problems) > 0 {
		return nil, errs.New(errs.SchemaMismatch, "", "the batch does not fit the table schema: %s", strings.Join(c.problems, "; "))
	}
	return array.NewRecordBatch(logical, cols, int64(n)), nil
}

// ConformArray is Conform for one column: src cast to the Delta type t,
// whose Arrow type is dt, by the same rules (nested structs, lists and maps
// included), or an ErrSchemaMismatch naming the column path.
func ConformArray(src arrow.Array, t schema.Type, dt arrow.DataType, path string, mem memory.Allocator) (_ arrow.Array, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errs.Recovered(errs.Internal, "", "conform", r)
		}
	}()
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	c := &conformer{ctx: compute.WithAllocator(context.Background(), mem), mem: mem}
	out := c.conform(src, t, dt, path)
	if len(c.problems) > 0 {
		if out != nil {
			out.Release()
		}
		return nil, errs.New(errs.SchemaMismatch, "", "%s", strings.Join(c.problems, "; "))
	}
	return out, nil
}

// matchNames pairs each target field with a source field index (-1 when
// missing): an exact name wins, else a case-insensitive one. It returns the
// source names that match nothing and the target names matched twice.
func matchNames(src []arrow.Field, target []*schema.Field) (match []int, extra, dup []string) {
	match = make([]int, len(target))
	used := make([]bool, len(src))
	for i, f := range target {
		match[i] = -1
		for j, s := range src {
			if s.Name == f.Name && !used[j] {
				match[i], used[j] = j, true
				break
			}
		}
	}
	for i, f := range target {
		if match[i] >= 0 {
			continue
		}
		for j, s := range src {
			if used[j] || !strings.EqualFold(s.Name, f.Name) {
				continue
			}
			if match[i] >= 0 {
				dup = append(dup, f.Name)
				break
			}
			match[i], used[j] = j, true
		}
	}
	for j, s := range src {
		if !used[j] {
			extra = append(extra, s.Name)
		}
	}
	return match, extra, dup
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// conformer casts arrays and collects what does not fit.
type conformer struct {
	ctx      context.Context
	mem      memory.Allocator
	problems []string
}

func (c *conformer) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// conform casts src to the Delta type t, whose Arrow type is dt; nil after
// recording a problem.
func (c *conformer) conform(src arrow.Array, t schema.Type, dt arrow.DataType, path string) arrow.Array {
	if d, ok := src.(*array.Dictionary); ok {
		plain, err := compute.TakeArray(c.ctx, d.Dictionary(), d.Indices())
		if err != nil {
			c.problem("column %q: cannot decode its dictionary: %v", path, err)
			return nil
		}
		defer plain.Release()
		return c.conform(plain, t, dt, path)
	}
	if src.DataType().ID() == arrow.NULL {
		return array.MakeArrayOfNull(c.mem, dt, src.Len())
	}
	switch t := t.(type) {
	case *schema.Struct:
		return c.structArray(src, t, dt, path)
	case *schema.Array:
		return c.listArray(src, t, dt, path)
	case *schema.Map:
		return c.mapArray(src, t, dt, path)
	case *schema.Primitive:
		switch t.Name {
		case schema.Variant:
			return c.structArray(src, variantStruct, dt, path)
		case schema.Void:
			if src.NullN() != src.Len() {
				c.problem("column %q is void (always null) but the batch has values of type %s", path, src.DataType())
				return nil
			}
			return array.MakeArrayOfNull(c.mem, dt, src.Len())
		}
	}
	return c.leaf(src, dt, path)
}

// variantStruct is how a variant is stored: its two binary parts.
var variantStruct = &schema.Struct{Fields: []*schema.Field{
	{Name: "value", Type: &schema.Primitive{Name: schema.Binary}},
	{Name: "metadata", Type: &schema.Primitive{Name: schema.Binary}},
}}

// structArray matches fields by name and keeps src's validity and offset;
// children are cast whole, so they line up with the parent's offset.
func (c *conformer) structArray(src arrow.Array, t *schema.Struct, dt arrow.DataType, path string) arrow.Array {
	sdt, ok := src.DataType().(*arrow.StructType)
	if !ok {
		c.problem("column %q: cannot cast %s to %s", path, src.DataType(), dt)
		return nil
	}
	tdt := dt.(*arrow.StructType)
	d := src.Data()
	match, extra, dup := matchNames(sdt.Fields(), t.Fields)
	for _, e := range extra {
		c.problem("column %q is not in the table", path+"."+e)
	}
	for _, e := range dup {
		c.problem("column %q matches more than one field of the batch", path+"."+e)
	}
	full := d.Offset() + d.Len()
	children := make([]arrow.ArrayData, len(t.Fields))
	defer func() {
		for _, ch := range children {
			if ch != nil {
				ch.Release()
			}
		}
	}()
	failed := len(extra) > 0 || len(dup) > 0
	for i, f := range t.Fields {
		fdt := tdt.Field(i).Type
		var out arrow.Array
		if match[i] < 0 {
			if !f.Nullable {
				c.problem("column %q is not nullable and missing from the batch", path+"."+f.Name)
				failed = true
				continue
			}
			out = array.MakeArrayOfNull(c.mem, fdt, full)
		} else {
			child := array.MakeFromData(d.Children()[match[i]])
			out = c.conform(child, f.Type, fdt, path+"."+f.Name)
			child.Release()
		}
		if out == nil {
			failed = true
			continue
		}
		children[i] = out.Data()
		children[i].Retain()
		out.Release()
	}
	if failed {
		return nil
	}
	return owned(array.NewData(dt, d.Len(), d.Buffers()[:1], children, d.NullN(), d.Offset()))
}

// listArray casts the elements of any list kind and rebuilds list offsets.
func (c *conformer) listArray(src arrow.Array, t *schema.Array, dt arrow.DataType, path string) arrow.Array {
	ldt := dt.(*arrow.ListType)
	d := src.Data()
	var offsets *memory.Buffer
	var values arrow.ArrayData
	offset := d.Offset()
	switch s := src.(type) {
	case *array.List:
		offsets = d.Buffers()[1]
		offsets.Retain()
		values = d.Children()[0]
	case *array.LargeList:
		offs := []int64{0}
		if d.Len() > 0 {
			offs = s.Offsets()[d.Offset() : d.Offset()+d.Len()+1]
		}
		out := make([]int32, len(offs))
		for i, o := range offs {
			if o > 1<<31-1 {
				c.problem("column %q: a large list holds more than 2^31 elements", path)
				return nil
			}
			out[i] = int32(o)
		}
		offsets = memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(out))
		values = d.Children()[0]
		offset = 0
	case *array.FixedSizeList:
		size := int32(s.DataType().(*arrow.FixedSizeListType).Len())
		out := make([]int32, s.Len()+1)
		for i := range out {
			out[i] = (int32(d.Offset()) + int32(i)) * size
		}
		offsets = memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(out))
		values = d.Children()[0]
		offset = 0
	default:
		c.problem("column %q: cannot cast %s to %s", path, src.DataType(), dt)
		return nil
	}
	defer offsets.Release()
	validity := d.Buffers()[0]
	if offset != d.Offset() && validity != nil {
		validity = shiftBitmap(c.mem, validity, d.Offset(), d.Len())
		defer validity.Release()
	}
	elems := array.MakeFromData(values)
	defer elems.Release()
	ce := c.conform(elems, t.Element, ldt.Elem(), path+".element")
	if ce == nil {
		return nil
	}
	defer ce.Release()
	return owned(array.NewData(dt, d.Len(), []*memory.Buffer{validity, offsets}, []arrow.ArrayData{ce.Data()}, d.NullN(), offset))
}

// mapArray casts keys and values of a map, keeping its offsets.
func (c *conformer) mapArray(src arrow.Array, t *schema.Map, dt arrow.DataType, path string) arrow.Array {
	if _, ok := src.(*array.Map); !ok {
		c.problem("column %q: cannot cast %s to %s", path, src.DataType(), dt)
		return nil
	}
	mdt := dt.(*arrow.MapType)
	d := src.Data()
	entries := d.Children()[0]
	keys := array.MakeFromData(entries.Children()[0])
	defer keys.Release()
	items := array.MakeFromData(entries.Children()[1])
	defer items.Release()
	ck := c.conform(keys, t.Key, mdt.KeyType(), path+".key")
	ci := c.conform(items, t.Value, mdt.ItemType(), path+".value")
	if ck != nil {
		defer ck.Release()
	}
	if ci != nil {
		defer ci.Release()
	}
	if ck == nil || ci == nil {
		return nil
	}
	e := array.NewData(mdt.Elem(), entries.Len(), entries.Buffers()[:1], []arrow.ArrayData{ck.Data(), ci.Data()}, entries.NullN(), entries.Offset())
	defer e.Release()
	return owned(array.NewData(dt, d.Len(), d.Buffers()[:2], []arrow.ArrayData{e}, d.NullN(), d.Offset()))
}

// owned wraps fresh array data in an array that holds the only reference.
func owned(d *array.Data) arrow.Array {
	a := array.MakeFromData(d)
	d.Release()
	return a
}
