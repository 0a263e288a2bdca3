package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// Assign makes the value of an UPDATE SET or INSERT VALUES expression a
// value of column field's type, as Spark's store assignment does.
//
// With strict (a MERGE's error_on_type_mismatch, on by default) it follows
// Spark's ANSI policy: a value of the column's type or NULL as is; any
// number to any number, anything atomic to a string, a date to a
// timestamp and between the two timestamp types, casting at evaluation
// where a value that does not fit (an overflow, a decimal with too many
// digits, NaN to an integer) is an error naming the value, the type and the
// column; a string to a number, date, timestamp or boolean, and any other
// pair, is refused here. Without strict every pair CAST can convert is
// taken and a value that fails to convert becomes NULL, as delta-rs's
// safe_cast and Spark's legacy policy do.
//
// Structs match by field name (case-insensitively): a field of the value
// that the column lacks is an error, a nullable field the value lacks is
// NULL. Arrays and maps assign element by element. NOT NULL is the
// writer's to enforce.
func Assign(b *Bound, field *schema.Field, strict bool) (*Bound, error) {
	if b == nil || field == nil || field.Type == nil {
		return nil, bindErr("nothing to assign")
	}
	from := b.Type()
	col := quoteIdent(field.Name)
	if err := checkAssign(from, field.Type, strict, col); err != nil {
		return nil, errs.New(errs.InvalidArgument, "", "%s", err.Error())
	}
	if sameType(from, field.Type) && sameArrowType(from, field.Type) {
		return b, nil
	}
	return newBound(&assignN{x: b.root, t: field.Type, strict: strict, col: col}, b.rels, b.loc), nil
}

// assignN is a value stored into a column of type t (named col).
type assignN struct {
	x      node
	t      schema.Type
	strict bool
	col    string
}

func (n *assignN) Type() schema.Type { return n.t }

// checkAssign says why a value of type from cannot be stored in a column
// of type to; path names the column (and the field or element within it).
func checkAssign(from, to schema.Type, strict bool, path string) error {
	if sameType(from, to) || isVoid(from) {
		return nil
	}
	switch ft := from.(type) {
	case *schema.Struct:
		tt, ok := to.(*schema.Struct)
		if !ok {
			break
		}
		for _, f := range ft.Fields {
			if tt.Field(f.Name) == nil {
				return fmt.Errorf("column %s has no field %s (fields: %s); the value's struct has it", path, quoteIdent(f.Name), fieldList(tt))
			}
		}
		for _, f := range tt.Fields {
			sf := ft.Field(f.Name)
			if sf == nil {
				if !f.Nullable {
					return fmt.Errorf("the value has no field %s for column %s, which is NOT NULL", quoteIdent(f.Name), path+"."+quoteIdent(f.Name))
				}
				continue
			}
			if err := checkAssign(sf.Type, f.Type, strict, path+"."+quoteIdent(f.Name)); err != nil {
				return err
			}
		}
		return nil
	case *schema.Array:
		if tt, ok := to.(*schema.Array); ok {
			return checkAssign(ft.Element, tt.Element, strict, path+"[]")
		}
	case *schema.Map:
		if tt, ok := to.(*schema.Map); ok {
			if err := checkAssign(ft.Key, tt.Key, strict, path+" key"); err != nil {
				return err
			}
			return checkAssign(ft.Value, tt.Value, strict, path+" value")
		}
	}
	if storeAssignable(from, to) || !strict && canCast(from, to) {
		return nil
	}
	if strict && canCast(from, to) {
		return fmt.Errorf("cannot store a %s value in column %s of type %s with type mismatches refused; CAST the value AS %s, or allow mismatches (error_on_type_mismatch false: values that do not convert become NULL)",
			typeName(from), path, typeName(to), typeName(to))
	}
	return fmt.Errorf("cannot store a %s value in column %s of type %s", typeName(from), path, typeName(to))
}

// storeAssignable is Spark's ANSI store assignment between atomic types.
func storeAssignable(from, to schema.Type) bool {
	switch {
	case isNumeric(from) && isNumeric(to):
		return true
	case isAtomic(from) && isString(to):
		return true
	case isType(from, schema.Date) && isTimestamp(to), isTimestamp(from) && isTimestamp(to):
		return true
	}
	return false
}

func (ev *evaluator) assign(n *assignN) (value, error) {
	return ev.unaryOp(n.x, func(v value) (value, error) {
		arr, err := ev.array(v)
		if err != nil {
			return value{}, err
		}
		defer arr.Release()
		out, err := ev.store(arr, n.x.Type(), n.t, n.strict, n.col)
		return value{arr: out}, err
	})
}

// store converts arr, of Delta type from, to type to (checkAssign passed).
func (ev *evaluator) store(arr arrow.Array, from, to schema.Type, strict bool, col string) (arrow.Array, error) {
	dt, err := arrowType(to)
	if err != nil {
		return nil, err
	}
	if isVoid(from) || arr.NullN() == arr.Len() {
		return array.MakeArrayOfNull(ev.mem, dt, arr.Len()), nil
	}
	if arrow.TypeEqual(arr.DataType(), dt) {
		arr.Retain()
		return arr, nil
	}
	switch tt := to.(type) {
	case *schema.Struct:
		return ev.storeStruct(arr.(*array.Struct), from.(*schema.Struct), tt, dt, strict, col)
	case *schema.Array:
		l := arr.(*array.List)
		return ev.storeNested(l, []arrow.Array{l.ListValues()}, []schema.Type{from.(*schema.Array).Element},
			[]schema.Type{tt.Element}, dt, strict, []string{col + "[]"})
	case *schema.Map:
		m := arr.(*array.Map)
		fm := from.(*schema.Map)
		return ev.storeNested(m, []arrow.Array{m.Keys(), m.Items()}, []schema.Type{fm.Key, fm.Value},
			[]schema.Type{tt.Key, tt.Value}, dt, strict, []string{col + " key", col + " value"})
	}
	sub := newEvaluator(ev.ctx, nil, arr.Len(), ev.loc)
	defer sub.close()
	out, err := sub.cast(value{arr: arr}, from, to)
	if err == nil {
		return out.arr, nil
	}
	// Row by row: the first value that does not convert is named, or
	// becomes NULL when mismatches are allowed.
	res, err := sub.mapRows([]value{{arr: arr}}, to, true, func(v []any) (any, error) {
		x, err := castValue(v[0], from, to, ev.loc)
		if err != nil && !strict {
			return nil, nil
		}
		if err != nil {
			return nil, errs.New(errs.InvalidArgument, "", "column %s: %s", col, errMessage(err))
		}
		return x, nil
	})
	if err != nil {
		return nil, err
	}
	return res.arr, nil
}

// storeStruct builds the column's struct from the value's fields, by name.
func (ev *evaluator) storeStruct(st *array.Struct, from, to *schema.Struct, dt arrow.DataType, strict bool, col string) (arrow.Array, error) {
	n := st.Len()
	var children []arrow.ArrayData
	defer func() {
		for _, c := range children {
			c.Release()
		}
	}()
	fields := dt.(*arrow.StructType).Fields()
	for i, f := range to.Fields {
		var child arrow.Array
		var err error
		if sf := from.Field(f.Name); sf != nil {
			j := fieldIndex(st.DataType().(*arrow.StructType).Fields(), sf.Name)
			// Values under a null struct are not stored: they must not fail.
			in := withParentNulls(ev.mem, st, st.Field(j))
			child, err = ev.store(in, sf.Type, f.Type, strict, col+"."+quoteIdent(f.Name))
			in.Release()
		} else {
			child = array.MakeArrayOfNull(ev.mem, fields[i].Type, n)
		}
		if err != nil {
			return nil, err
		}
		children = append(children, child.Data())
		child.Data().Retain()
		child.Release()
	}
	valid := ev.copyValidity(st)
	data := array.NewData(dt, n, []*memory.Buffer{valid}, children, st.NullN(), 0)
	if valid != nil {
		valid.Release()
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}

// storeNested rebuilds a list or map around its converted children: only
// the elements the rows reference, so a slice converts its own elements.
func (ev *evaluator) storeNested(arr arrow.Array, kids []arrow.Array, from, to []schema.Type, dt arrow.DataType, strict bool, paths []string) (arrow.Array, error) {
	ll := arr.(array.ListLike)
	n := arr.Len()
	start, end := int64(0), int64(0)
	if n > 0 {
		start, _ = ll.ValueOffsets(0)
		_, end = ll.ValueOffsets(n - 1)
	}
	conv := make([]arrow.Array, len(kids))
	defer releaseArrays(conv)
	for i, k := range kids {
		part := array.NewSlice(k, start, end)
		var err error
		conv[i], err = ev.store(part, from[i], to[i], strict, paths[i])
		part.Release()
		if err != nil {
			return nil, err
		}
	}
	ob := array.NewInt32Builder(ev.mem)
	defer ob.Release()
	ob.Append(0)
	for i := 0; i < n; i++ {
		_, e := ll.ValueOffsets(i)
		ob.Append(int32(e - start))
	}
	rebased := ob.NewArray()
	defer rebased.Release()
	child := conv[0].Data()
	if m, ok := dt.(*arrow.MapType); ok {
		// A map's child is the struct of its keys and values.
		entries := array.NewData(m.Elem(), conv[0].Len(), []*memory.Buffer{nil}, []arrow.ArrayData{conv[0].Data(), conv[1].Data()}, 0, 0)
		defer entries.Release()
		child = entries
	}
	valid := ev.copyValidity(arr)
	out := array.NewData(dt, n, []*memory.Buffer{valid, rebased.Data().Buffers()[1]}, []arrow.ArrayData{child}, arr.NullN(), 0)
	if valid != nil {
		valid.Release()
	}
	defer out.Release()
	return array.MakeFromData(out), nil
}

// copyValidity copies a's validity bitmap to offset 0; nil when a has no
// nulls.
func (ev *evaluator) copyValidity(a arrow.Array) *memory.Buffer {
	d := a.Data()
	if a.NullN() == 0 || d.Buffers()[0] == nil {
		return nil
	}
	buf := memory.NewResizableBuffer(ev.mem)
	buf.Resize(int(bitutil.BytesForBits(int64(a.Len()))))
	bitutil.CopyBitmap(d.Buffers()[0].Bytes(), d.Offset(), a.Len(), buf.Bytes(), 0)
	return buf
}

// releaseArrays releases every array of as that is set.
func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}
