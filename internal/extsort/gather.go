package extsort

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gatherFlat copies the rows refs names out of srcs (one array per source
// batch; refs index them) into one new array, in refs' order, in a single
// pass: no per-source pieces, no concatenation, no per-row builder calls.
// It handles the flat layouts the sorted tables are made of (fixed-width
// values, booleans, strings and binary with 32-bit offsets); ok is false
// for any other type, which the caller gathers with arrow's kernels.
func gatherFlat(mem memory.Allocator, srcs []arrow.Array, refs []ref) (_ arrow.Array, ok bool) {
	var dt arrow.DataType
	for _, r := range refs {
		dt = srcs[r.b].DataType()
		break
	}
	if dt == nil {
		return nil, false
	}
	n := len(refs)
	var values []*memory.Buffer
	switch dt.ID() {
	case arrow.INT8, arrow.UINT8, arrow.INT16, arrow.UINT16, arrow.INT32, arrow.UINT32, arrow.INT64, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32,
		arrow.TIME64, arrow.DURATION, arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.FIXED_SIZE_BINARY:
		w := dt.(arrow.FixedWidthDataType).BitWidth()
		if w%8 != 0 {
			return nil, false
		}
		values = []*memory.Buffer{gatherFixed(mem, srcs, refs, w/8)}
	case arrow.BOOL:
		buf := newBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		out := buf.Bytes()
		clear(out)
		for i, r := range refs {
			d := srcs[r.b].Data()
			if bitutil.BitIsSet(bufBytes(d.Buffers()[1]), d.Offset()+int(r.r)) {
				bitutil.SetBit(out, i)
			}
		}
		values = []*memory.Buffer{buf}
	case arrow.STRING, arrow.BINARY:
		offs, data, fits := gatherVarBinary(mem, srcs, refs)
		if !fits {
			return nil, false
		}
		values = []*memory.Buffer{offs, data}
	default:
		return nil, false
	}
	validity, nulls := gatherValidity(mem, srcs, refs)
	buffers := append([]*memory.Buffer{validity}, values...)
	data := array.NewData(dt, n, buffers, nil, nulls, 0)
	for _, b := range buffers {
		if b != nil {
			b.Release()
		}
	}
	defer data.Release()
	return array.MakeFromData(data), true
}

// bufBytes is b's bytes; an empty array may have no buffer.
func bufBytes(b *memory.Buffer) []byte {
	if b == nil {
		return nil
	}
	return b.Bytes()
}

func newBuffer(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	return b
}

// gatherValidity returns the validity bitmap of the gathered rows, nil
// when none is null.
func gatherValidity(mem memory.Allocator, srcs []arrow.Array, refs []ref) (*memory.Buffer, int) {
	anyNull := false
	for _, a := range srcs {
		anyNull = anyNull || (a != nil && a.NullN() > 0)
	}
	if !anyNull {
		return nil, 0
	}
	buf := newBuffer(mem, int(bitutil.BytesForBits(int64(len(refs)))))
	out := buf.Bytes()
	clear(out)
	nulls := 0
	for i, r := range refs {
		if srcs[r.b].IsValid(int(r.r)) {
			bitutil.SetBit(out, i)
		} else {
			nulls++
		}
	}
	return buf, nulls
}

// gatherFixed copies values of w bytes each.
func gatherFixed(mem memory.Allocator, srcs []arrow.Array, refs []ref, w int) *memory.Buffer {
	buf := newBuffer(mem, len(refs)*w)
	out := buf.Bytes()
	from := make([][]byte, len(srcs))
	for b, a := range srcs {
		if a != nil {
			d := a.Data()
			from[b] = bufBytes(d.Buffers()[1])[d.Offset()*w:]
		}
	}
	if w == 8 {
		// The common case (longs, doubles, timestamps) without a copy call
		// per row.
		o := arrow.Uint64Traits.CastFromBytes(out)
		typed := make([][]uint64, len(from))
		for b, f := range from {
			typed[b] = arrow.Uint64Traits.CastFromBytes(f)
		}
		for i, r := range refs {
			o[i] = typed[r.b][r.r]
		}
		return buf
	}
	for i, r := range refs {
		copy(out[i*w:(i+1)*w], from[r.b][int(r.r)*w:])
	}
	return buf
}

// gatherVarBinary copies strings or binary values with 32-bit offsets;
// fits is false when the gathered bytes pass what such offsets address.
func gatherVarBinary(mem memory.Allocator, srcs []arrow.Array, refs []ref) (offs, data *memory.Buffer, fits bool) {
	offsets := make([][]int32, len(srcs))
	bytes := make([][]byte, len(srcs))
	for b, a := range srcs {
		if a == nil {
			continue
		}
		d := a.Data()
		offsets[b] = arrow.Int32Traits.CastFromBytes(bufBytes(d.Buffers()[1]))[d.Offset():]
		bytes[b] = bufBytes(d.Buffers()[2])
	}
	total := 0
	for _, r := range refs {
		o := offsets[r.b]
		total += int(o[r.r+1] - o[r.r])
	}
	if total > math.MaxInt32 {
		return nil, nil, false
	}
	offs = newBuffer(mem, (len(refs)+1)*4)
	data = newBuffer(mem, total)
	oo, out := arrow.Int32Traits.CastFromBytes(offs.Bytes()), data.Bytes()
	pos := int32(0)
	for i, r := range refs {
		oo[i] = pos
		o := offsets[r.b]
		pos += int32(copy(out[pos:], bytes[r.b][o[r.r]:o[r.r+1]]))
	}
	oo[len(refs)] = pos
	return offs, data, true
}

// binaryOf returns keys as a Binary array, built in one pass.
func binaryOf(mem memory.Allocator, keys [][]byte) arrow.Array {
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	offs, data := newBuffer(mem, (len(keys)+1)*4), newBuffer(mem, total)
	oo, out := arrow.Int32Traits.CastFromBytes(offs.Bytes()), data.Bytes()
	pos := int32(0)
	for i, k := range keys {
		oo[i] = pos
		pos += int32(copy(out[pos:], k))
	}
	oo[len(keys)] = pos
	d := array.NewData(arrow.BinaryTypes.Binary, len(keys), []*memory.Buffer{nil, offs, data}, nil, 0, 0)
	offs.Release()
	data.Release()
	defer d.Release()
	return array.MakeFromData(d)
}
