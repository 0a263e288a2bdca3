package expr

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Boolean kernels work on whole bitmaps (offset 0, n bits); bits past n in
// the last byte are don't-care.

// newBits allocates a bitmap of n bits, all set to fill.
func (ev *evaluator) newBits(fill bool) *memory.Buffer {
	buf := memory.NewResizableBuffer(ev.mem)
	buf.Resize(int(bitutil.BytesForBits(int64(ev.n))))
	setAll(buf.Bytes(), fill)
	return buf
}

func setAll(b []byte, v bool) {
	c := byte(0)
	if v {
		c = 0xff
	}
	for i := range b {
		b[i] = c
	}
}

// validInto writes where v is not null into dst.
func (ev *evaluator) validInto(dst []byte, v value) {
	if v.arr == nil {
		setAll(dst, v.sc.IsValid())
		return
	}
	d := v.arr.Data()
	if d.DataType().ID() == arrow.NULL {
		setAll(dst, false) // a null array has no bitmap
		return
	}
	if d.NullN() == 0 || d.Buffers()[0] == nil {
		setAll(dst, true)
		return
	}
	bitutil.CopyBitmap(d.Buffers()[0].Bytes(), d.Offset(), ev.n, dst, 0)
}

// boolsInto writes the values of a boolean v into dst (nulls undefined).
func (ev *evaluator) boolsInto(dst []byte, v value) {
	if v.arr == nil {
		b, _ := v.sc.(*scalar.Boolean)
		setAll(dst, b != nil && b.Valid && b.Value)
		return
	}
	d := v.arr.Data()
	bitutil.CopyBitmap(d.Buffers()[1].Bytes(), d.Offset(), ev.n, dst, 0)
}

// truthInto writes where a boolean v IS TRUE into dst.
func (ev *evaluator) truthInto(dst []byte, v value) {
	ev.boolsInto(dst, v)
	valid := ev.newBits(true)
	defer valid.Release()
	ev.validInto(valid.Bytes(), v)
	andInto(dst, valid.Bytes())
}

func andInto(dst, src []byte) {
	for i := range dst {
		dst[i] &= src[i]
	}
}

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

// boolArray wraps bitmaps as a boolean value, taking their references; a
// nil valid means no nulls.
func (ev *evaluator) boolArray(data, valid *memory.Buffer) value {
	nulls := 0
	if valid != nil {
		nulls = ev.n - bitutil.CountSetBits(valid.Bytes(), 0, ev.n)
		if nulls == 0 {
			valid.Release()
			valid = nil
		}
	}
	out := array.NewBoolean(ev.n, data, valid, nulls)
	data.Release()
	if valid != nil {
		valid.Release()
	}
	return value{arr: out}
}

// isNull is x IS [NOT] NULL, read from the validity bitmap (Arrow's
// is_null kernel panics on decimals).
func (ev *evaluator) isNull(x value, not bool) value {
	data := ev.newBits(true)
	ev.validInto(data.Bytes(), x)
	if !not {
		invert(data.Bytes())
	}
	return ev.boolArray(data, nil)
}

// isBool is x IS [NOT] TRUE / FALSE: never null.
func (ev *evaluator) isBool(x value, want, not bool) (value, error) {
	data := ev.newBits(false)
	ev.boolsInto(data.Bytes(), x)
	if !want {
		invert(data.Bytes())
	}
	valid := ev.newBits(true)
	ev.validInto(valid.Bytes(), x)
	andInto(data.Bytes(), valid.Bytes())
	valid.Release()
	if not {
		invert(data.Bytes())
	}
	return ev.boolArray(data, nil), nil
}

// nullSafe turns an equality result into <=>: true when both sides are
// null, false when one is, else the equality.
func (ev *evaluator) nullSafe(eq, l, r value) value {
	out := ev.newBits(false)
	ev.truthInto(out.Bytes(), eq)
	lv, rv := ev.newBits(true), ev.newBits(true)
	ev.validInto(lv.Bytes(), l)
	ev.validInto(rv.Bytes(), r)
	o, a, b := out.Bytes(), lv.Bytes(), rv.Bytes()
	for i := range o {
		o[i] = o[i]&a[i]&b[i] | ^a[i]&^b[i]
	}
	lv.Release()
	rv.Release()
	return ev.boolArray(out, nil)
}

// truthMask is a null-free mask of where m IS TRUE, or with want false,
// where it IS NOT TRUE.
func truthMask(mem memory.Allocator, m *array.Boolean, want bool) *array.Boolean {
	ev := &evaluator{mem: mem, n: m.Len(), loc: time.UTC}
	v, _ := ev.isBool(value{arr: m}, true, !want)
	return v.arr.(*array.Boolean)
}
