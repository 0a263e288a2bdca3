package keyset

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// domain is how the values of a key column are compared and encoded.
type domain uint8

const (
	// domWord: signed integers, dates, timestamps and booleans as int64,
	// floats as their canonical bit pattern; 8 bytes.
	domWord domain = iota
	// domDecimal: a decimal128 at the column's scale; 16 bytes.
	domDecimal
	// domBytes: strings and binaries; variable length.
	domBytes
)

// spec is one key column of a set: its table type and domain.
type spec struct {
	dt  arrow.DataType
	dom domain
}

func specOf(dt arrow.DataType) (spec, error) {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIMESTAMP, arrow.BOOL,
		arrow.FLOAT32, arrow.FLOAT64:
		return spec{dt: dt, dom: domWord}, nil
	case arrow.DECIMAL128:
		return spec{dt: dt, dom: domDecimal}, nil
	case arrow.STRING, arrow.BINARY:
		return spec{dt: dt, dom: domBytes}, nil
	}
	return spec{}, fmt.Errorf("a key column of type %s cannot be compared (keys are integers, floats, booleans, decimals, dates, timestamps, strings or binaries)", dt)
}

// wordCol reads an 8-byte key value.
type wordCol interface{ word(i int) uint64 }

// pairCol reads a 16-byte key value.
type pairCol interface{ pair(i int) (lo, hi uint64) }

// bytesCol reads a variable-length key value; the slice aliases the array.
type bytesCol interface{ raw(i int) []byte }

// bound is one key column of a batch, read in its set column's domain.
type bound struct {
	nulls func(i int) bool // nil when the column has no null
	w     wordCol
	p     pairCol
	b     bytesCol
}

type ints interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | arrow.Date32 | arrow.Timestamp
}

type intCol[T ints] []T

func (c intCol[T]) word(i int) uint64 { return uint64(int64(c[i])) }

type boolCol struct{ a *array.Boolean }

func (c boolCol) word(i int) uint64 {
	if c.a.Value(i) {
		return 1
	}
	return 0
}

// Floats are keyed by a canonical bit pattern, as delta-rs MERGE's
// equality join compares them: every NaN is one key (NaN matches NaN), and
// -0.0 is 0.0.
const (
	nan32 = 0x7fc00000
	nan64 = 0x7ff8000000000000
)

func canon32(x float32) uint64 {
	switch {
	case x != x:
		return nan32
	case x == 0:
		return 0
	}
	return uint64(math.Float32bits(x))
}

func canon64(x float64) uint64 {
	switch {
	case x != x:
		return nan64
	case x == 0:
		return 0
	}
	return math.Float64bits(x)
}

type f32Col []float32

func (c f32Col) word(i int) uint64 { return canon32(c[i]) }

type f64Col []float64

func (c f64Col) word(i int) uint64 { return canon64(c[i]) }

// f32as64Col reads a float column of a file under a double key column.
type f32as64Col []float32

func (c f32as64Col) word(i int) uint64 { return canon64(float64(c[i])) }

type decCol struct{ a *array.Decimal128 }

func (c decCol) pair(i int) (uint64, uint64) {
	v := c.a.Value(i)
	return v.LowBits(), uint64(v.HighBits())
}

type strCol struct{ a *array.String }

func (c strCol) raw(i int) []byte { return unsafeBytes(c.a.Value(i)) }

type largeStrCol struct{ a *array.LargeString }

func (c largeStrCol) raw(i int) []byte { return unsafeBytes(c.a.Value(i)) }

type viewStrCol struct{ a *array.StringView }

func (c viewStrCol) raw(i int) []byte { return unsafeBytes(c.a.Value(i)) }

type binCol struct {
	v interface{ Value(int) []byte }
}

func (c binCol) raw(i int) []byte { return c.v.Value(i) }

func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// dict columns read a dictionary-encoded array through its indices.
type dictWord struct {
	d *array.Dictionary
	w wordCol
}

func (c dictWord) word(i int) uint64 { return c.w.word(c.d.GetValueIndex(i)) }

type dictPair struct {
	d *array.Dictionary
	p pairCol
}

func (c dictPair) pair(i int) (uint64, uint64) { return c.p.pair(c.d.GetValueIndex(i)) }

type dictBytes struct {
	d *array.Dictionary
	b bytesCol
}

func (c dictBytes) raw(i int) []byte { return c.b.raw(c.d.GetValueIndex(i)) }

// bind reads arr as values of key column sp. An array of another type is
// accepted when every value means the same key: any signed integer (or
// unsigned one of at most 32 bits) for an integer column, float for
// double, any string or binary kind for a string or binary column, and
// dictionary encodings of those. Timestamps must have the column's unit
// and decimals its scale.
func bind(sp spec, arr arrow.Array) (bound, error) {
	var b bound
	if d, ok := arr.(*array.Dictionary); ok {
		inner, err := bind(sp, d.Dictionary())
		if err != nil {
			return b, err
		}
		switch {
		case inner.w != nil:
			b.w = dictWord{d, inner.w}
		case inner.p != nil:
			b.p = dictPair{d, inner.p}
		default:
			b.b = dictBytes{d, inner.b}
		}
		if d.NullN() > 0 || inner.nulls != nil {
			vals := d.Dictionary()
			b.nulls = func(i int) bool { return d.IsNull(i) || vals.IsNull(d.GetValueIndex(i)) }
		}
		return b, nil
	}
	if arr.NullN() > 0 {
		b.nulls = arr.IsNull
	}
	bad := func() (bound, error) {
		return bound{}, fmt.Errorf("an array of type %s cannot be read as key column type %s", arr.DataType(), sp.dt)
	}
	switch sp.dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		switch a := arr.(type) {
		case *array.Int8:
			b.w = intCol[int8](a.Int8Values())
		case *array.Int16:
			b.w = intCol[int16](a.Int16Values())
		case *array.Int32:
			b.w = intCol[int32](a.Int32Values())
		case *array.Int64:
			b.w = intCol[int64](a.Int64Values())
		case *array.Uint8:
			b.w = intCol[uint8](a.Uint8Values())
		case *array.Uint16:
			b.w = intCol[uint16](a.Uint16Values())
		case *array.Uint32:
			b.w = intCol[uint32](a.Uint32Values())
		default:
			return bad()
		}
	case arrow.DATE32:
		a, ok := arr.(*array.Date32)
		if !ok {
			return bad()
		}
		b.w = intCol[arrow.Date32](a.Date32Values())
	case arrow.TIMESTAMP:
		a, ok := arr.(*array.Timestamp)
		if !ok || a.DataType().(*arrow.TimestampType).Unit != sp.dt.(*arrow.TimestampType).Unit {
			return bad()
		}
		b.w = intCol[arrow.Timestamp](a.TimestampValues())
	case arrow.BOOL:
		a, ok := arr.(*array.Boolean)
		if !ok {
			return bad()
		}
		b.w = boolCol{a}
	case arrow.FLOAT32:
		a, ok := arr.(*array.Float32)
		if !ok {
			return bad()
		}
		b.w = f32Col(a.Float32Values())
	case arrow.FLOAT64:
		switch a := arr.(type) {
		case *array.Float64:
			b.w = f64Col(a.Float64Values())
		case *array.Float32:
			b.w = f32as64Col(a.Float32Values())
		default:
			return bad()
		}
	case arrow.DECIMAL128:
		a, ok := arr.(*array.Decimal128)
		if !ok || a.DataType().(*arrow.Decimal128Type).Scale != sp.dt.(*arrow.Decimal128Type).Scale {
			return bad()
		}
		b.p = decCol{a}
	case arrow.STRING, arrow.BINARY:
		switch a := arr.(type) {
		case *array.String:
			b.b = strCol{a}
		case *array.LargeString:
			b.b = largeStrCol{a}
		case *array.StringView:
			b.b = viewStrCol{a}
		case *array.Binary:
			b.b = binCol{a}
		case *array.LargeBinary:
			b.b = binCol{a}
		case *array.BinaryView:
			b.b = binCol{a}
		case *array.FixedSizeBinary:
			b.b = binCol{a}
		default:
			return bad()
		}
	default:
		return bad()
	}
	return b, nil
}
