package limits

import (
	"runtime/debug"
	"testing"
)

func currentLimit() int64 { return debug.SetMemoryLimit(-1) }

func TestManageGoMemoryLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := currentLimit()
	restore := ManageGoMemoryLimit()
	defer restore()

	a := ExpectHeap(60 * MiB)
	a.Add(40 * MiB)
	base := heap.base
	if got, want := currentLimit(), base+heapHeadroom+150*MiB; got != want {
		t.Fatalf("limit with one expectation = %d, want %d", got, want)
	}
	b := ExpectHeap(50 * MiB)
	if got, want := currentLimit(), base+heapHeadroom+225*MiB; got != want {
		t.Fatalf("limit with two expectations = %d, want %d (the base stays that of the first)", got, want)
	}
	a.Done()
	a.Done()   // a second call changes nothing
	a.Add(MiB) // nor does an Add after Done
	if got, want := currentLimit(), base+heapHeadroom+75*MiB; got != want {
		t.Fatalf("limit after one is done = %d, want %d", got, want)
	}
	b.Hold(100 * MiB) // held data counts once, without the streamed half
	if got, want := currentLimit(), base+heapHeadroom+175*MiB; got != want {
		t.Fatalf("limit with 100 MiB held = %d, want %d", got, want)
	}
	b.Done()
	if got := currentLimit(); got != before {
		t.Fatalf("limit with no expectation = %d, want the previous %d", got, before)
	}
	restore()
	e := ExpectHeap(10 * MiB)
	defer e.Done()
	if got := currentLimit(); got != before {
		t.Fatalf("limit after restore = %d, want %d: expectations must not set it", got, before)
	}
}

func TestManageGoMemoryLimitYieldsToGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	before := currentLimit()
	restore := ManageGoMemoryLimit()
	defer restore()
	e := ExpectHeap(100 * MiB)
	defer e.Done()
	if got := currentLimit(); got != before {
		t.Fatalf("limit = %d with GOMEMLIMIT set, want it untouched (%d)", got, before)
	}
}

func TestMemoryLimitNeverRaisesAUserLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	prev := debug.SetMemoryLimit(64 * MiB)
	defer debug.SetMemoryLimit(prev)
	restore := ManageGoMemoryLimit()
	defer restore()
	e := ExpectHeap(1 * GiB)
	defer e.Done()
	if got := currentLimit(); got != 64*MiB {
		t.Fatalf("limit = %d, want the lower limit set before (64 MiB)", got)
	}
}
