// Package arrowmem holds the engine's default Arrow allocator, shared by
// the scan (decoding) and the data-file writer (encoding).
package arrowmem

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Pool is an Arrow allocator that keeps the buffers Arrow frees (a batch's columns when the consumer
// releases it, page, dictionary and compression buffers when a reader or a
// column writer moves on) and hands them out again, zeroed, instead of
// asking the Go heap for new ones. Scans and writes go through buffers of
// a few sizes, over and over, so reuse spares the heap most of its
// allocation, the page faults of fresh spans and the garbage collections
// they trigger. Memory stays bounded: a buffer is pooled only once freed,
// and the pools drop what they hold at garbage collection (sync.Pool), so
// what is kept follows the callers' own bounds, not the table.
//
// Sizes are rounded up to the next of eight steps per power of two (at
// most 1/8 more than asked: a page buffer of a little over 1 MiB must not
// take 2 MiB) above minPooled and up to maxPooled; smaller and larger buffers
// come from the Go heap, and a buffer whose capacity is not a pooled size
// is left to the garbage collector when freed.
type Pool struct {
	classes [(maxShift - minShift) << subBits]sync.Pool // of *[]byte, cap exactly the class size
}

const (
	minShift  = 12 // up to 4 KiB buffers are cheap for the Go heap
	maxShift  = 26 // above 64 MiB they are rare, not worth keeping
	subBits   = 3  // 8 size classes per power of two
	minPooled = 1 << minShift
	maxPooled = 1 << maxShift
	// alignment is Arrow's buffer alignment (as memory.GoAllocator keeps).
	alignment = 64
)

// Default is shared by every scan and writer that keeps the default
// allocator, so that successive files reuse each other's buffers.
var Default = &Pool{}

// goHeap serves the sizes the pool does not keep. Not the replaceable
// memory.DefaultAllocator: Free drops those buffers, which only the Go
// heap tolerates (the mallocator build of arrow-go makes it C memory).
var goHeap = memory.NewGoAllocator()

var _ memory.Allocator = (*Pool)(nil)

// class returns the pool index and the capacity of the buffers that serve
// size bytes, or -1 when such buffers are not pooled.
func class(size int) (idx, capacity int) {
	if size <= minPooled || size > maxPooled {
		return -1, 0
	}
	e := bits.Len(uint(size-1)) - 1 // 2^e < size <= 2^(e+1)
	step := 1 << (e - subBits)
	capacity = (size + step - 1) &^ (step - 1)
	sub := capacity>>(e-subBits) - 1<<subBits - 1 // 0..7
	return (e-minShift)<<subBits + sub, capacity
}

// Allocate returns size zeroed bytes aligned to 64 bytes.
func (p *Pool) Allocate(size int) []byte {
	b, reused := p.get(size)
	if reused {
		clear(b)
	}
	return b
}

// AllocateUncleared returns size bytes aligned to 64 bytes, of any content:
// for a caller that writes every byte before reading any. Arrow's own code
// takes Allocate's zeroed bytes for granted; only such callers may use it.
func (p *Pool) AllocateUncleared(size int) []byte {
	b, _ := p.get(size)
	return b
}

// A buffer is handed out with its capacity equal to its length, as
// memory.GoAllocator does: arrow-go's compute kernels size their appends by
// cap(Buf()) but copy within len, so spare capacity would make them drop
// bytes. The pool knows a buffer's real capacity from its length instead:
// every buffer of a pooled length was made at least as large as that
// length's class (spare returns it).

// get returns size bytes, zeroed unless reused from the pool.
func (p *Pool) get(size int) (b []byte, reused bool) {
	c, capacity := class(size)
	if c < 0 {
		return goHeap.Allocate(size), false
	}
	if v, ok := p.classes[c].Get().(*[]byte); ok {
		return (*v)[:size:size], true
	}
	return alignedMake(capacity)[:size:size], false
}

// spare returns b over the whole memory the pool made for it, and whether
// that is a pooled class (else b as it is).
func spare(b []byte) ([]byte, bool) {
	c, capacity := class(len(b))
	if c < 0 {
		return b, false
	}
	return unsafe.Slice(unsafe.SliceData(b), capacity), true
}

// classOf is the pool index of buffers of size bytes, -1 if not pooled.
func classOf(size int) int {
	c, _ := class(size)
	return c
}

// alignedMake makes n bytes starting at a 64-byte boundary.
func alignedMake(n int) []byte {
	buf := make([]byte, n+alignment)
	shift := (alignment - int(uintptr(unsafe.Pointer(&buf[0]))%alignment)) % alignment
	return buf[shift : shift+n : shift+n]
}

// Reallocate grows or shrinks b to size, keeping its first bytes; new
// bytes are zero. Within b's class it stays in place; a pooled buffer
// shrunk to another class is copied, so that its memory goes back to its
// own class when freed (a length names one class only).
func (p *Pool) Reallocate(size int, b []byte) []byte {
	full, pooled := spare(b)
	if size <= len(full) && (!pooled || classOf(size) == classOf(len(b))) {
		if size > len(b) {
			clear(full[len(b):size])
		}
		return full[:size:size]
	}
	nb, reused := p.get(size)
	n := copy(nb, b)
	if reused {
		clear(nb[n:])
	}
	p.Free(b)
	return nb
}

// Free keeps b for reuse if its length is one of the pooled sizes.
func (p *Pool) Free(b []byte) {
	full, ok := spare(b)
	if !ok {
		return
	}
	c, _ := class(len(full))
	p.classes[c].Put(&full)
}

// Poisoned returns a Pool that overwrites every buffer as it is freed, for
// tests: a reader or writer still holding a freed (and soon reused) buffer
// reads garbage and fails content checks instead of passing by luck.
func Poisoned() memory.Allocator { return &poisoned{} }

type poisoned struct{ Pool }

func (p *poisoned) Free(b []byte) {
	b = b[:cap(b)]
	for i := range b {
		b[i] = 0xa5
	}
	p.Pool.Free(b)
}

// Uncleared returns a buffer of n bytes from mem that the caller
// overwrites whole: from a Pool without clearing it first (clearing every
// byte a copy or a decoder then writes cost as much as the copy).
func Uncleared(mem memory.Allocator, n int) *memory.Buffer {
	if p, ok := mem.(*Pool); ok {
		return memory.NewBufferWithAllocator(p.AllocateUncleared(n), p)
	}
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	return b
}

// Zeroed returns a buffer of n zero bytes from mem.
func Zeroed(mem memory.Allocator, n int) *memory.Buffer {
	b := Uncleared(mem, n)
	clear(b.Bytes())
	return b
}
