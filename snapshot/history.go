package snapshot

import (
	"context"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// Commit is one entry of a table's history.
type Commit struct {
	Version   int64
	Timestamp time.Time // in-commit timestamp when the table has them, else the commit time
	Info      *protocol.CommitInfo
}

// History returns up to limit commits, newest first (all when limit <= 0).
// Versions whose commit file was cleaned up are not listed.
func History(ctx context.Context, st storage.Store, limit int) ([]Commit, error) {
	l, err := listLog(ctx, st, 0)
	if err != nil {
		return nil, err
	}
	if len(l.commits) == 0 && len(l.checkpoints) == 0 {
		return nil, errs.New(errs.TableNotFound, st.URL(), "no Delta transaction log (_delta_log) found")
	}
	versions := make([]int64, 0, len(l.commits))
	for v := range l.commits {
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] > versions[j] })
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
			obj := l.commits[v]
			ci, err := readCommitInfo(ctx, st, obj.Key)
			if err != nil {
				errOut[i] = err
				return
			}
			out[i] = Commit{Version: v, Timestamp: commitTime(ci, obj.ModTime), Info: ci}
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

// commitTime prefers the in-commit timestamp, then the time the writer
// recorded in commitInfo, then the commit file's time.
func commitTime(ci *protocol.CommitInfo, mod time.Time) time.Time {
	switch {
	case ci != nil && ci.InCommitTimestamp != nil:
		return time.UnixMilli(*ci.InCommitTimestamp).UTC()
	case ci != nil && ci.Timestamp != nil:
		return time.UnixMilli(*ci.Timestamp).UTC()
	}
	return mod.UTC()
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
// ts. Commit times are in-commit timestamps from the version that enabled
// them on, and commit file times before (made monotonic, as Delta readers
// do). A ts after the last commit gives the latest version; one before the
// earliest recoverable commit is an error.
func LoadAt(ctx context.Context, st storage.Store, ts time.Time) (*Snapshot, error) {
	latest, err := Load(ctx, st)
	if err != nil {
		return nil, err
	}
	l, err := listLog(ctx, st, 0)
	if err != nil {
		return nil, err
	}
	earliest := earliestRecoverable(l)
	var versions []int64
	for v := range l.commits {
		if v >= earliest && v <= latest.version {
			versions = append(versions, v)
		}
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
	if len(versions) == 0 {
		return latest, nil
	}
	target := ts.UnixMilli()
	ictFrom, ictOn := ictEnablement(latest)

	// Versions before ictFrom use monotonic file times.
	found := int64(-1)
	prev := int64(-1 << 62)
	for _, v := range versions {
		if ictOn && v >= ictFrom {
			break
		}
		t := max(l.commits[v].ModTime.UnixMilli(), prev+1)
		prev = t
		if t <= target {
			found = v
		}
	}
	if ictOn {
		// In-commit timestamps are monotonic: binary search them.
		idx := sort.Search(len(versions), func(i int) bool { return versions[i] >= ictFrom })
		ict := versions[idx:]
		var searchErr error
		n := sort.Search(len(ict), func(i int) bool {
			ci, err := readCommitInfo(ctx, st, l.commits[ict[i]].Key)
			if err != nil {
				searchErr = err
				return true
			}
			if ci == nil || ci.InCommitTimestamp == nil {
				searchErr = errs.New(errs.CorruptTable, l.commits[ict[i]].Key, "in-commit timestamps are enabled but the commit has none")
				return true
			}
			return *ci.InCommitTimestamp > target
		})
		if searchErr != nil {
			return nil, searchErr
		}
		if n > 0 {
			found = ict[n-1]
		}
	}
	if found < 0 {
		return nil, errs.New(errs.NotFound, st.URL(), "no version of the table was committed at or before %s (the earliest recoverable version is %d)",
			ts.UTC().Format(time.RFC3339), versions[0])
	}
	if found == latest.version {
		return latest, nil
	}
	return LoadVersion(ctx, st, found)
}

// earliestRecoverable is the oldest version a snapshot can be built for:
// 0 when commit 0 exists, else the oldest checkpoint.
func earliestRecoverable(l *listing) int64 {
	if _, ok := l.commits[0]; ok {
		return 0
	}
	e := int64(-1)
	for v := range l.checkpoints {
		if e < 0 || v < e {
			e = v
		}
	}
	return max(e, 0)
}

// ictEnablement reports whether in-commit timestamps are on and from which
// version.
func ictEnablement(s *Snapshot) (int64, bool) {
	props := s.Properties()
	if props["delta.enableInCommitTimestamps"] != "true" {
		return 0, false
	}
	if v, err := strconv.ParseInt(props["delta.inCommitTimestampEnablementVersion"], 10, 64); err == nil {
		return v, true
	}
	return 0, true
}

// CommitTimestamp is the commit time of this snapshot's version.
func (s *Snapshot) CommitTimestamp(ctx context.Context) (time.Time, error) {
	ci, err := readCommitInfo(ctx, s.store, protocol.CommitKey(s.version))
	if err != nil {
		return time.Time{}, err
	}
	return commitTime(ci, s.modTime), nil
}
