package limits

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// ErrReleased is returned by Resize on a reservation that was already released.
var ErrReleased = errors.New("limits: reservation already released")

// errConcurrentResize reports a misuse that would otherwise lose track of bytes.
var errConcurrentResize = errors.New("limits: Resize called concurrently on one reservation")

// CallConfig holds the per-call bounds of one operation, resolved by the
// operation (which owns their defaults): a zero or negative field is 1.
type CallConfig struct {
	MaxParallelPartitions int   // partitions worked on at once
	MaxParallelFiles      int   // files read at once, over all partitions
	MaxDecodedBytes       int64 // decoded bytes held at once
}

// normalized raises fields below 1 to 1, so that a budget always lets
// work through one at a time.
func (c CallConfig) normalized() CallConfig {
	c.MaxParallelPartitions = max(c.MaxParallelPartitions, 1)
	c.MaxParallelFiles = max(c.MaxParallelFiles, 1)
	c.MaxDecodedBytes = max(c.MaxDecodedBytes, 1)
	return c
}

// Budget is the per-call layer: its own semaphores, checked before the process
// ones of the Limits it came from. It is safe for concurrent use by the call's
// goroutines.
type Budget struct {
	lim        *Limits
	cfg        CallConfig
	partitions *sem
	files      *sem
	bytes      *sem
}

// NewBudget returns a per-call budget layered under l, with c's bounds
// (fields below 1 become 1). A nil l stands for Process().
func (l *Limits) NewBudget(c CallConfig) *Budget {
	l = l.orProcess()
	c = c.normalized()
	return &Budget{
		lim:        l,
		cfg:        c,
		partitions: newSem(int64(c.MaxParallelPartitions)),
		files:      newSem(int64(c.MaxParallelFiles)),
		bytes:      newSem(c.MaxDecodedBytes),
	}
}

// Config returns the call's knobs after defaults were applied.
func (b *Budget) Config() CallConfig { return b.cfg }

// Limits returns the process layer this budget draws from.
func (b *Budget) Limits() *Limits { return b.lim }

// acquireBoth takes n from local, then the process's share from global. On
// failure nothing stays held.
func acquireBoth(ctx context.Context, local, global *sem, localN, globalN int64) error {
	if err := local.acquire(ctx, localN); err != nil {
		return err
	}
	if err := global.acquire(ctx, globalN); err != nil {
		local.release(localN)
		return err
	}
	return nil
}

// permitRelease returns an idempotent release of one local and one process permit.
func permitRelease(local, global *sem) func() {
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			global.release(1)
			local.release(1)
		}
	}
}

// AcquirePartition takes one partition permit, the call's first and then the
// process's. The returned release is idempotent. On error (the context ended)
// nothing is held.
func (b *Budget) AcquirePartition(ctx context.Context) (release func(), err error) {
	if err := acquireBoth(ctx, b.partitions, b.lim.partitions, 1, 1); err != nil {
		return func() {}, err
	}
	return permitRelease(b.partitions, b.lim.partitions), nil
}

// AcquireFile takes one file-reader permit, the call's first and then the
// process's. A caller holding a partition permit may take file permits, never
// the other way round. The returned release is idempotent. On error nothing is
// held.
func (b *Budget) AcquireFile(ctx context.Context) (release func(), err error) {
	if err := acquireBoth(ctx, b.files, b.lim.files, 1, 1); err != nil {
		return func() {}, err
	}
	return permitRelease(b.files, b.lim.files), nil
}

// AcquireBytes reserves n bytes, the call's budget first and then the process's.
// A request larger than either capacity is capped to it, so it waits until it
// can run alone rather than forever. On error (the context ended, or n is
// negative) nothing is held and the reservation is nil.
func (b *Budget) AcquireBytes(ctx context.Context, n int64) (*Reservation, error) {
	if n < 0 {
		return nil, fmt.Errorf("limits: cannot reserve a negative number of bytes (%d)", n)
	}
	local, global := b.bytes.capped(n), b.lim.bytes.capped(n)
	if err := acquireBoth(ctx, b.bytes, b.lim.bytes, local, global); err != nil {
		return nil, err
	}
	return &Reservation{b: b, want: n, local: local, global: global}, nil
}

// Share reserves n bytes of the budget (capped and waited for as
// AcquireBytes does) and returns them as a budget of their own: its
// AcquireBytes draws only on the share, while its partition and file
// permits are this budget's. A group of goroutines serving one part of the
// call (one partition's readers) works within a share, so that another
// group holding every byte cannot stall it. Its Config is this budget's
// with MaxDecodedBytes the share, so that readers sizing their batches by
// it fit the share. Release the reservation once the group is done; the
// share must not be used after that.
func (b *Budget) Share(ctx context.Context, n int64) (*Budget, *Reservation, error) {
	res, err := b.AcquireBytes(ctx, n)
	if err != nil {
		return nil, nil, err
	}
	lim := &Limits{cfg: b.lim.cfg, partitions: b.lim.partitions, files: b.lim.files, bytes: newSem(math.MaxInt64)}
	cfg := b.cfg
	cfg.MaxDecodedBytes = min(res.local, res.global)
	return &Budget{lim: lim, cfg: cfg, partitions: b.partitions, files: b.files,
		bytes: newSem(min(res.local, res.global))}, res, nil
}

// TryAcquireBytes reserves n bytes only if both layers have them free and
// nobody is waiting, without blocking: for optional memory such as caches,
// which must never wait on the budget.
func (b *Budget) TryAcquireBytes(n int64) (*Reservation, bool) {
	if n < 0 {
		return nil, false
	}
	local, global := b.bytes.capped(n), b.lim.bytes.capped(n)
	if !b.bytes.tryAcquire(local) {
		return nil, false
	}
	if !b.lim.bytes.tryAcquire(global) {
		b.bytes.release(local)
		return nil, false
	}
	return &Reservation{b: b, want: n, local: local, global: global}, true
}

// InUse reports what this call holds right now.
func (b *Budget) InUse() (partitions, files int, bytes int64) {
	return int(b.partitions.used.Load()), int(b.files.used.Load()), b.bytes.used.Load()
}

// Reservation is a number of bytes held from a Budget and its process limits.
// One goroutine at a time may Resize it; Release may be called from anywhere,
// any number of times.
type Reservation struct {
	b        *Budget
	mu       sync.Mutex
	want     int64 // the size asked for; what is held may be capped below it
	local    int64 // held from the call's budget
	global   int64 // held from the process's budget
	released bool
	resizing bool
}

// Bytes returns the size last asked for (before any capping), or 0 after Release
// or after a Resize that failed.
func (r *Reservation) Bytes() int64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.want
}

// Resize changes the reservation to n bytes. Shrinking returns the difference at
// once. Growing takes the difference if it is free without waiting, ahead of
// acquisitions queued for the budget (their work has not started); otherwise it
// returns everything held and then waits for the new total, so a reservation
// never waits while holding bytes (two growing reservations that each held their
// bytes while waiting for the other's could block forever). If the wait fails
// (the context ended) the reservation holds nothing and Bytes reports 0; it can
// be resized again or released.
func (r *Reservation) Resize(ctx context.Context, n int64) error {
	if r == nil {
		return ErrReleased
	}
	if n < 0 {
		return fmt.Errorf("limits: cannot resize a reservation to a negative number of bytes (%d)", n)
	}
	b := r.b
	local, global := b.bytes.capped(n), b.lim.bytes.capped(n)

	r.mu.Lock()
	switch {
	case r.released:
		r.mu.Unlock()
		return ErrReleased
	case r.resizing:
		r.mu.Unlock()
		return errConcurrentResize
	}
	// Capping is monotonic, so both layers move in the same direction.
	if local <= r.local && global <= r.global {
		b.lim.bytes.release(r.global - global)
		b.bytes.release(r.local - local)
		r.want, r.local, r.global = n, local, global
		r.mu.Unlock()
		return nil
	}
	// Fast path: take the difference if free right now, ahead of any queue
	// (the holder's work is under way); no waiting while holding.
	dl, dg := local-r.local, global-r.global
	if b.bytes.grow(dl) {
		if b.lim.bytes.grow(dg) {
			r.want, r.local, r.global = n, local, global
			r.mu.Unlock()
			return nil
		}
		b.bytes.release(dl)
	}
	// Slow path: give everything back, then wait for the new total.
	b.lim.bytes.release(r.global)
	b.bytes.release(r.local)
	r.want, r.local, r.global = 0, 0, 0
	r.resizing = true
	r.mu.Unlock()

	err := acquireBoth(ctx, b.bytes, b.lim.bytes, local, global)

	r.mu.Lock()
	defer r.mu.Unlock()
	r.resizing = false
	if err != nil {
		return err
	}
	if r.released {
		// Released while we waited: what we just took belongs to nobody.
		b.lim.bytes.release(global)
		b.bytes.release(local)
		return ErrReleased
	}
	r.want, r.local, r.global = n, local, global
	return nil
}

// Release returns the bytes to both layers. It is idempotent and safe on nil.
func (r *Reservation) Release() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.released {
		return
	}
	r.released = true
	r.b.lim.bytes.release(r.global)
	r.b.bytes.release(r.local)
	r.want, r.local, r.global = 0, 0, 0
}
