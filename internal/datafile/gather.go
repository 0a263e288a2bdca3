package datafile

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gather copies the given rows of a into a new array, for arrays of fixed-
// width values, booleans and strings or binaries with 32-bit offsets; ok is
// false for other types, which compute.TakeArray copies. Splitting each
// batch by partition called arrow's take kernel once per column and
// partition, and the kernel's executor and per-value appends were a third
// of the CPU of a write to 100 partitions.
func gather(mem memory.Allocator, a arrow.Array, rows []int32) (_ arrow.Array, ok bool) {
	id := a.DataType().ID()
	width := 0
	switch {
	case id == arrow.BOOL, id == arrow.STRING, id == arrow.BINARY:
	case arrow.IsPrimitive(id), id == arrow.DECIMAL128, id == arrow.DECIMAL256, id == arrow.FIXED_SIZE_BINARY:
		bits := a.DataType().(arrow.FixedWidthDataType).BitWidth()
		if bits%8 != 0 {
			return nil, false
		}
		width = bits / 8
	default:
		return nil, false
	}
	d := a.Data()
	off := d.Offset()
	n := len(rows)
	var validity *memory.Buffer
	nulls := 0
	if a.NullN() > 0 {
		validity = zeroed(mem, int(bitutil.BytesForBits(int64(n))))
		bits := validity.Bytes()
		for k, r := range rows {
			if a.IsValid(int(r)) {
				bitutil.SetBit(bits, k)
			} else {
				nulls++
			}
		}
	}
	var bufs []*memory.Buffer
	switch {
	case id == arrow.BOOL:
		vals := zeroed(mem, int(bitutil.BytesForBits(int64(n))))
		src, dst := d.Buffers()[1].Bytes(), vals.Bytes()
		for k, r := range rows {
			if bitutil.BitIsSet(src, off+int(r)) {
				bitutil.SetBit(dst, k)
			}
		}
		bufs = []*memory.Buffer{validity, vals}
	case width > 0:
		vals := sized(mem, n*width)
		src := d.Buffers()[1].Bytes()[off*width:]
		dst := vals.Bytes()
		switch width {
		case 4:
			gatherWords(unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(dst))), n), src, rows)
		case 8:
			gatherWords(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(dst))), n), src, rows)
		default:
			for k, r := range rows {
				copy(dst[k*width:(k+1)*width], src[int(r)*width:])
			}
		}
		bufs = []*memory.Buffer{validity, vals}
	default: // 32-bit offsets and bytes
		offsets := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[off:]
		src := d.Buffers()[2].Bytes()
		total := 0
		for _, r := range rows {
			total += int(offsets[r+1] - offsets[r])
		}
		offBuf, data := sized(mem, (n+1)*4), sized(mem, total)
		outOff := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
		dst := data.Bytes()
		at := int32(0)
		for k, r := range rows {
			outOff[k] = at
			at += int32(copy(dst[at:], src[offsets[r]:offsets[r+1]]))
		}
		outOff[n] = at
		bufs = []*memory.Buffer{validity, offBuf, data}
	}
	out := array.NewData(a.DataType(), n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer out.Release()
	return array.MakeFromData(out), true
}

// gatherWords copies the values at rows of src, viewed as words of T, to dst.
func gatherWords[T uint32 | uint64](dst []T, src []byte, rows []int32) {
	words := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(src))), len(src)/int(unsafe.Sizeof(T(0))))
	for k, r := range rows {
		dst[k] = words[r]
	}
}

func sized(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	return b
}

func zeroed(mem memory.Allocator, n int) *memory.Buffer {
	b := sized(mem, n)
	clear(b.Bytes())
	return b
}
