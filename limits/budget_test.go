package limits

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls cond until it holds or the test times out with msg.
func waitFor(t *testing.T, msg string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", msg)
		}
		time.Sleep(time.Millisecond)
	}
}

// notDone asserts ch stays open for a moment: the goroutine behind it is waiting.
func notDone[T any](t *testing.T, what string, ch <-chan T) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("%s finished, want it still waiting", what)
	case <-time.After(30 * time.Millisecond):
	}
}

func recv[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not finish", what)
		panic("unreachable")
	}
}

func checkInUse(t *testing.T, what string, b *Budget, parts, files int, bytes int64) {
	t.Helper()
	p, f, n := b.InUse()
	if p != parts || f != files || n != bytes {
		t.Fatalf("%s: budget in use = (%d, %d, %d), want (%d, %d, %d)", what, p, f, n, parts, files, bytes)
	}
}

func checkProcessInUse(t *testing.T, what string, l *Limits, parts, files int, bytes int64) {
	t.Helper()
	p, f, n := l.InUse()
	if p != parts || f != files || n != bytes {
		t.Fatalf("%s: process in use = (%d, %d, %d), want (%d, %d, %d)", what, p, f, n, parts, files, bytes)
	}
}

// testCall is an upsert's default call bounds, for tests that need room.
var testCall = CallConfig{MaxParallelPartitions: 2, MaxParallelFiles: 4, MaxDecodedBytes: 64 << 20}

func TestNewBudgetRaisesToOne(t *testing.T) {
	l := New(DefaultConfig())
	for _, c := range []CallConfig{{}, {-3, -1, -7}} {
		if got, want := l.NewBudget(c).Config(), (CallConfig{1, 1, 1}); got != want {
			t.Fatalf("CallConfig %+v = %+v, want %+v", c, got, want)
		}
	}
	if got := l.NewBudget(testCall).Config(); got != testCall {
		t.Fatalf("CallConfig %+v changed to %+v", testCall, got)
	}
	if b := l.NewBudget(CallConfig{}); b.Limits() != l {
		t.Fatal("Budget.Limits() is not the limits it came from")
	}
}

func TestNilLimitsIsProcess(t *testing.T) {
	var l *Limits
	if l.NewBudget(CallConfig{}).Limits() != Process() {
		t.Fatal("a budget from nil limits does not draw from Process()")
	}
	if l.Config() != Process().Config() {
		t.Fatal("nil limits' config differs from Process()")
	}
}

func TestZeroCapacityDoesNotDeadlock(t *testing.T) {
	l := New(Config{})
	b := l.NewBudget(testCall)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rp, err := b.AcquirePartition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := b.AcquireFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.AcquireBytes(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	checkProcessInUse(t, "one of each", l, 1, 1, 1)
	r.Release()
	rf()
	rp()
	checkProcessInUse(t, "released", l, 0, 0, 0)
}

// The call's own limit binds first, the process's second, and waits end when
// permits come back.
func TestPermitsLocalThenProcess(t *testing.T) {
	for _, kind := range []string{"partition", "file"} {
		t.Run(kind, func(t *testing.T) {
			l := New(Config{MaxParallelPartitions: 3, MaxParallelFiles: 3, MaxDecodedBytes: 1})
			a := l.NewBudget(CallConfig{MaxParallelPartitions: 2, MaxParallelFiles: 2})
			b := l.NewBudget(CallConfig{MaxParallelPartitions: 2, MaxParallelFiles: 2})
			acquire := func(bd *Budget, ctx context.Context) (func(), error) {
				if kind == "partition" {
					return bd.AcquirePartition(ctx)
				}
				return bd.AcquireFile(ctx)
			}
			inUse := func(bd *Budget) int {
				p, f, _ := bd.InUse()
				if kind == "partition" {
					return p
				}
				return f
			}
			procInUse := func() int {
				p, f, _ := l.InUse()
				if kind == "partition" {
					return p
				}
				return f
			}
			ctx := context.Background()
			a1, _ := acquire(a, ctx)
			a2, _ := acquire(a, ctx)
			if inUse(a) != 2 || procInUse() != 2 {
				t.Fatalf("after two: call %d, process %d; want 2, 2", inUse(a), procInUse())
			}

			// a is at its own limit: a third waits on the call's semaphore.
			a3done := make(chan func(), 1)
			go func() { r, _ := acquire(a, ctx); a3done <- r }()
			notDone(t, "a's third acquisition", a3done)

			// b has room locally and the process has one left.
			b1, err := acquire(b, ctx)
			if err != nil {
				t.Fatal(err)
			}
			if procInUse() != 3 {
				t.Fatalf("process in use %d, want 3", procInUse())
			}
			// b's second passes its own limit and waits on the process.
			b2done := make(chan func(), 1)
			go func() { r, _ := acquire(b, ctx); b2done <- r }()
			waitFor(t, "b's second waits on the process", func() bool { return inUse(b) == 2 })
			notDone(t, "b's second acquisition", b2done)

			// Returning one of a's permits frees one process permit: exactly one
			// of the two waiters proceeds, the other keeps waiting.
			a1()
			a1() // idempotent: must not free a second permit
			var a3, b2 func()
			select {
			case a3 = <-a3done:
			case b2 = <-b2done:
			case <-time.After(5 * time.Second):
				t.Fatal("nobody proceeded after a release")
			}
			if procInUse() != 3 {
				t.Fatalf("process in use %d after hand-over, want 3", procInUse())
			}
			a2()
			if a3 == nil {
				a3 = recv(t, "a's third", a3done)
			} else {
				b2 = recv(t, "b's second", b2done)
			}
			a3()
			b1()
			b2()
			if inUse(a) != 0 || inUse(b) != 0 || procInUse() != 0 {
				t.Fatalf("after all releases: a %d, b %d, process %d", inUse(a), inUse(b), procInUse())
			}
		})
	}
}

func TestAcquireBytesCapsOversizeRequests(t *testing.T) {
	ctx := context.Background()
	t.Run("call capacity", func(t *testing.T) {
		l := New(Config{MaxDecodedBytes: 1 << 30})
		b := l.NewBudget(CallConfig{MaxDecodedBytes: 1000})
		small, err := b.AcquireBytes(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		// Larger than the whole call budget: waits until it can run alone.
		done := make(chan *Reservation, 1)
		go func() { r, _ := b.AcquireBytes(ctx, 5000); done <- r }()
		notDone(t, "oversize acquisition while another holds bytes", done)
		small.Release()
		big := recv(t, "oversize acquisition", done)
		if big.Bytes() != 5000 {
			t.Fatalf("Bytes() = %d, want the requested 5000", big.Bytes())
		}
		checkInUse(t, "oversize held", b, 0, 0, 1000)
		checkProcessInUse(t, "oversize held", l, 0, 0, 5000)
		big.Release()
		checkProcessInUse(t, "released", l, 0, 0, 0)
	})
	t.Run("process capacity", func(t *testing.T) {
		l := New(Config{MaxDecodedBytes: 1000})
		b := l.NewBudget(CallConfig{MaxDecodedBytes: 1 << 30})
		r, err := b.AcquireBytes(ctx, 5000)
		if err != nil {
			t.Fatal(err)
		}
		checkInUse(t, "oversize held", b, 0, 0, 5000)
		checkProcessInUse(t, "oversize held", l, 0, 0, 1000)
		r.Release()
		checkInUse(t, "released", b, 0, 0, 0)
	})
}

func TestAcquireBytesInvalid(t *testing.T) {
	b := New(DefaultConfig()).NewBudget(testCall)
	if r, err := b.AcquireBytes(context.Background(), -1); err == nil || r != nil {
		t.Fatalf("AcquireBytes(-1) = %v, %v; want nil and an error", r, err)
	}
	r, err := b.AcquireBytes(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Resize(context.Background(), -1); err == nil {
		t.Fatal("Resize(-1) succeeded")
	}
	if r.Bytes() != 0 {
		t.Fatalf("Bytes() = %d after a rejected Resize, want 0", r.Bytes())
	}
	var nilR *Reservation
	nilR.Release()
	if nilR.Bytes() != 0 || !errors.Is(nilR.Resize(context.Background(), 1), ErrReleased) {
		t.Fatal("nil reservation misbehaves")
	}
}

func TestReservationResize(t *testing.T) {
	ctx := context.Background()
	l := New(Config{MaxDecodedBytes: 1 << 20})
	b := l.NewBudget(CallConfig{MaxDecodedBytes: 100})
	r, err := b.AcquireBytes(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	// Grow with room: fast path.
	if err := r.Resize(ctx, 60); err != nil {
		t.Fatal(err)
	}
	checkInUse(t, "grown", b, 0, 0, 60)
	if r.Bytes() != 60 {
		t.Fatalf("Bytes() = %d, want 60", r.Bytes())
	}

	// Another reservation needs 50: waits until r shrinks.
	done := make(chan *Reservation, 1)
	go func() { o, _ := b.AcquireBytes(ctx, 50); done <- o }()
	notDone(t, "acquisition of 50 with 40 free", done)
	if err := r.Resize(ctx, 20); err != nil {
		t.Fatal(err)
	}
	o := recv(t, "acquisition of 50 after a shrink", done)
	checkInUse(t, "shrunk plus other", b, 0, 0, 70)
	checkProcessInUse(t, "shrunk plus other", l, 0, 0, 70)

	// Growing beyond what is free returns what r holds and waits for the total.
	grown := make(chan error, 1)
	go func() { grown <- r.Resize(ctx, 80) }()
	waitFor(t, "the grow gave its bytes back", func() bool { _, _, n := b.InUse(); return n == 50 })
	notDone(t, "grow to 80 with 50 held elsewhere", grown)
	o.Release()
	if err := recv(t, "grow to 80", grown); err != nil {
		t.Fatal(err)
	}
	checkInUse(t, "grown to 80", b, 0, 0, 80)

	r.Release()
	r.Release()
	checkInUse(t, "released twice", b, 0, 0, 0)
	checkProcessInUse(t, "released twice", l, 0, 0, 0)
	if err := r.Resize(ctx, 1); !errors.Is(err, ErrReleased) {
		t.Fatalf("Resize after Release = %v, want ErrReleased", err)
	}
	if r.Bytes() != 0 {
		t.Fatalf("Bytes() after Release = %d", r.Bytes())
	}
}

// TestResizeGrowsAheadOfTheQueue: a reservation grows into free bytes even
// while a request that does not fit waits, instead of giving its bytes to
// that request and queueing behind it with its work in memory; the waiter
// gets its turn once the bytes come back.
func TestResizeGrowsAheadOfTheQueue(t *testing.T) {
	ctx := context.Background()
	l := New(Config{MaxDecodedBytes: 1 << 20})
	b := l.NewBudget(CallConfig{MaxDecodedBytes: 16})
	r, err := b.AcquireBytes(ctx, 12)
	if err != nil {
		t.Fatal(err)
	}
	queued := make(chan *Reservation, 1)
	go func() { o, _ := b.AcquireBytes(ctx, 12); queued <- o }()
	waitFor(t, "the second request queues", func() bool { return b.bytes.waiting.Load() == 1 })
	grown := make(chan error, 1)
	go func() { grown <- r.Resize(ctx, 14) }()
	if err := recv(t, "growth into free bytes", grown); err != nil {
		t.Fatal(err)
	}
	checkInUse(t, "grown past the queue", b, 0, 0, 14)
	notDone(t, "the queued request", queued)
	// A fair TryAcquireBytes still does not pass the waiter.
	if o, ok := b.TryAcquireBytes(1); ok {
		o.Release()
		t.Fatal("TryAcquireBytes passed a waiting request")
	}
	r.Release()
	o := recv(t, "the queued request", queued)
	checkInUse(t, "the waiter's turn", b, 0, 0, 12)
	o.Release()
	checkProcessInUse(t, "all released", l, 0, 0, 0)
}

// Release while a grow waits: the grow gives back what it then obtains.
func TestReleaseDuringResize(t *testing.T) {
	ctx := context.Background()
	l := New(DefaultConfig())
	b := l.NewBudget(CallConfig{MaxDecodedBytes: 100})
	other, _ := b.AcquireBytes(ctx, 60)
	r, _ := b.AcquireBytes(ctx, 30)
	grown := make(chan error, 1)
	go func() { grown <- r.Resize(ctx, 80) }()
	waitFor(t, "the grow waits", func() bool { return b.bytes.waiting.Load() == 1 })

	if err := r.Resize(ctx, 90); err == nil || errors.Is(err, ErrReleased) {
		t.Fatalf("concurrent Resize = %v, want the concurrency error", err)
	}
	r.Release()
	other.Release()
	if err := recv(t, "the grow", grown); !errors.Is(err, ErrReleased) {
		t.Fatalf("grow of a released reservation = %v, want ErrReleased", err)
	}
	checkInUse(t, "all released", b, 0, 0, 0)
	checkProcessInUse(t, "all released", l, 0, 0, 0)
}

func TestTryAcquireBytes(t *testing.T) {
	ctx := context.Background()
	l := New(Config{MaxDecodedBytes: 100})
	b := l.NewBudget(CallConfig{MaxDecodedBytes: 1000})
	r, ok := b.TryAcquireBytes(70)
	if !ok {
		t.Fatal("TryAcquireBytes(70) failed on an empty budget")
	}
	if _, ok := b.TryAcquireBytes(40); ok {
		t.Fatal("TryAcquireBytes(40) succeeded with 30 free in the process")
	}
	checkInUse(t, "failed try leaves nothing", b, 0, 0, 70)
	if _, ok := b.TryAcquireBytes(-1); ok {
		t.Fatal("TryAcquireBytes(-1) succeeded")
	}
	// A waiter queued first keeps its turn: a try must not jump the queue.
	done := make(chan *Reservation, 1)
	go func() { w, _ := b.AcquireBytes(ctx, 50); done <- w }()
	waitFor(t, "the waiter queues", func() bool { return l.bytes.waiting.Load() == 1 })
	if _, ok := b.TryAcquireBytes(10); ok {
		t.Fatal("TryAcquireBytes jumped ahead of a waiter")
	}
	r.Release()
	recv(t, "the waiter", done).Release()
	checkProcessInUse(t, "released", l, 0, 0, 0)
}

// A large request queued first is served before smaller ones queued after it,
// even though they would fit: no starvation of big batches.
func TestBytesFIFO(t *testing.T) {
	ctx := context.Background()
	l := New(DefaultConfig())
	b := l.NewBudget(CallConfig{MaxDecodedBytes: 100})
	held, _ := b.AcquireBytes(ctx, 60)
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := func(id int, n int64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := b.AcquireBytes(ctx, n)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, id)
			mu.Unlock()
			r.Release()
		}()
	}
	start(1, 100)
	waitFor(t, "the big request queues", func() bool { return b.bytes.waiting.Load() == 1 })
	start(2, 10)
	waitFor(t, "the small request queues", func() bool { return b.bytes.waiting.Load() == 2 })
	held.Release()
	wg.Wait()
	if len(order) != 2 || order[0] != 1 || order[1] != 2 {
		t.Fatalf("service order %v, want [1 2]", order)
	}
}

func TestCancellation(t *testing.T) {
	t.Run("already cancelled", func(t *testing.T) {
		l := New(DefaultConfig())
		b := l.NewBudget(testCall)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if rel, err := b.AcquirePartition(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("AcquirePartition = %v, want Canceled", err)
		} else {
			rel() // a no-op, never nil
		}
		if _, err := b.AcquireFile(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("AcquireFile = %v, want Canceled", err)
		}
		if _, err := b.AcquireBytes(ctx, 0); !errors.Is(err, context.Canceled) {
			t.Fatalf("AcquireBytes(0) = %v, want Canceled", err)
		}
		checkProcessInUse(t, "nothing acquired", l, 0, 0, 0)
	})

	t.Run("waiting on the call", func(t *testing.T) {
		l := New(DefaultConfig())
		b := l.NewBudget(CallConfig{MaxParallelFiles: 1})
		rel, _ := b.AcquireFile(context.Background())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { _, err := b.AcquireFile(ctx); done <- err }()
		waitFor(t, "the file acquisition waits", func() bool { return b.files.waiting.Load() == 1 })
		cancel()
		if err := recv(t, "cancelled acquisition", done); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want Canceled", err)
		}
		checkInUse(t, "after cancel", b, 0, 1, 0)
		rel()
		checkProcessInUse(t, "after release", l, 0, 0, 0)
	})

	t.Run("waiting on the process releases the call's permit", func(t *testing.T) {
		l := New(Config{MaxParallelPartitions: 1, MaxDecodedBytes: 100})
		a := l.NewBudget(testCall)
		b := l.NewBudget(testCall)
		relA, _ := a.AcquirePartition(context.Background())
		bytesA, _ := a.AcquireBytes(context.Background(), 100)

		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		pErr := make(chan error, 1)
		go func() { _, err := b.AcquirePartition(ctx); pErr <- err }()
		bErr := make(chan error, 1)
		go func() { _, err := b.AcquireBytes(ctx, 40); bErr <- err }()
		waitFor(t, "b holds its local permits and waits on the process", func() bool {
			p, _, n := b.InUse()
			return p == 1 && n == 40
		})
		if err := recv(t, "partition wait", pErr); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("partition err = %v, want DeadlineExceeded", err)
		}
		if err := recv(t, "bytes wait", bErr); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("bytes err = %v, want DeadlineExceeded", err)
		}
		checkInUse(t, "b after timeouts", b, 0, 0, 0)
		checkProcessInUse(t, "a only", l, 1, 0, 100)
		relA()
		bytesA.Release()
		checkProcessInUse(t, "all released", l, 0, 0, 0)
	})

	t.Run("grow that is cancelled holds nothing", func(t *testing.T) {
		l := New(DefaultConfig())
		b := l.NewBudget(CallConfig{MaxDecodedBytes: 100})
		other, _ := b.AcquireBytes(context.Background(), 50)
		r, _ := b.AcquireBytes(context.Background(), 40)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- r.Resize(ctx, 90) }()
		waitFor(t, "the grow waits", func() bool { return b.bytes.waiting.Load() == 1 })
		cancel()
		if err := recv(t, "cancelled grow", done); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want Canceled", err)
		}
		if r.Bytes() != 0 {
			t.Fatalf("Bytes() = %d after a failed grow, want 0", r.Bytes())
		}
		checkInUse(t, "after failed grow", b, 0, 0, 50)
		other.Release()
		// Still usable.
		if err := r.Resize(context.Background(), 90); err != nil {
			t.Fatal(err)
		}
		checkInUse(t, "regrown", b, 0, 0, 90)
		r.Release()
		checkProcessInUse(t, "released", l, 0, 0, 0)
	})

	t.Run("shrink succeeds on a cancelled context", func(t *testing.T) {
		b := New(DefaultConfig()).NewBudget(testCall)
		r, _ := b.AcquireBytes(context.Background(), 100)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := r.Resize(ctx, 10); err != nil {
			t.Fatalf("shrink = %v", err)
		}
		checkInUse(t, "shrunk", b, 0, 0, 10)
	})
}

// Twenty concurrent calls, each wanting its full 64 MiB, share a 256 MiB process
// budget: the process bound holds at every instant and every call finishes.
func TestManyCallsShareProcessBytes(t *testing.T) {
	const (
		calls   = 20
		perCall = 64 << 20
		process = 256 << 20
	)
	l := New(Config{MaxDecodedBytes: process})
	var cur, peak atomic.Int64
	observe := func(delta int64) {
		v := cur.Add(delta)
		for {
			p := peak.Load()
			if v <= p || peak.CompareAndSwap(p, v) {
				return
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var finished atomic.Int32
	var sawWaiters atomic.Bool
	for range calls {
		wg.Go(func() {
			b := l.NewBudget(CallConfig{MaxDecodedBytes: perCall})
			// Start small and grow to the full call budget, as a reader does when
			// a batch decodes larger than estimated. Holding one reservation while
			// waiting for a second would be the caller's hold-and-wait: twenty
			// calls holding 16 MiB each would wedge the 256 MiB forever.
			r, err := b.AcquireBytes(ctx, perCall/4)
			if err != nil {
				t.Error(err)
				return
			}
			observe(perCall / 4)
			observe(-perCall / 4) // a grow may give everything back before waiting
			if err := r.Resize(ctx, perCall); err != nil {
				t.Error(err)
				r.Release()
				return
			}
			observe(perCall)
			if _, _, w := l.Waiting(); w > 0 {
				sawWaiters.Store(true)
			}
			if _, _, n := l.InUse(); n > process {
				t.Errorf("process in use %d > %d", n, process)
			}
			time.Sleep(5 * time.Millisecond)
			observe(-perCall / 2)                            // before the bytes go back, so observed <= held
			if err := r.Resize(ctx, perCall/2); err != nil { // shrink: never waits
				t.Error(err)
			}
			time.Sleep(time.Millisecond)
			observe(-perCall / 2)
			r.Release()
			finished.Add(1)
		})
	}
	wg.Wait()
	if finished.Load() != calls {
		t.Fatalf("%d of %d calls finished", finished.Load(), calls)
	}
	if p := peak.Load(); p > process {
		t.Fatalf("peak concurrent bytes %d > process limit %d", p, process)
	} else if p <= perCall {
		t.Fatalf("peak concurrent bytes %d: calls never overlapped, the test proves nothing", p)
	}
	if !sawWaiters.Load() {
		t.Fatal("no call ever waited; 20 x 64 MiB must exceed 256 MiB")
	}
	checkProcessInUse(t, "all finished", l, 0, 0, 0)
}

// The wedge the anchor hit: tasks that each hold bytes and wait for more can
// block a full budget forever. Growing by Resize never waits while holding.
func TestConcurrentGrowthDoesNotWedge(t *testing.T) {
	for _, bound := range []string{"call", "process"} {
		t.Run(bound, func(t *testing.T) {
			const budget = 100 << 10
			var l *Limits
			var budgets [8]*Budget
			if bound == "call" {
				l = New(DefaultConfig())
				b := l.NewBudget(CallConfig{MaxDecodedBytes: budget})
				for i := range budgets {
					budgets[i] = b
				}
			} else {
				// Eight calls with roomy budgets, bounded only by the process.
				l = New(Config{MaxDecodedBytes: budget})
				for i := range budgets {
					budgets[i] = l.NewBudget(CallConfig{MaxDecodedBytes: 1 << 30})
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			for _, b := range budgets {
				wg.Go(func() {
					r, err := b.AcquireBytes(ctx, 4<<10)
					if err != nil {
						t.Error(err)
						return
					}
					defer r.Release()
					for size := int64(8 << 10); size <= 80<<10; size += 4 << 10 {
						if err := r.Resize(ctx, size); err != nil {
							t.Errorf("Resize(%d): %v", size, err)
							return
						}
						if _, _, n := l.InUse(); n > budget && bound == "process" {
							t.Errorf("process in use %d > %d", n, budget)
						}
						runtime.Gosched()
					}
					if r.Bytes() != 80<<10 {
						t.Errorf("Bytes() = %d, want 80 KiB", r.Bytes())
					}
				})
			}
			wg.Wait()
			if ctx.Err() != nil {
				t.Fatal("growth did not finish within 10 s: wedged")
			}
			checkProcessInUse(t, "all finished", l, 0, 0, 0)
		})
	}
}

// Random calls taking permits in the documented order, with random sizes,
// growth and cancellations, always finish and leave nothing held.
func TestStressNoDeadlockNoLeak(t *testing.T) {
	l := New(Config{MaxParallelPartitions: 3, MaxParallelFiles: 4, MaxDecodedBytes: 1 << 20})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for call := range 6 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(call), 1))
			b := l.NewBudget(CallConfig{MaxParallelPartitions: 2, MaxParallelFiles: 3, MaxDecodedBytes: 512 << 10})
			var pwg sync.WaitGroup
			for range 4 {
				seed := rng.Uint64()
				pwg.Go(func() { partitionWork(ctx, t, b, seed) })
			}
			pwg.Wait()
			checkInUse(t, "call finished", b, 0, 0, 0)
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("stress did not finish within 30 s")
	}
	checkProcessInUse(t, "all finished", l, 0, 0, 0)
}

func partitionWork(ctx context.Context, t *testing.T, b *Budget, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	relP, err := b.AcquirePartition(ctx)
	if err != nil {
		t.Error(err)
		return
	}
	defer relP()
	var wg sync.WaitGroup
	for range 3 {
		fseed := rng.Uint64()
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(fseed, 3))
			fctx := ctx
			if rng.IntN(4) == 0 {
				var cancel context.CancelFunc
				fctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(3000))*time.Microsecond)
				defer cancel()
			}
			relF, err := b.AcquireFile(fctx)
			if err != nil {
				return // only the short-lived contexts may fail
			}
			defer relF()
			r, err := b.AcquireBytes(fctx, rng.Int64N(300<<10))
			if err != nil {
				return
			}
			defer r.Release()
			for range 5 {
				if err := r.Resize(fctx, rng.Int64N(2<<20)); err != nil {
					return
				}
				runtime.Gosched()
			}
		})
	}
	wg.Wait()
}

func BenchmarkAcquireReleasePartition(b *testing.B) {
	bd := New(DefaultConfig()).NewBudget(testCall)
	ctx := context.Background()
	for b.Loop() {
		rel, _ := bd.AcquirePartition(ctx)
		rel()
	}
}

func BenchmarkAcquireReleaseBytes(b *testing.B) {
	bd := New(DefaultConfig()).NewBudget(testCall)
	ctx := context.Background()
	for b.Loop() {
		r, _ := bd.AcquireBytes(ctx, 4<<20)
		r.Release()
	}
}

func BenchmarkResizeGrowShrink(b *testing.B) {
	bd := New(DefaultConfig()).NewBudget(testCall)
	ctx := context.Background()
	r, _ := bd.AcquireBytes(ctx, 1<<20)
	for b.Loop() {
		_ = r.Resize(ctx, 8<<20)
		_ = r.Resize(ctx, 1<<20)
	}
	r.Release()
}

func BenchmarkAcquireReleaseBytesParallel(b *testing.B) {
	l := New(DefaultConfig())
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		bd := l.NewBudget(testCall)
		for pb.Next() {
			r, _ := bd.AcquireBytes(ctx, 4<<20)
			r.Release()
		}
	})
}

// TestShare: a share holds its bytes in the call and the process, lends
// only them (capping larger requests), shares the permits, and gives them
// back on release.
func TestShare(t *testing.T) {
	ctx := context.Background()
	l := New(Config{MaxParallelPartitions: 4, MaxParallelFiles: 4, MaxDecodedBytes: 1000})
	b := l.NewBudget(CallConfig{MaxParallelPartitions: 2, MaxParallelFiles: 2, MaxDecodedBytes: 600})
	share, held, err := b.Share(ctx, 400)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, got := b.InUse(); got != 400 {
		t.Fatalf("call holds %d bytes, want 400", got)
	}
	if _, _, got := l.InUse(); got != 400 {
		t.Fatalf("process holds %d bytes, want 400", got)
	}
	big, err := share.AcquireBytes(ctx, 10_000) // capped to the share
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := share.TryAcquireBytes(1); ok {
		t.Fatal("the share lent more than it holds")
	}
	// Other holders of the call's budget are not affected by the share's use.
	if r, ok := b.TryAcquireBytes(200); !ok {
		t.Fatal("the rest of the call's budget is not available")
	} else {
		r.Release()
	}
	big.Release()
	if r, ok := share.TryAcquireBytes(400); !ok {
		t.Fatal("released share bytes are not available again")
	} else {
		r.Release()
	}
	rel, err := share.AcquireFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, files, _ := b.InUse(); files != 1 {
		t.Fatalf("a share's file permit is not the call's: call holds %d", files)
	}
	rel()
	held.Release()
	if _, _, got := l.InUse(); got != 0 {
		t.Fatalf("process holds %d bytes after release", got)
	}
}
