package scan

import (
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
	"github.com/deltalite-go/deltalite/storage"
)

// poisonPool is the scan's pool overwriting every buffer Arrow frees, so
// that a reader still holding a freed (and soon reused) buffer reads
// garbage and fails the content checks instead of passing by luck.
func poisonPool() memory.Allocator { return arrowmem.Poisoned() }

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
