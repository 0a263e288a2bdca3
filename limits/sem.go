package limits

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// sem is a weighted FIFO semaphore that also counts what is held and who waits,
// for InUse and gauges. FIFO order means a large request is not starved by a
// stream of small ones.
type sem struct {
	w       *semaphore.Weighted
	size    int64
	used    atomic.Int64
	waiting atomic.Int64
}

func newSem(size int64) *sem {
	size = max(size, 1)
	return &sem{w: semaphore.NewWeighted(size), size: size}
}

// capped is n limited to the capacity, so an oversized request runs alone
// instead of waiting forever.
func (s *sem) capped(n int64) int64 { return min(max(n, 0), s.size) }

// acquire takes n (already capped) or returns the context's error holding nothing.
func (s *sem) acquire(ctx context.Context, n int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n == 0 {
		// Zero is free; the semaphore would otherwise queue it behind waiters.
		return nil
	}
	if s.w.TryAcquire(n) {
		s.used.Add(n)
		return nil
	}
	s.waiting.Add(1)
	err := s.w.Acquire(ctx, n)
	s.waiting.Add(-1)
	if err != nil {
		return err
	}
	s.used.Add(n)
	return nil
}

func (s *sem) tryAcquire(n int64) bool {
	if n == 0 {
		return true
	}
	if !s.w.TryAcquire(n) {
		return false
	}
	s.used.Add(n)
	return true
}

// release returns n; used drops first so observed use never exceeds the capacity.
func (s *sem) release(n int64) {
	if n == 0 {
		return
	}
	s.used.Add(-n)
	s.w.Release(n)
}
