package structarrow

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Collect reads every batch of rr into a []T (T a struct or a pointer to
// one). Columns match fields by name or tag, case-insensitively as Delta
// names match; extra columns are ignored; a missing column is an error
// unless its field can hold null (a pointer, slice or map). Conversions
// must be lossless: a long column fills an int8 field only where each
// value fits, and an error names the column, the field and the row
// otherwise. Timestamps of any unit and zone, and dates, fill time.Time
// (in UTC; a timestamp_ntz or date as its wall clock in UTC). Collect does
// not release rr.
func Collect[T any](rr array.RecordReader) ([]T, error) {
	out, err := collect(rr, reflect.TypeFor[[]T]())
	if err != nil {
		return nil, err
	}
	return out.Interface().([]T), nil
}

// CollectSlice is Collect for a slice type known only at run time
// (sliceType a []S or []*S): it returns a value of that type.
func CollectSlice(rr array.RecordReader, sliceType reflect.Type) (any, error) {
	if sliceType == nil || sliceType.Kind() != reflect.Slice {
		return nil, errs.New(errs.InvalidArgument, "", "%v is not a slice of structs", sliceType)
	}
	out, err := collect(rr, sliceType)
	if err != nil {
		return nil, err
	}
	return out.Interface(), nil
}

func collect(rr array.RecordReader, sliceType reflect.Type) (reflect.Value, error) {
	n, err := compile(sliceType.Elem())
	if err != nil {
		return reflect.Value{}, err
	}
	out := reflect.MakeSlice(sliceType, 0, 0)
	var (
		decs   []fieldDecoder
		bound  *arrow.Schema
		offset int
	)
	for rr.Next() {
		rec := rr.RecordBatch()
		if bound == nil || !rec.Schema().Equal(bound) {
			if decs, err = n.structDecoders(rec.Schema().Fields(), ""); err != nil {
				return reflect.Value{}, err
			}
			bound = rec.Schema()
		}
		cols := rec.Columns()
		rows := int(rec.NumRows())
		start := out.Len()
		out = reflect.AppendSlice(out, reflect.MakeSlice(sliceType, rows, rows))
		for i := range rows {
			dst := out.Index(start + i)
			if n.ptr {
				p := reflect.New(n.base)
				dst.Set(p)
				dst = p.Elem()
			}
			for _, d := range decs {
				if err := d.dec(cols[d.col], i, dst.FieldByIndex(d.index)); err != nil {
					if ce, ok := err.(cellError); ok {
						return reflect.Value{}, errs.New(errs.InvalidArgument, "", "column %q (%s) row %d: %s", ce.col, ce.path, offset+i, ce.msg)
					}
					return reflect.Value{}, err
				}
			}
		}
		offset += rows
	}
	if err := rr.Err(); err != nil {
		return reflect.Value{}, err
	}
	return out, nil
}

// decoder sets dst (settable, of the node's Go type) from arr's value i.
type decoder func(arr arrow.Array, i int, dst reflect.Value) error

// fieldDecoder fills the field at index from the column (or struct child)
// at col.
type fieldDecoder struct {
	col   int
	index []int
	dec   decoder
}

// cellError is a value that cannot be read into its field; Collect adds
// the row.
type cellError struct{ col, path, msg string }

func (e cellError) Error() string { return e.col + ": " + e.msg }

// structDecoders matches n's fields to Arrow fields by name (exactly, else
// case-insensitively) and compiles a decoder for each.
func (n *node) structDecoders(cols []arrow.Field, prefix string) ([]fieldDecoder, error) {
	var out []fieldDecoder
	for _, f := range n.fields {
		k := matchColumn(cols, f.name)
		if k < 0 {
			if f.node.nullable {
				continue
			}
			return nil, errs.New(errs.SchemaMismatch, "", "no column %q for %s; add the column, or make the field a pointer (*%s) to leave it nil", prefix+f.name, f.node.path, f.node.typ)
		}
		dec, err := f.node.decoder(cols[k].Type, prefix+cols[k].Name)
		if err != nil {
			return nil, err
		}
		out = append(out, fieldDecoder{col: k, index: f.index, dec: dec})
	}
	return out, nil
}

func matchColumn(cols []arrow.Field, name string) int {
	k := -1
	for i, c := range cols {
		if c.Name == name {
			return i
		}
		if k < 0 && strings.EqualFold(c.Name, name) {
			k = i
		}
	}
	return k
}

// decoder compiles the reading of an Arrow column of type dt into n's Go
// type: nulls first, then the value.
func (n *node) decoder(dt arrow.DataType, col string) (decoder, error) {
	value, err := n.valueDecoder(dt, col)
	if err != nil {
		return nil, err
	}
	return func(arr arrow.Array, i int, dst reflect.Value) error {
		if arr.IsNull(i) {
			if !n.nullable {
				return n.cell(col, "is null, and %s cannot hold null; make the field a pointer (*%s)", n.typ, n.typ)
			}
			dst.SetZero()
			return nil
		}
		if n.ptr {
			p := reflect.New(n.base)
			if err := value(arr, i, p.Elem()); err != nil {
				return err
			}
			dst.Set(p)
			return nil
		}
		return value(arr, i, dst)
	}, nil
}

func (n *node) cell(col, format string, args ...any) error {
	return cellError{col: col, path: n.path, msg: fmt.Sprintf(format, args...)}
}

func (n *node) mismatch(dt arrow.DataType, col string) error {
	return errs.New(errs.SchemaMismatch, "", "column %q is %s, which does not convert to %s without loss", col, dt, n)
}

// valueDecoder sets dst (of n.base) from a non-null value.
func (n *node) valueDecoder(dt arrow.DataType, col string) (decoder, error) {
	switch n.kind {
	case kBool:
		if dt.ID() == arrow.BOOL {
			return func(arr arrow.Array, i int, dst reflect.Value) error {
				dst.SetBool(arr.(*array.Boolean).Value(i))
				return nil
			}, nil
		}
	case kInt, kUint:
		return n.intDecoder(dt, col)
	case kFloat:
		return n.floatDecoder(dt, col)
	case kString:
		switch dt.ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
			return func(arr arrow.Array, i int, dst reflect.Value) error {
				dst.SetString(arr.(interface{ Value(int) string }).Value(i))
				return nil
			}, nil
		}
	case kBytes, kByteArray:
		switch dt.ID() {
		case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
			return n.bytesDecoder(col), nil
		}
	case kTime:
		if d := timeDecoder(dt); d != nil {
			return d, nil
		}
	case kDecimal, kRat:
		if d, ok := dt.(*arrow.Decimal128Type); ok {
			return n.decimalDecoder(d, col), nil
		}
	case kStruct:
		if st, ok := dt.(*arrow.StructType); ok {
			return n.structDecoder(st, col)
		}
	case kList:
		if lt, ok := dt.(arrow.ListLikeType); ok && dt.ID() != arrow.MAP {
			return n.listDecoder(lt, col)
		}
	case kMap:
		if mt, ok := dt.(*arrow.MapType); ok {
			return n.mapDecoder(mt, col)
		}
	}
	return nil, n.mismatch(dt, col)
}

// intDecoder reads any integer column into an integer field, refusing a
// value the field cannot hold.
func (n *node) intDecoder(dt arrow.DataType, col string) (decoder, error) {
	var get func(arr arrow.Array, i int) (v int64, big uint64, isBig bool)
	switch dt.ID() {
	case arrow.INT8:
		get = func(a arrow.Array, i int) (int64, uint64, bool) { return int64(a.(*array.Int8).Value(i)), 0, false }
	case arrow.INT16:
		get = func(a arrow.Array, i int) (int64, uint64, bool) { return int64(a.(*array.Int16).Value(i)), 0, false }
	case arrow.INT32:
		get = func(a arrow.Array, i int) (int64, uint64, bool) { return int64(a.(*array.Int32).Value(i)), 0, false }
	case arrow.INT64:
		get = func(a arrow.Array, i int) (int64, uint64, bool) { return a.(*array.Int64).Value(i), 0, false }
	case arrow.UINT8:
		get = func(a arrow.Array, i int) (int64, uint64, bool) { return int64(a.(*array.Uint8).Value(i)), 0, false }
	case arrow.UINT16:
		get = func(a arrow.Array, i int) (int64, uint64, bool) { return int64(a.(*array.Uint16).Value(i)), 0, false }
	case arrow.UINT32:
		get = func(a arrow.Array, i int) (int64, uint64, bool) { return int64(a.(*array.Uint32).Value(i)), 0, false }
	case arrow.UINT64:
		get = func(a arrow.Array, i int) (int64, uint64, bool) {
			u := a.(*array.Uint64).Value(i)
			return int64(u), u, u > math.MaxInt64
		}
	default:
		return nil, n.mismatch(dt, col)
	}
	return func(arr arrow.Array, i int, dst reflect.Value) error {
		v, u, isBig := get(arr, i)
		switch {
		case n.kind == kInt && !isBig && !dst.OverflowInt(v):
			dst.SetInt(v)
		case n.kind == kUint && isBig && !dst.OverflowUint(u):
			dst.SetUint(u)
		case n.kind == kUint && !isBig && v >= 0 && !dst.OverflowUint(uint64(v)):
			dst.SetUint(uint64(v))
		default:
			shown := fmt.Sprint(v)
			if isBig {
				shown = fmt.Sprint(u)
			}
			return n.cell(col, "value %s does not fit %s", shown, n.base)
		}
		return nil
	}, nil
}

// floatDecoder reads a float column; a double into a float32 field only
// where the value is exactly representable.
func (n *node) floatDecoder(dt arrow.DataType, col string) (decoder, error) {
	switch dt.ID() {
	case arrow.FLOAT32:
		return func(arr arrow.Array, i int, dst reflect.Value) error {
			dst.SetFloat(float64(arr.(*array.Float32).Value(i)))
			return nil
		}, nil
	case arrow.FLOAT64:
		return func(arr arrow.Array, i int, dst reflect.Value) error {
			v := arr.(*array.Float64).Value(i)
			if n.base.Kind() == reflect.Float32 && float64(float32(v)) != v && !math.IsNaN(v) {
				return n.cell(col, "value %v does not fit float32 exactly", v)
			}
			dst.SetFloat(v)
			return nil
		}, nil
	}
	return nil, n.mismatch(dt, col)
}

// bytesDecoder copies a binary value out of the batch (which is freed
// after the read) into a []byte or a [N]byte of the same length.
func (n *node) bytesDecoder(col string) decoder {
	return func(arr arrow.Array, i int, dst reflect.Value) error {
		b := arr.(interface{ Value(int) []byte }).Value(i)
		if n.kind == kBytes {
			dst.SetBytes(append([]byte{}, b...))
			return nil
		}
		if len(b) != n.base.Len() {
			return n.cell(col, "value has %d bytes, and %s holds exactly %d", len(b), n.base, n.base.Len())
		}
		reflect.Copy(dst, reflect.ValueOf(b))
		return nil
	}
}

// timeDecoder reads a timestamp of any unit and zone, or a date, as a UTC
// time.Time; nil for other types.
func timeDecoder(dt arrow.DataType) decoder {
	switch t := dt.(type) {
	case *arrow.TimestampType:
		return func(arr arrow.Array, i int, dst reflect.Value) error {
			dst.Set(reflect.ValueOf(arr.(*array.Timestamp).Value(i).ToTime(t.Unit).UTC()))
			return nil
		}
	case *arrow.Date32Type:
		return func(arr arrow.Array, i int, dst reflect.Value) error {
			dst.Set(reflect.ValueOf(arr.(*array.Date32).Value(i).ToTime().UTC()))
			return nil
		}
	case *arrow.Date64Type:
		return func(arr arrow.Array, i int, dst reflect.Value) error {
			dst.Set(reflect.ValueOf(arr.(*array.Date64).Value(i).ToTime().UTC()))
			return nil
		}
	}
	return nil
}

// decimalDecoder reads a decimal column into a decimal128.Num at the
// field's scale (refusing a value that would lose digits) or a big.Rat.
func (n *node) decimalDecoder(d *arrow.Decimal128Type, col string) decoder {
	return func(arr arrow.Array, i int, dst reflect.Value) error {
		v := arr.(*array.Decimal128).Value(i)
		if n.kind == kRat {
			r := new(big.Rat).SetFrac(v.BigInt(), pow10(d.Scale))
			dst.Set(reflect.ValueOf(r).Elem())
			return nil
		}
		out, err := v.Rescale(d.Scale, n.scale)
		if err != nil || !out.FitsInPrecision(n.prec) {
			return n.cell(col, "value %s does not fit decimal(%d,%d)", v.ToString(d.Scale), n.prec, n.scale)
		}
		dst.Set(reflect.ValueOf(out))
		return nil
	}
}

func (n *node) structDecoder(st *arrow.StructType, col string) (decoder, error) {
	decs, err := n.structDecoders(st.Fields(), col+".")
	if err != nil {
		return nil, err
	}
	return func(arr arrow.Array, i int, dst reflect.Value) error {
		sa := arr.(*array.Struct)
		for _, d := range decs {
			if err := d.dec(sa.Field(d.col), i, dst.FieldByIndex(d.index)); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func (n *node) listDecoder(lt arrow.ListLikeType, col string) (decoder, error) {
	elem, err := n.elem.decoder(lt.Elem(), col+"[]")
	if err != nil {
		return nil, err
	}
	return func(arr arrow.Array, i int, dst reflect.Value) error {
		la := arr.(array.ListLike)
		start, end := la.ValueOffsets(i)
		values := la.ListValues()
		s := reflect.MakeSlice(n.base, int(end-start), int(end-start))
		for j := range int(end - start) {
			if err := elem(values, int(start)+j, s.Index(j)); err != nil {
				return err
			}
		}
		dst.Set(s)
		return nil
	}, nil
}

func (n *node) mapDecoder(mt *arrow.MapType, col string) (decoder, error) {
	key, err := n.key.decoder(mt.KeyType(), col+"[key]")
	if err != nil {
		return nil, err
	}
	value, err := n.elem.decoder(mt.ItemType(), col+"[value]")
	if err != nil {
		return nil, err
	}
	return func(arr arrow.Array, i int, dst reflect.Value) error {
		ma := arr.(*array.Map)
		start, end := ma.ValueOffsets(i)
		m := reflect.MakeMapWithSize(n.base, int(end-start))
		k := reflect.New(n.base.Key()).Elem()
		v := reflect.New(n.base.Elem()).Elem()
		for j := int(start); j < int(end); j++ {
			k.SetZero()
			v.SetZero()
			if err := key(ma.Keys(), j, k); err != nil {
				return err
			}
			if err := value(ma.Items(), j, v); err != nil {
				return err
			}
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
		return nil
	}, nil
}
