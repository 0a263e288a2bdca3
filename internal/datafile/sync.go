package datafile

import (
	"context"
	"sync"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
)

// syncParallel bounds the files being synced at once.
const syncParallel = 2

// syncer makes finished data files durable while the Writer encodes the
// next ones, so that a commit waits only for the last few. Stores that are
// durable on Put (no storage.Syncer) need nothing.
type syncer struct {
	ctx   context.Context
	st    storage.Store
	sem   chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	first error
}

func newSyncer(ctx context.Context, st storage.Store) syncer {
	if _, ok := st.(storage.Syncer); !ok {
		return syncer{}
	}
	return syncer{ctx: ctx, st: st, sem: make(chan struct{}, syncParallel)}
}

// start syncs key in the background.
func (s *syncer) start(key string) {
	if s.st == nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.sem <- struct{}{}
		defer func() { <-s.sem }()
		if err := storage.Sync(s.ctx, s.st, key); err != nil {
			s.mu.Lock()
			if s.first == nil {
				s.first = errs.Wrap(errs.Internal, key, err, "syncing data file")
			}
			s.mu.Unlock()
		}
	}()
}

// wait returns once every started sync ended, with the first failure.
func (s *syncer) wait() error {
	if s.st == nil {
		return nil
	}
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first
}
