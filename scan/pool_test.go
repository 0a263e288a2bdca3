package scan

import (
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/storage"
)

// poisonPool is a bufferPool that overwrites every buffer Arrow frees, so
// that a reader still holding a freed (and soon reused) buffer reads
// garbage and fails the content checks instead of passing by luck.
type poisonPool struct{ bufferPool }

func (p *poisonPool) Free(b []byte) {
	b = b[:cap(b)]
	for i := range b {
		b[i] = 0xa5
	}
	p.bufferPool.Free(b)
}

func TestPoolClasses(t *testing.T) {
	seen := map[int]int{}
	for size := minPooled + 1; size <= maxPooled; size += size/64 + 1 {
		i, c := class(size)
		if c < size || c > size+size/8 || i < 0 || i >= len(defaultPool.classes) {
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
	if len(seen) != len(defaultPool.classes) {
		t.Errorf("%d of %d classes in use", len(seen), len(defaultPool.classes))
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
	p := &bufferPool{}
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

// TestDefaultAllocatorReuses checks that a scan that keeps the default
// allocator decodes through reused buffers, and that decoding takes about
// as much from the Go heap as the batches hold, not several times that
// (arrow-go before v18.9.0 grew every dictionary by a quarter at a time
// as the indexes reached it, copying it over and over).
func TestDefaultAllocatorReuses(t *testing.T) {
	src := wideTable(t, 2, 40_000, 8) // every value distinct
	// No collection during the measure: on a heap this small they come
	// every few MiB and empty the pool, which the test is not about.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	heap := func(opts ...Option) (uint64, int64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n, bytes := scanTotals(t, New(src, opts...))
		runtime.ReadMemStats(&after)
		if n != 80_000 {
			t.Fatalf("%d rows", n)
		}
		return after.TotalAlloc - before.TotalAlloc, bytes
	}
	heap() // the pool's first buffers
	pooled, decoded := heap()
	plain, _ := heap(WithAllocator(memory.NewGoAllocator()))
	t.Logf("heap allocation: %d B pooled, %d B plain, for batches of %d B", pooled, plain, decoded)
	if pooled*2 > plain {
		t.Errorf("the default allocator took %d B from the heap, the Go allocator %d B: at most half of it expected", pooled, plain)
	}
	// What is left on the heap is mostly the dictionaries: about the data.
	if pooled > uint64(decoded)*5/2 {
		t.Errorf("the scan took %d B from the heap for batches of %d B", pooled, decoded)
	}
}

// openCounter is a Store that records how many objects are open at once.
type openCounter struct {
	storage.Store
	mu        sync.Mutex
	open, max int
}

type countedReader struct {
	storage.Reader
	c *openCounter
}

func (c *openCounter) Open(ctx context.Context, key string) (storage.Reader, error) {
	r, err := c.Store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.open++
	c.max = max(c.max, c.open)
	c.mu.Unlock()
	return countedReader{r, c}, nil
}

func (r countedReader) Close() error {
	r.c.mu.Lock()
	r.c.open--
	r.c.mu.Unlock()
	return r.Reader.Close()
}

// TestDefaultReadsOneFileAtATime checks the default memory model: one
// file open at a time (its columns decoded concurrently), against n files
// with WithParallelism(n), and the same rows either way.
func TestDefaultReadsOneFileAtATime(t *testing.T) {
	src := wideTable(t, 6, 3000, 12)
	for _, c := range []struct {
		opts    []Option
		maxOpen int
	}{
		{nil, 1},
		{[]Option{WithParallelism(3)}, 3},
	} {
		counter := &openCounter{Store: src.st}
		s := &altered{Source: src, store: counter}
		// Six batches a file: more than a reader may queue, so that a
		// reader that runs ahead waits with its file open.
		rows := readRows(t, s, append([]Option{WithBatchSize(500)}, c.opts...)...)
		if len(rows) != 18000 {
			t.Fatalf("%d rows", len(rows))
		}
		if c.maxOpen == 1 {
			if counter.max != 1 {
				t.Errorf("default scan had %d files open at once, want 1", counter.max)
			}
		} else if counter.max < 2 || counter.max > c.maxOpen {
			t.Errorf("WithParallelism(%d) had %d files open at once", c.maxOpen, counter.max)
		}
		if want := readRows(t, src, WithParallelism(1)); strings.Join(rows, "\n") != strings.Join(want, "\n") {
			t.Errorf("rows differ from a serial scan's")
		}
	}
}
