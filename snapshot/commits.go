package snapshot

import (
	"context"
	"iter"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
)

// LogCommit is one commit of the log: its actions and its commit time.
type LogCommit struct {
	Version int64
	// Timestamp is the version's commit time, as History reports it.
	Timestamp time.Time
	Actions   []protocol.Action
}

// Commits yields the commits from..to (both included, to at most s's
// version) in order, reading one commit file at a time. A commit file that
// is gone (cleaned up) ends the sequence with deltalite.ErrNotFound naming
// the version.
func (s *Snapshot) Commits(ctx context.Context, from, to int64) iter.Seq2[LogCommit, error] {
	return func(yield func(LogCommit, error) bool) {
		tl, err := newTimeline(ctx, s)
		if err != nil {
			yield(LogCommit{}, err)
			return
		}
		for v := max(from, 0); v <= min(to, s.version); v++ {
			obj, ok := tl.l.commits[v]
			if !ok {
				yield(LogCommit{}, errs.New(errs.NotFound, s.store.URL(),
					"the commit file of version %d is gone (cleaned up by the log retention, delta.logRetentionDuration): read from a later version", v))
				return
			}
			actions, err := readCommit(ctx, s.store, obj.Key)
			if err != nil {
				yield(LogCommit{}, err)
				return
			}
			ci := &protocol.CommitInfo{} // read, and without commitInfo
			for _, a := range actions {
				if a.CommitInfo != nil {
					ci = a.CommitInfo
				}
			}
			ms, err := tl.at(ctx, v, ci)
			if err != nil {
				yield(LogCommit{}, err)
				return
			}
			if !yield(LogCommit{Version: v, Timestamp: time.UnixMilli(ms).UTC(), Actions: actions}, nil) {
				return
			}
		}
	}
}

// VersionAt is the newest version committed at or before ts, the version
// time travel to ts reads (errors as LoadAt's).
func (s *Snapshot) VersionAt(ctx context.Context, ts time.Time) (int64, error) {
	tl, err := newTimeline(ctx, s)
	if err != nil {
		return 0, err
	}
	return tl.versionAt(ctx, ts)
}

// VersionFrom is the oldest version committed at or after ts: where a
// change data feed read from ts starts. A ts before every commit is the
// oldest commit; one after the latest is deltalite.ErrInvalidArgument
// naming the latest commit's time.
func (s *Snapshot) VersionFrom(ctx context.Context, ts time.Time) (int64, error) {
	tl, err := newTimeline(ctx, s)
	if err != nil {
		return 0, err
	}
	return tl.versionFrom(ctx, ts)
}
