package structarrow

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// DefaultBatchRows is the batch size NewReader uses when given none.
const DefaultBatchRows = 8192

// NewReader returns a reader over rows (a []S or []*S of a struct S) that
// builds one record batch of at most batchRows rows at a time, so that a
// large slice is never converted whole. A value that cannot be stored (a
// nil row, a uint64 beyond the long range, a decimal beyond its precision)
// ends the stream with an error from Err naming the field and the row.
func NewReader[T any](rows []T, alloc memory.Allocator, batchRows int) (array.RecordReader, error) {
	return newReader(reflect.ValueOf(rows), alloc, batchRows)
}

// NewSliceReader is NewReader for a slice whose type is known only at run
// time (a []S or []*S in an any), as a handler of any value has it.
func NewSliceReader(rows any, alloc memory.Allocator, batchRows int) (array.RecordReader, error) {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice {
		return nil, errs.New(errs.InvalidArgument, "", "%T is not a slice of structs", rows)
	}
	return newReader(v, alloc, batchRows)
}

func newReader(rows reflect.Value, alloc memory.Allocator, batchRows int) (array.RecordReader, error) {
	n, err := compile(rows.Type().Elem())
	if err != nil {
		return nil, err
	}
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	if batchRows <= 0 {
		batchRows = DefaultBatchRows
	}
	r := &reader{node: n, schema: schemaOf(n), rows: rows, alloc: alloc, batch: batchRows}
	r.refs.Store(1)
	return r, nil
}

type reader struct {
	refs   atomic.Int64
	node   *node
	schema *arrow.Schema
	rows   reflect.Value
	alloc  memory.Allocator
	batch  int
	off    int
	cur    arrow.RecordBatch
	err    error
}

func (r *reader) Retain() { r.refs.Add(1) }

func (r *reader) Release() {
	if r.refs.Add(-1) == 0 {
		r.drop()
	}
}

func (r *reader) drop() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *reader) Schema() *arrow.Schema          { return r.schema }
func (r *reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch under its deprecated name.
func (r *reader) Record() arrow.RecordBatch { return r.cur }
func (r *reader) Err() error                { return r.err }

func (r *reader) Next() bool {
	r.drop()
	if r.err != nil || r.off >= r.rows.Len() {
		return false
	}
	end := min(r.off+r.batch, r.rows.Len())
	rec, err := r.build(r.off, end)
	if err != nil {
		r.err = err
		return false
	}
	r.cur, r.off = rec, end
	return true
}

// build converts rows[lo:hi] into one batch, with builders that live only
// for this batch.
func (r *reader) build(lo, hi int) (arrow.RecordBatch, error) {
	rb := array.NewRecordBuilder(r.alloc, r.schema)
	defer rb.Release()
	rb.Reserve(hi - lo)
	for i := lo; i < hi; i++ {
		v := r.rows.Index(i)
		if r.node.ptr {
			if v.IsNil() {
				return nil, errs.New(errs.InvalidArgument, "", "%s: row %d is nil; a row must be a value", r.node.typ, i)
			}
			v = v.Elem()
		}
		for j, f := range r.node.fields {
			if err := f.node.append(rb.Field(j), v.FieldByIndex(f.index)); err != nil {
				if ve, ok := err.(valueError); ok {
					return nil, errs.New(errs.InvalidArgument, "", "%s: row %d: %s", ve.path, i, ve.msg)
				}
				return nil, err
			}
		}
	}
	return rb.NewRecordBatch(), nil
}

// valueError is a value that cannot be stored, at a Go path; the reader
// adds the row.
type valueError struct{ path, msg string }

func (e valueError) Error() string { return e.path + ": " + e.msg }

func (n *node) fail(format string, args ...any) error {
	return valueError{path: n.path, msg: fmt.Sprintf(format, args...)}
}

// append adds v (of n's Go type) to b.
func (n *node) append(b array.Builder, v reflect.Value) error {
	if n.ptr {
		if v.IsNil() {
			b.AppendNull()
			return nil
		}
		v = v.Elem()
	}
	switch n.kind {
	case kBool:
		b.(*array.BooleanBuilder).Append(v.Bool())
	case kInt:
		appendInt(b, v.Int())
	case kUint:
		u := v.Uint()
		if u > math.MaxInt64 {
			return n.fail("%d is beyond the long column's range (at most %d)", u, int64(math.MaxInt64))
		}
		appendInt(b, int64(u))
	case kFloat:
		if fb, ok := b.(*array.Float32Builder); ok {
			fb.Append(float32(v.Float()))
		} else {
			b.(*array.Float64Builder).Append(v.Float())
		}
	case kString:
		b.(*array.StringBuilder).Append(v.String())
	case kBytes:
		if v.IsNil() {
			b.AppendNull()
		} else {
			b.(*array.BinaryBuilder).Append(v.Bytes())
		}
	case kByteArray:
		buf := make([]byte, v.Len())
		reflect.Copy(reflect.ValueOf(buf), v)
		b.(*array.BinaryBuilder).Append(buf)
	case kTime:
		return n.appendTime(b, v.Interface().(time.Time))
	case kDecimal:
		d := v.Interface().(decimal128.Num)
		if !d.FitsInPrecision(n.prec) {
			return n.fail("%s does not fit decimal(%d,%d)", d.ToString(n.scale), n.prec, n.scale)
		}
		b.(*array.Decimal128Builder).Append(d)
	case kRat:
		var r *big.Rat
		if v.CanAddr() {
			r = v.Addr().Interface().(*big.Rat)
		} else { // a map's value
			c := v.Interface().(big.Rat)
			r = &c
		}
		d, err := n.ratDecimal(r)
		if err != nil {
			return err
		}
		b.(*array.Decimal128Builder).Append(d)
	case kStruct:
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for j, f := range n.fields {
			if err := f.node.append(sb.FieldBuilder(j), v.FieldByIndex(f.index)); err != nil {
				return err
			}
		}
	case kList:
		if v.IsNil() {
			b.AppendNull()
			return nil
		}
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		for i := range v.Len() {
			if err := n.elem.append(lb.ValueBuilder(), v.Index(i)); err != nil {
				return err
			}
		}
	case kMap:
		return n.appendMap(b.(*array.MapBuilder), v)
	}
	return nil
}

func appendInt(b array.Builder, x int64) {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(x))
	case *array.Int16Builder:
		b.Append(int16(x))
	case *array.Int32Builder:
		b.Append(int32(x))
	case *array.Int64Builder:
		b.Append(x)
	}
}

func (n *node) appendTime(b array.Builder, t time.Time) error {
	if y := t.Year(); y < -290000 || y > 290000 {
		return n.fail("%s is beyond the range of a timestamp in microseconds", t)
	}
	switch n.time {
	case timeDate:
		y, m, d := t.Date()
		days := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
		b.(*array.Date32Builder).Append(arrow.Date32(days))
	case timeNTZ:
		wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(wall.UnixMicro()))
	default:
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(t.UnixMicro()))
	}
	return nil
}

// ratDecimal converts r to n's decimal exactly, or says why it cannot.
func (n *node) ratDecimal(r *big.Rat) (decimal128.Num, error) {
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(n.scale)))
	if !scaled.IsInt() {
		return decimal128.Num{}, n.fail("%s has more than %d decimal places; round it first", r.RatString(), n.scale)
	}
	i := scaled.Num()
	if new(big.Int).Abs(i).Cmp(pow10(n.prec)) >= 0 {
		return decimal128.Num{}, n.fail("%s does not fit decimal(%d,%d)", r.FloatString(int(n.scale)), n.prec, n.scale)
	}
	return decimal128.FromBigInt(i), nil
}

func pow10(e int32) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil) }

// appendMap adds a map's entries sorted by key, so that the same map makes
// the same bytes on every run.
func (n *node) appendMap(mb *array.MapBuilder, v reflect.Value) error {
	if v.IsNil() {
		mb.AppendNull()
		return nil
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, n.key.compare)
	mb.Append(true)
	for _, k := range keys {
		if err := n.key.append(mb.KeyBuilder(), k); err != nil {
			return err
		}
		if err := n.elem.append(mb.ItemBuilder(), v.MapIndex(k)); err != nil {
			return err
		}
	}
	return nil
}

// compare orders two values of an ordered key kind.
func (n *node) compare(a, b reflect.Value) int {
	switch n.kind {
	case kBool:
		return cmp.Compare(boolInt(a.Bool()), boolInt(b.Bool()))
	case kInt:
		return cmp.Compare(a.Int(), b.Int())
	case kUint:
		return cmp.Compare(a.Uint(), b.Uint())
	case kFloat:
		return cmp.Compare(a.Float(), b.Float())
	case kString:
		return cmp.Compare(a.String(), b.String())
	case kTime:
		return a.Interface().(time.Time).Compare(b.Interface().(time.Time))
	case kDecimal:
		return a.Interface().(decimal128.Num).Cmp(b.Interface().(decimal128.Num))
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
