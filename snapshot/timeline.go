package snapshot

import (
	"context"
	"sort"
	"strconv"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// timeline is when each version was committed, the one answer that time
// travel, restore, history and CommitTimestamp share, as Delta's history
// manager defines it: the in-commit timestamp from the version that enabled
// them on, and before that the commit file's modification time, made
// strictly increasing (a file not later than the one before counts one
// millisecond after it). commitInfo's own timestamp is never used: a writer
// takes it before the file exists, so it can precede the time travel
// resolves its version by.
type timeline struct {
	st       storage.Store
	l        *listing
	latest   int64
	versions []int64         // listed commits up to latest, ascending
	fileTime map[int64]int64 // milliseconds, for versions before ictFrom
	ictFrom  int64           // first version with in-commit timestamps; latest+1 when off
	ictCache map[int64]int64
}

// newTimeline lists the log and dates the versions up to the one head
// shows, by head's in-commit timestamp settings.
func newTimeline(ctx context.Context, head *Snapshot) (*timeline, error) {
	l, err := listLog(ctx, head.store, 0)
	if err != nil {
		return nil, err
	}
	tl := &timeline{st: head.store, l: l, latest: head.version, fileTime: map[int64]int64{},
		ictFrom: head.version + 1, ictCache: map[int64]int64{}}
	if from, on := ictEnablement(head); on {
		tl.ictFrom = from
	}
	for v := range l.commits {
		if v <= head.version {
			tl.versions = append(tl.versions, v)
		}
	}
	sort.Slice(tl.versions, func(i, j int) bool { return tl.versions[i] < tl.versions[j] })
	prev := int64(-1 << 62)
	for _, v := range tl.versions {
		if v >= tl.ictFrom {
			break
		}
		prev = max(l.commits[v].ModTime.UnixMilli(), prev+1)
		tl.fileTime[v] = prev
	}
	return tl, nil
}

// ictEnablement reports whether in-commit timestamps are on and from which
// version (0 when the table does not say: on for every version).
func ictEnablement(s *Snapshot) (int64, bool) {
	if s.state.Metadata == nil {
		return 0, false // a log History reads without its metaData
	}
	props := s.Properties()
	if props[protocol.PropEnableInCommitTimestamps] != "true" {
		return 0, false
	}
	if v, err := strconv.ParseInt(props[protocol.PropICTEnablementVersion], 10, 64); err == nil {
		return v, true
	}
	return 0, true
}

// at is the commit time of version v in milliseconds; ci is v's commitInfo
// when the caller has read it (nil to read it here when needed).
func (tl *timeline) at(ctx context.Context, v int64, ci *protocol.CommitInfo) (int64, error) {
	if v < tl.ictFrom {
		if t, ok := tl.fileTime[v]; ok {
			return t, nil
		}
		return 0, errs.New(errs.NotFound, tl.st.URL(), "the commit file of version %d is gone (cleaned up), so its commit time is unknown", v)
	}
	if ci == nil {
		if t, ok := tl.ictCache[v]; ok {
			return t, nil
		}
		obj, ok := tl.l.commits[v]
		if !ok {
			return 0, errs.New(errs.NotFound, tl.st.URL(), "the commit file of version %d is gone (cleaned up), so its commit time is unknown", v)
		}
		var err error
		if ci, err = readCommitInfo(ctx, tl.st, obj.Key); err != nil {
			return 0, err
		}
		if ci != nil && ci.InCommitTimestamp != nil {
			tl.ictCache[v] = *ci.InCommitTimestamp
		}
	}
	if ci == nil || ci.InCommitTimestamp == nil {
		return 0, errs.New(errs.CorruptTable, protocol.CommitKey(v), "in-commit timestamps are enabled but the commit has none")
	}
	return *ci.InCommitTimestamp, nil
}

// versionAt is the newest version committed at or before ts. As in Spark,
// a ts before the earliest recoverable commit is deltalite.ErrNotFound, and one
// after the latest commit deltalite.ErrInvalidArgument naming that commit's time:
// the version current then is not known yet.
func (tl *timeline) versionAt(ctx context.Context, ts time.Time) (int64, error) {
	earliest := earliestRecoverable(tl.l)
	i := sort.Search(len(tl.versions), func(i int) bool { return tl.versions[i] >= earliest })
	versions := tl.versions[i:]
	if len(versions) == 0 {
		return tl.latest, nil // no commit file to date: only the checkpoint's version exists
	}
	target := ts.UnixMilli()
	// Commit times increase with the version: find the first one after ts.
	var searchErr error
	n := sort.Search(len(versions), func(i int) bool {
		t, err := tl.at(ctx, versions[i], nil)
		if err != nil && searchErr == nil {
			searchErr = err
		}
		return err != nil || t > target
	})
	if searchErr != nil {
		return 0, searchErr
	}
	if n == 0 {
		return 0, errs.New(errs.NotFound, tl.st.URL(), "no version of the table was committed at or before %s (the earliest recoverable version is %d)",
			formatTime(ts), versions[0])
	}
	found := versions[n-1]
	if found == tl.latest {
		if err := tl.notAfterLatest(ctx, ts, "or none to read the latest version"); err != nil {
			return 0, err
		}
	}
	return found, nil
}

// notAfterLatest refuses a ts after the latest commit, as Spark does
// (DELTA_TIMESTAMP_GREATER_THAN_COMMIT): what that version holds then is
// not known yet. or is the other choice the caller has.
func (tl *timeline) notAfterLatest(ctx context.Context, ts time.Time, or string) error {
	last, err := tl.at(ctx, tl.latest, nil)
	if err != nil {
		return err
	}
	if last < ts.UnixMilli() {
		lt := formatTime(time.UnixMilli(last))
		return errs.New(errs.InvalidArgument, tl.st.URL(),
			"timestamp %s is after the latest commit (version %d at %s): use a timestamp at or before %s, %s",
			formatTime(ts), tl.latest, lt, lt, or)
	}
	return nil
}

// versionFrom is the oldest version committed at or after ts, the start
// of a change data feed read by timestamp (Spark's starting version of a
// stream): a ts before every commit is the oldest commit, one after the
// latest commit is refused as versionAt refuses it.
func (tl *timeline) versionFrom(ctx context.Context, ts time.Time) (int64, error) {
	if err := tl.notAfterLatest(ctx, ts, "or a version"); err != nil {
		return 0, err
	}
	target := ts.UnixMilli()
	var searchErr error
	n := sort.Search(len(tl.versions), func(i int) bool {
		t, err := tl.at(ctx, tl.versions[i], nil)
		if err != nil && searchErr == nil {
			searchErr = err
		}
		return err != nil || t >= target
	})
	if searchErr != nil {
		return 0, searchErr
	}
	if n == len(tl.versions) {
		return tl.latest, nil
	}
	return tl.versions[n], nil
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

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
