package state

import (
	"context"
	"sync"
)

// Memory is a Store held in memory, for runs that need no record past the
// process (and for tests).
type Memory struct {
	mu sync.Mutex
	d  document
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory { return &Memory{} }

func (m *Memory) Put(_ context.Context, recs ...Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.d.put(recs)
	return nil
}

func (m *Memory) Get(_ context.Context, asset, key string) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i, found := m.d.find(asset, key); found {
		return m.d.Records[i], true, nil
	}
	return Record{}, false, nil
}

func (m *Memory) List(_ context.Context, asset string) ([]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.d.of(asset), nil
}

func (m *Memory) Clear(_ context.Context, asset string, keys ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.d.clear(asset, keys)
	return nil
}
