package limits

import (
	"container/list"
	"context"
	"sync"
	"sync/atomic"
)

// sem is a weighted semaphore that serves waiters in FIFO order, so a large
// request is not starved by a stream of small ones, and counts what is held
// and who waits, for InUse and gauges. One exception to the order: a holder
// may grow into free capacity ahead of the queue (grow). Its work is under
// way; sending it to the back of the queue would leave its data in memory
// with nothing reserved while queued requests that could not start before
// start now.
type sem struct {
	size    int64
	mu      sync.Mutex
	cur     int64        // held, under mu
	queue   list.List    // of *waiter, under mu
	used    atomic.Int64 // cur, for reads without the lock
	waiting atomic.Int64
}

type waiter struct {
	n     int64
	ready chan struct{} // closed once n is held for the waiter
}

func newSem(size int64) *sem {
	return &sem{size: max(size, 1)}
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
		return nil // zero is free, even behind waiters
	}
	s.mu.Lock()
	if s.queue.Len() == 0 && s.take(n) {
		s.mu.Unlock()
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	elem := s.queue.PushBack(w)
	s.waiting.Add(1)
	s.mu.Unlock()
	defer s.waiting.Add(-1)
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-w.ready: // granted as the context ended: give it back
		s.cur -= n
		s.used.Add(-n)
	default:
		s.queue.Remove(elem)
	}
	s.wake() // whoever queued behind this waiter may fit now
	return ctx.Err()
}

// tryAcquire takes n only if it is free and nobody waits.
func (s *sem) tryAcquire(n int64) bool {
	if n == 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queue.Len() == 0 && s.take(n)
}

// grow takes n more for a holder if it is free, whoever waits.
func (s *sem) grow(n int64) bool {
	if n == 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.take(n)
}

// release returns n and hands what is free to the waiters in order.
func (s *sem) release(n int64) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur -= n
	s.used.Add(-n)
	s.wake()
}

// take holds n if it fits; mu is held.
func (s *sem) take(n int64) bool {
	if s.size-s.cur < n {
		return false
	}
	s.cur += n
	s.used.Add(n)
	return true
}

// wake grants waiters from the front of the queue while they fit; mu is held.
func (s *sem) wake() {
	for e := s.queue.Front(); e != nil; e = s.queue.Front() {
		w := e.Value.(*waiter)
		if !s.take(w.n) {
			return
		}
		s.queue.Remove(e)
		close(w.ready)
	}
}
