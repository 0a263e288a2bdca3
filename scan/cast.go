package scan

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// castLeaf converts a primitive array to the table's Arrow type dt. Same
// types are shared, not copied; layouts that only differ by name (binary
// and string, a timestamp's zone) are re-typed without copying; timestamp
// units are converted here (INT96 and nanoseconds floor to microseconds);
// everything else (narrower integers, floats, decimal widths and scales,
// large strings) goes through Arrow's safe cast, so a value that does not
// fit is an error rather than a wrong number.
func castLeaf(ctx context.Context, mem memory.Allocator, src arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	st := src.DataType()
	if arrow.TypeEqual(st, dt) {
		src.Retain()
		return src, nil
	}
	if d, ok := src.(*array.Dictionary); ok {
		plain, err := decodeDictionary(ctx, d)
		if err != nil {
			return nil, err
		}
		defer plain.Release()
		return castLeaf(ctx, mem, plain, dt)
	}
	switch dt := dt.(type) {
	case *arrow.TimestampType:
		switch st := st.(type) {
		case *arrow.TimestampType:
			return convertTimestamp(mem, src, st.Unit, dt)
		case *arrow.Date32Type:
			return convertTimestamp(mem, src, -1, dt)
		}
	case *arrow.StringType:
		if st.ID() == arrow.BINARY {
			return retype(src, dt), nil
		}
	case *arrow.BinaryType:
		if st.ID() == arrow.STRING {
			return retype(src, dt), nil
		}
	}
	out, err := compute.CastArray(ctx, src, compute.SafeCastOptions(dt))
	if err != nil {
		return nil, fmt.Errorf("file stores %s, which cannot be read as %s: %w", st, dt, err)
	}
	return out, nil
}

// retype shares src's buffers under another type of the same layout.
func retype(src arrow.Array, dt arrow.DataType) arrow.Array {
	d := src.Data()
	data := array.NewData(dt, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	defer data.Release()
	return array.MakeFromData(data)
}

func decodeDictionary(ctx context.Context, d *array.Dictionary) (arrow.Array, error) {
	out, err := compute.TakeArray(ctx, d.Dictionary(), d.Indices())
	if err != nil {
		return nil, fmt.Errorf("decoding dictionary-encoded %s: %w", d.DataType(), err)
	}
	return out, nil
}

// convertTimestamp rescales 64-bit timestamps of unit from (or 32-bit days
// when from is -1) to microseconds of type dt. Division floors, so an
// instant before 1970 keeps the microsecond it falls in.
func convertTimestamp(mem memory.Allocator, src arrow.Array, from arrow.TimeUnit, dt *arrow.TimestampType) (arrow.Array, error) {
	d := src.Data()
	if from == dt.Unit {
		return retype(src, dt), nil
	}
	n, off := d.Len(), d.Offset()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(arrow.Int64Traits.BytesRequired(off + n))
	defer buf.Release()
	out := arrow.Int64Traits.CastFromBytes(buf.Bytes())
	if from < 0 {
		days := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())
		for i := off; i < off+n; i++ {
			out[i] = int64(days[i]) * 86_400_000_000
		}
	} else {
		in := arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())
		mul, div := scale(from)
		for i := off; i < off+n; i++ {
			v := in[i]
			if div > 1 {
				q := v / div
				if v%div < 0 {
					q--
				}
				out[i] = q
			} else {
				out[i] = v * mul
			}
		}
	}
	data := array.NewData(dt, n, []*memory.Buffer{d.Buffers()[0], buf}, nil, d.NullN(), off)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// scale is how to turn a value of unit u into microseconds: ×mul or ÷div.
func scale(u arrow.TimeUnit) (mul, div int64) {
	switch u {
	case arrow.Second:
		return 1_000_000, 1
	case arrow.Millisecond:
		return 1_000, 1
	case arrow.Nanosecond:
		return 1, 1_000
	}
	return 1, 1
}
