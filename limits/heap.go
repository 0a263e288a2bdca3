package limits

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Go's collector lets the heap grow to twice what is live before it
// collects (GOGC=100), so an operation that holds 250 MiB may take 500 MiB
// and more from the system. The engine knows better: what it holds is
// bounded by the budgets it was given. A process that owns its runtime
// settings (a command; a library must not, since the limit is process-wide)
// hands Go's soft memory limit to the engine with ManageGoMemoryLimit, and
// operations declare what they will hold with ExpectHeap. While any
// expectation is outstanding the limit is
//
//	live heap when the first one arrived + headroom + 1.5 x the expectations
//	+ what they hold
//
// (the half for the garbage streamed batches leave between collections;
// what an operation holds, such as a source read whole, is live until it
// ends and leaves no garbage, so it counts once), and with none it is back
// where it was. The limit is soft: an estimate that
// is too low costs collector CPU, never a failure, but that cost is steep
// (Go lets the collector take up to half the CPU while the live heap is
// above the limit): a write to 100 partitions whose expectation left out
// its open files' buffers ran at a third of its speed. Declare only what a
// bound covers in full.
var heap heapState

type heapState struct {
	sync.Mutex
	managed  bool
	prev     int64 // the limit before ManageGoMemoryLimit
	base     int64 // live heap when the outstanding expectations began
	expected int64 // outstanding expectations of streamed data
	held     int64 // outstanding expectations of data held whole
}

// heapHeadroom is added to the live heap the expectations start from: the
// runtime's own overhead and what the caller allocates beside the engine.
const heapHeadroom = 32 * MiB

// ManageGoMemoryLimit lets the engine set Go's soft memory limit
// (runtime/debug.SetMemoryLimit) from the expectations of the operations
// that run, until restore is called. It does nothing when the GOMEMLIMIT
// environment variable is set: the user's limit wins.
func ManageGoMemoryLimit() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	heap.Lock()
	defer heap.Unlock()
	if heap.managed {
		return func() {}
	}
	heap.managed = true
	heap.prev = debug.SetMemoryLimit(-1)
	return func() {
		heap.Lock()
		defer heap.Unlock()
		heap.managed = false
		debug.SetMemoryLimit(heap.prev)
	}
}

// HeapExpectation is what one operation declared it will hold.
type HeapExpectation struct {
	n, held int64
	done    bool
}

// ExpectHeap declares that the caller is about to hold up to n more bytes
// of heap, until Done. Operations call it before they read their input, so
// that the live heap it starts from is the process's own. Without
// ManageGoMemoryLimit it only keeps count.
func ExpectHeap(n int64) *HeapExpectation {
	e := &HeapExpectation{}
	heap.Lock()
	if heap.expected == 0 && heap.held == 0 {
		heap.base = liveHeap()
	}
	heap.Unlock()
	e.Add(n)
	return e
}

// Add raises the expectation by n bytes of streamed data (batches
// decoded, buffered and encoded in turn).
func (e *HeapExpectation) Add(n int64) { e.raise(n, &e.n, &heap.expected) }

// Hold raises the expectation by n bytes the caller keeps whole until
// Done (a source read into memory, its key sets): counted once, without
// the slack Add gives streamed data for its garbage.
func (e *HeapExpectation) Hold(n int64) { e.raise(n, &e.held, &heap.held) }

// raise adds n to one of e's counts and the process's matching total.
func (e *HeapExpectation) raise(n int64, mine, all *int64) {
	heap.Lock()
	defer heap.Unlock()
	if e.done || n <= 0 {
		return
	}
	*mine += n
	*all += n
	heap.apply()
}

// Done withdraws the expectation; later calls do nothing.
func (e *HeapExpectation) Done() {
	heap.Lock()
	defer heap.Unlock()
	if e.done {
		return
	}
	e.done = true
	heap.expected -= e.n
	heap.held -= e.held
	heap.apply()
}

// apply sets the limit for the current expectations; h is locked.
func (h *heapState) apply() {
	if !h.managed {
		return
	}
	if h.expected == 0 && h.held == 0 {
		debug.SetMemoryLimit(h.prev)
		return
	}
	debug.SetMemoryLimit(min(memoryLimit(h.base, h.expected, h.held), h.prev))
}

// memoryLimit is the limit for a live heap base, expectations of streamed
// data and of data held whole.
func memoryLimit(base, expected, held int64) int64 {
	return base + heapHeadroom + expected*3/2 + held
}

// liveHeap is the heap the last collection found live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s[0].Value.Uint64(), math.MaxInt64))
}
