package arrowmem

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestPoolClasses(t *testing.T) {
	seen := map[int]int{}
	for size := minPooled + 1; size <= maxPooled; size += size/64 + 1 {
		i, c := class(size)
		if c < size || c > size+size/8 || i < 0 || i >= len(Default.classes) {
			t.Fatalf("size %d: class %d of capacity %d", size, i, c)
		}
		if old, ok := seen[i]; ok && old != c {
			t.Fatalf("class %d has capacities %d and %d", i, old, c)
		}
		seen[i] = c
		if j, c2 := class(c); j != i || c2 != c {
			t.Fatalf("capacity %d is in class %d (%d), not %d", c, j, c2, i)
		}
	}
	if len(seen) != len(Default.classes) {
		t.Errorf("%d of %d classes in use", len(seen), len(Default.classes))
	}
	// The page buffer that made power-of-two classes cost peak memory.
	if _, c := class(1<<20 + 100); c != 1<<20+1<<17 {
		t.Errorf("1 MiB + 100 B takes %d bytes", c)
	}
	for _, size := range []int{0, 1, minPooled, maxPooled + 1} {
		if i, _ := class(size); i != -1 {
			t.Errorf("size %d pooled in class %d", size, i)
		}
	}
}

func TestPoolReusesZeroedAligned(t *testing.T) {
	p := &Pool{}
	const size = 100_000
	var reused bool
	for try := 0; try < 10 && !reused; try++ { // Get may miss after a GC
		b := p.Allocate(size)
		if len(b) != size || uintptr(unsafe.Pointer(&b[0]))%alignment != 0 {
			t.Fatalf("len %d at %p", len(b), &b[0])
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("byte %d is %d, not zeroed", i, b[i])
			}
			b[i] = 0xff
		}
		first := &b[0]
		p.Free(b)
		c := p.Allocate(size - 10)
		reused = &c[0] == first
		for i := range c {
			if c[i] != 0 {
				t.Fatalf("reused byte %d is %d, not zeroed", i, c[i])
			}
		}
		p.Free(c)
	}
	if !reused {
		t.Error("a freed buffer of the same class was never handed out again")
	}

	// Growing keeps the first bytes and zeroes the rest, in place or not.
	b := p.Allocate(5000)
	for i := range b {
		b[i] = byte(i)
	}
	b = p.Reallocate(5100, b[:5000]) // same class: in place
	b = p.Reallocate(300_000, b)     // new class
	for i := range b {
		want := byte(0)
		if i < 5000 {
			want = byte(i)
		}
		if b[i] != want {
			t.Fatalf("byte %d after growing is %d, want %d", i, b[i], want)
		}
	}
	// Sizes outside the pooled range come from, and go back to, the Go
	// heap, whatever memory.DefaultAllocator is: Free drops them.
	global := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer func(old memory.Allocator) { memory.DefaultAllocator = old }(memory.DefaultAllocator)
	memory.DefaultAllocator = global
	for _, size := range []int{100, maxPooled + 1} {
		b := p.Allocate(size)
		if len(b) != size || uintptr(unsafe.Pointer(&b[0]))%alignment != 0 {
			t.Fatalf("unpooled buffer: len %d at %p", len(b), &b[0])
		}
		p.Free(b)
	}
	if n := global.CurrentAlloc(); n != 0 {
		t.Errorf("%d bytes taken from memory.DefaultAllocator and never freed", n)
	}
}

// TestComputeKernelsSeeEveryByte runs arrow-go's Take on strings through
// the pool: its kernels size appends by a buffer's capacity, so a pool that
// handed out spare capacity made them drop bytes (and, later, panic).
func TestComputeKernelsSeeEveryByte(t *testing.T) {
	mem := &Pool{}
	bld := array.NewStringBuilder(memory.NewGoAllocator())
	rnd := rand.New(rand.NewPCG(7, 7))
	const n = 4000
	for i := range n {
		bld.Append(strings.Repeat(string(rune('a'+i%26)), 1+rnd.IntN(4500)))
	}
	src := bld.NewStringArray()
	defer src.Release()
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(rnd.IntN(n))
	}
	indices := array.NewInt32Builder(memory.NewGoAllocator())
	indices.AppendValues(idx, nil)
	ia := indices.NewInt32Array()
	defer ia.Release()
	for round := range 3 { // later rounds reuse what earlier ones freed
		ctx := compute.WithAllocator(context.Background(), mem)
		out, err := compute.TakeArray(ctx, src, ia)
		if err != nil {
			t.Fatal(err)
		}
		got := out.(*array.String)
		for i, j := range idx {
			if got.Value(i) != src.Value(int(j)) {
				t.Fatalf("round %d: row %d is %d bytes, want %d", round, i, len(got.Value(i)), len(src.Value(int(j))))
			}
		}
		out.Release()
	}
}
