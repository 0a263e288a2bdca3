package asset

import (
	"context"
	"slices"
	"sync"

	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/internal/errs"
)

// claim is what one run of an asset holds while it runs: the whole asset
// or some partition keys of it, exclusively (an Exclusive action) or
// shared (a materialization, a non-exclusive action).
type claim struct {
	asset     string
	exclusive bool
	keys      []string // empty: the whole asset
}

// conflicts reports whether c and o may not run at once: the same asset,
// at least one exclusive, and overlapping coverage. Shared claims never
// conflict, so materializations never exclude each other.
func (c *claim) conflicts(o *claim) bool {
	if c.asset != o.asset || (!c.exclusive && !o.exclusive) {
		return false
	}
	if len(c.keys) == 0 || len(o.keys) == 0 {
		return true
	}
	for _, k := range c.keys {
		if slices.Contains(o.keys, k) {
			return true
		}
	}
	return false
}

// claims grants claims first come, first served: a claim waits while it
// conflicts with a held claim or with one queued before it, so a stream
// of materializations cannot starve an exclusive action.
type claims struct {
	mu      sync.Mutex
	held    []*claim
	queue   []*claim
	changed chan struct{} // closed and replaced whenever held or queue shrinks
}

// claim waits until c may run in this process and, when the state store
// is a state.Claimer (state.File: a directory other processes may share),
// in every process sharing it; it returns the release of both.
func (r *Repository) claim(ctx context.Context, c *claim) (func(), error) {
	release, err := r.claims.acquire(ctx, c)
	if err != nil {
		return nil, err
	}
	cl, ok := r.store.(state.Claimer)
	if !ok {
		return release, nil
	}
	releaseShared, err := cl.Claim(ctx, c.asset, c.keys, c.exclusive)
	if err != nil {
		release()
		return nil, err
	}
	return func() { releaseShared(); release() }, nil
}

// acquire waits until c may run and returns the function that releases
// it, or an error when ctx ends first.
func (m *claims) acquire(ctx context.Context, c *claim) (release func(), err error) {
	m.mu.Lock()
	m.queue = append(m.queue, c)
	for {
		if m.grantable(c) {
			m.queue = remove(m.queue, c)
			m.held = append(m.held, c)
			m.mu.Unlock()
			return func() { m.drop(c) }, nil
		}
		if m.changed == nil {
			m.changed = make(chan struct{})
		}
		ch := m.changed
		m.mu.Unlock()
		select {
		case <-ch:
			m.mu.Lock()
		case <-ctx.Done():
			m.mu.Lock()
			m.queue = remove(m.queue, c)
			m.wake()
			m.mu.Unlock()
			return nil, errs.Wrap(errs.Canceled, "", ctx.Err(), "asset %q: waiting for a conflicting run to finish", c.asset)
		}
	}
}

func (m *claims) grantable(c *claim) bool {
	for _, h := range m.held {
		if c.conflicts(h) {
			return false
		}
	}
	for _, q := range m.queue {
		if q == c {
			return true
		}
		if c.conflicts(q) {
			return false
		}
	}
	return true
}

func (m *claims) drop(c *claim) {
	m.mu.Lock()
	m.held = remove(m.held, c)
	m.wake()
	m.mu.Unlock()
}

// wake lets every waiter look again; m.mu is held.
func (m *claims) wake() {
	if m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
}

// waiting counts the claims queued on asset (for tests that must know a
// run is blocked before they let the blocking one finish).
func (m *claims) waiting(asset string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, q := range m.queue {
		if q.asset == asset {
			n++
		}
	}
	return n
}

func remove(s []*claim, c *claim) []*claim {
	return slices.DeleteFunc(s, func(x *claim) bool { return x == c })
}
