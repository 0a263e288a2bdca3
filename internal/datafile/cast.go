package datafile

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// leaf casts a primitive array to dt, or records why it cannot.
func (c *conformer) leaf(src arrow.Array, dt arrow.DataType, path string) arrow.Array {
	st := src.DataType()
	if arrow.TypeEqual(st, dt) {
		src.Retain()
		return src
	}
	fail := func() arrow.Array {
		c.problem("column %q: cannot cast %s to %s", path, st, dt)
		return nil
	}
	switch dt := dt.(type) {
	case *arrow.TimestampType:
		switch s := st.(type) {
		case *arrow.TimestampType:
			return c.timestamps(src, s, dt, path)
		case *arrow.Date32Type:
			return c.mapInt64(src, dt, path, func(v int64) (int64, bool) { return mulChecked(v, 86400*1e6) },
				func(i int) int64 { return int64(src.(*array.Date32).Value(i)) })
		case *arrow.Date64Type:
			return c.mapInt64(src, dt, path, func(v int64) (int64, bool) { return mulChecked(v, 1000) },
				func(i int) int64 { return int64(src.(*array.Date64).Value(i)) })
		}
		return fail()
	case *arrow.Date32Type:
		if d, ok := src.(*array.Date64); ok {
			return c.mapInt64(src, dt, path, func(v int64) (int64, bool) {
				days := floorDiv(v, 86400*1000)
				return days, days >= math.MinInt32 && days <= math.MaxInt32
			}, func(i int) int64 { return int64(d.Value(i)) })
		}
		return fail()
	case *arrow.StringType:
		if get, ok := bytesOf(src, true); ok {
			return c.rebuildBytes(src, get, array.NewStringBuilder(c.mem))
		}
		return fail()
	case *arrow.BinaryType:
		if get, ok := bytesOf(src, false); ok {
			return c.rebuildBytes(src, get, array.NewBinaryBuilder(c.mem, arrow.BinaryTypes.Binary))
		}
		return fail()
	case *arrow.BooleanType:
		return fail()
	}
	if !numericCast(st, dt) {
		return fail()
	}
	out, err := compute.CastArray(c.ctx, src, compute.SafeCastOptions(dt))
	if err != nil {
		c.problem("column %q: cannot cast %s to %s without losing values: %v", path, st, dt, err)
		return nil
	}
	return out
}

// numericCast says which number casts are allowed, subject to every value
// fitting: integers to integers, floats and decimals; float to double;
// decimals to decimals.
func numericCast(st, dt arrow.DataType) bool {
	switch {
	case arrow.IsInteger(st.ID()):
		return arrow.IsInteger(dt.ID()) || arrow.IsFloating(dt.ID()) || dt.ID() == arrow.DECIMAL128
	case st.ID() == arrow.FLOAT16:
		return arrow.IsFloating(dt.ID())
	case st.ID() == arrow.FLOAT32:
		return dt.ID() == arrow.FLOAT64
	case arrow.IsDecimal(st.ID()):
		return dt.ID() == arrow.DECIMAL128
	}
	return false
}

// bytesOf returns an accessor for the values of any string kind (text) or
// any binary kind (!text; string kinds too, as their bytes).
func bytesOf(src arrow.Array, text bool) (func(int) []byte, bool) {
	switch a := src.(type) {
	case *array.String:
		return func(i int) []byte { return []byte(a.Value(i)) }, true
	case *array.LargeString:
		return func(i int) []byte { return []byte(a.Value(i)) }, true
	case *array.StringView:
		return func(i int) []byte { return []byte(a.Value(i)) }, true
	}
	if text {
		return nil, false
	}
	switch a := src.(type) {
	case *array.Binary:
		return a.Value, true
	case *array.LargeBinary:
		return a.Value, true
	case *array.BinaryView:
		return a.Value, true
	case *array.FixedSizeBinary:
		return a.Value, true
	}
	return nil, false
}

type bytesBuilder interface {
	array.Builder
	Append([]byte)
}

type stringBuilder struct{ *array.StringBuilder }

func (b stringBuilder) Append(v []byte) { b.BinaryBuilder.Append(v) }

func (c *conformer) rebuildBytes(src arrow.Array, get func(int) []byte, b array.Builder) arrow.Array {
	defer b.Release()
	var bb bytesBuilder
	switch x := b.(type) {
	case *array.StringBuilder:
		bb = stringBuilder{x}
	case *array.BinaryBuilder:
		bb = x
	}
	bb.Reserve(src.Len())
	for i := 0; i < src.Len(); i++ {
		if src.IsNull(i) {
			bb.AppendNull()
			continue
		}
		bb.Append(get(i))
	}
	return bb.NewArray()
}

// timestamps converts units to microseconds (flooring finer units) and,
// from a zoned source to a timestamp_ntz column, instants to wall-clock
// time in the source's zone.
func (c *conformer) timestamps(src arrow.Array, s, dt *arrow.TimestampType, path string) arrow.Array {
	a := src.(*array.Timestamp)
	toWall := s.TimeZone != "" && dt.TimeZone == "" && !isUTC(s.TimeZone)
	if s.Unit == arrow.Microsecond && !toWall {
		// Same instants (or wall clocks) in microseconds: only the type's
		// zone differs, so the values are shared.
		d := src.Data()
		return owned(array.NewData(dt, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset()))
	}
	var toMicros func(int64) (int64, bool)
	switch s.Unit {
	case arrow.Second:
		toMicros = func(v int64) (int64, bool) { return mulChecked(v, 1e6) }
	case arrow.Millisecond:
		toMicros = func(v int64) (int64, bool) { return mulChecked(v, 1e3) }
	case arrow.Microsecond:
		toMicros = func(v int64) (int64, bool) { return v, true }
	case arrow.Nanosecond:
		toMicros = func(v int64) (int64, bool) { return floorDiv(v, 1e3), true }
	}
	conv := toMicros
	if toWall {
		loc, err := zone(s.TimeZone)
		if err != nil {
			c.problem("column %q: time zone %q of the batch is unknown: %v", path, s.TimeZone, err)
			return nil
		}
		conv = func(v int64) (int64, bool) {
			us, ok := toMicros(v)
			if !ok {
				return 0, false
			}
			_, off := time.UnixMicro(us).In(loc).Zone()
			return us + int64(off)*1e6, true
		}
	}
	return c.mapInt64(src, dt, path, conv, func(i int) int64 { return int64(a.Value(i)) })
}

// mapInt64 builds a 64-bit (or, for date32, 32-bit) array of dt from src's
// values through f, keeping nulls; a value f refuses is a problem.
func (c *conformer) mapInt64(src arrow.Array, dt arrow.DataType, path string, f func(int64) (int64, bool), get func(int) int64) arrow.Array {
	n := src.Len()
	width := 8
	if dt.ID() == arrow.DATE32 {
		width = 4
	}
	vals := memory.NewResizableBuffer(c.mem)
	vals.Resize(n * width)
	b := vals.Bytes()
	for i := 0; i < n; i++ {
		var v int64
		if src.IsValid(i) {
			var ok bool
			if v, ok = f(get(i)); !ok {
				vals.Release()
				c.problem("column %q: value %s at row %d is out of range for %s", path, src.ValueStr(i), i, dt)
				return nil
			}
		}
		if width == 8 {
			arrow.Int64Traits.CastFromBytes(b)[i] = v
		} else {
			arrow.Int32Traits.CastFromBytes(b)[i] = int32(v)
		}
	}
	var validity *memory.Buffer
	if src.NullN() > 0 {
		validity = shiftBitmap(c.mem, src.Data().Buffers()[0], src.Data().Offset(), n)
		defer validity.Release()
	}
	defer vals.Release()
	return owned(array.NewData(dt, n, []*memory.Buffer{validity, vals}, nil, src.NullN(), 0))
}

// shiftBitmap copies n bits from offset into a new bitmap at offset 0.
func shiftBitmap(mem memory.Allocator, bm *memory.Buffer, offset, n int) *memory.Buffer {
	out := memory.NewResizableBuffer(mem)
	out.Resize(int(bitutil.BytesForBits(int64(n))))
	if bm == nil {
		bitutil.SetBitsTo(out.Bytes(), 0, int64(n), true)
		return out
	}
	bitutil.CopyBitmap(bm.Bytes(), offset, n, out.Bytes(), 0)
	return out
}

func mulChecked(v, m int64) (int64, bool) {
	if v > math.MaxInt64/m || v < math.MinInt64/m {
		return 0, false
	}
	return v * m, true
}

func floorDiv(v, d int64) int64 {
	q := v / d
	if v%d != 0 && v < 0 {
		q--
	}
	return q
}

func isUTC(z string) bool {
	switch strings.ToUpper(z) {
	case "UTC", "Z", "+00:00", "-00:00", "+0000", "ETC/UTC", "GMT", "ETC/GMT", "UCT", "ZULU":
		return true
	}
	return false
}

// zone reads a time zone name or a fixed offset such as "+05:30".
func zone(z string) (*time.Location, error) {
	if len(z) >= 3 && (z[0] == '+' || z[0] == '-') {
		s := strings.ReplaceAll(z[1:], ":", "")
		if len(s) == 2 {
			s += "00"
		}
		if len(s) == 4 {
			h, err1 := strconv.Atoi(s[:2])
			m, err2 := strconv.Atoi(s[2:])
			if err1 == nil && err2 == nil && h < 24 && m < 60 {
				off := (h*60 + m) * 60
				if z[0] == '-' {
					off = -off
				}
				return time.FixedZone(z, off), nil
			}
		}
	}
	return time.LoadLocation(z)
}
