package snapshot

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// Commit is one entry of a table's history.
type Commit struct {
	Version int64
	// Timestamp is the time time travel resolves the version by: its
	// in-commit timestamp where the table has them, else its commit file's
	// time (made increasing), as Spark's DESCRIBE HISTORY shows it.
	Timestamp time.Time
	Info      *protocol.CommitInfo
}

// History returns up to limit commits, newest first (all when limit <= 0).
// Versions whose commit file was cleaned up are not listed. It reads the
// log's actions, never the schema, so it lists a table this engine cannot
// read too.
func History(ctx context.Context, st storage.Store, limit int) ([]Commit, error) {
	head, err := replay(ctx, st, -1)
	if err != nil {
		return nil, err
	}
	tl, err := newTimeline(ctx, head)
	if err != nil {
		return nil, err
	}
	versions := slices.Clone(tl.versions)
	slices.Reverse(versions)
	if limit > 0 && len(versions) > limit {
		versions = versions[:limit]
	}
	out := make([]Commit, len(versions))
	errOut := make([]error, len(versions))
	sem := make(chan struct{}, commitReadAhead)
	var wg sync.WaitGroup
	for i, v := range versions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ci, err := readCommitInfo(ctx, st, tl.l.commits[v].Key)
			var ms int64
			if err == nil {
				read := ci
				if read == nil {
					read = &protocol.CommitInfo{} // read, and without commitInfo
				}
				ms, err = tl.at(ctx, v, read)
			}
			if err != nil {
				errOut[i] = err
				return
			}
			out[i] = Commit{Version: v, Timestamp: time.UnixMilli(ms).UTC(), Info: ci}
		}()
	}
	wg.Wait()
	for _, err := range errOut {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readCommitInfo returns the commitInfo of a commit, or nil if it has none.
func readCommitInfo(ctx context.Context, st storage.Store, key string) (*protocol.CommitInfo, error) {
	actions, err := readCommit(ctx, st, key)
	if err != nil {
		return nil, err
	}
	for _, a := range actions {
		if a.CommitInfo != nil {
			return a.CommitInfo, nil
		}
	}
	return nil, nil
}

// LoadAt builds the snapshot of the newest version committed at or before
// ts, by the commit times of timeline. A ts before the earliest recoverable
// commit is deltalite.ErrNotFound; one after the latest commit is
// deltalite.ErrInvalidArgument naming that commit's time, as Spark refuses it.
func LoadAt(ctx context.Context, st storage.Store, ts time.Time) (*Snapshot, error) {
	latest, err := Load(ctx, st)
	if err != nil {
		return nil, err
	}
	tl, err := newTimeline(ctx, latest)
	if err != nil {
		return nil, err
	}
	v, err := tl.versionAt(ctx, ts)
	if err != nil {
		return nil, err
	}
	if v == latest.version {
		return latest, nil
	}
	return LoadVersion(ctx, st, v)
}

// CommitTimestamp is the commit time of this snapshot's version, the one
// History reports and time travel resolves by.
func (s *Snapshot) CommitTimestamp(ctx context.Context) (time.Time, error) {
	tl, err := newTimeline(ctx, s)
	if err != nil {
		return time.Time{}, err
	}
	ms, err := tl.at(ctx, s.version, nil)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms).UTC(), nil
}
