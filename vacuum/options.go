package vacuum

import (
	"sync"
	"time"
)

// Defaults of the options.
const (
	// DefaultRetention applies when neither the call nor the table's
	// delta.deletedFileRetentionDuration says otherwise.
	DefaultRetention = 7 * 24 * time.Hour
	// DefaultMaxParallelList is how many key ranges are listed at once on
	// an object store.
	DefaultMaxParallelList = 8
	// DefaultMaxParallelDeletes is how many delete batches run at once.
	DefaultMaxParallelDeletes = 4
	// DefaultDeleteBatchSize is the keys of one Delete call: S3's
	// DeleteObjects takes at most 1000.
	DefaultDeleteBatchSize = 1000
)

// Options configure one vacuum. The zero value is a full vacuum with the
// table's retention, enforced.
type Options struct {
	// RetentionHours keeps files removed within that many hours; nil takes
	// the table's delta.deletedFileRetentionDuration (default 7 days).
	// Hours(0) deletes every unneeded file at once, which needs
	// NoEnforceRetention.
	RetentionHours *int
	// NoEnforceRetention allows a retention below the table's, at the risk
	// of deleting files a concurrent writer is about to commit.
	NoEnforceRetention bool
	// DryRun lists the files a vacuum would delete, deletes nothing and
	// commits nothing.
	DryRun bool
	// Lite deletes only the files of expired tombstones still in the log,
	// without listing the storage: orphans of failed writes, their
	// temporary files included, stay for a full vacuum.
	Lite bool
	// MaxParallelList is how many key ranges are listed at once on S3 and
	// GCS (default 8); the local file system and Azure are listed once.
	MaxParallelList int
	// MaxParallelDeletes is how many Delete calls run at once (default 4).
	MaxParallelDeletes int
	// DeleteBatchSize is how many keys one Delete call takes (default 1000).
	DeleteBatchSize int
	// Now is the clock the retention counts back from (default time.Now).
	Now func() time.Time
	// CommitMaxRetries is how many times a VACUUM START or END commit that
	// lost the race for a version is retried (default 15); negative: none.
	CommitMaxRetries int
	// CommitMetadata is merged into both commits' commitInfo.
	CommitMetadata map[string]any
	// Progress, when set, is called every 1000 objects listed and after
	// each delete batch, never concurrently.
	Progress func(Progress)
}

// Hours returns a RetentionHours value.
func Hours(h int) *int { return &h }

func (o Options) withDefaults() Options {
	if o.MaxParallelList <= 0 {
		o.MaxParallelList = DefaultMaxParallelList
	}
	if o.MaxParallelDeletes <= 0 {
		o.MaxParallelDeletes = DefaultMaxParallelDeletes
	}
	if o.DeleteBatchSize <= 0 {
		o.DeleteBatchSize = DefaultDeleteBatchSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Progress reports a running vacuum.
type Progress struct {
	// Listed is the objects listed so far (full mode).
	Listed int
	// Deleted of ToDelete files are deleted (0 of 0 while listing).
	Deleted, ToDelete int
	Elapsed           time.Duration
}

// progress serialises Options.Progress calls and keeps their counts.
type progress struct {
	mu    sync.Mutex
	fn    func(Progress)
	start time.Time
	p     Progress
}

func newProgress(fn func(Progress)) *progress { return &progress{fn: fn, start: time.Now()} }

// add counts listed objects and deleted files, reporting when a report
// is due: every 1000 objects listed, every batch deleted.
func (r *progress) add(listed, deleted int) {
	if r == nil || r.fn == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	before := r.p.Listed / 1000
	r.p.Listed += listed
	r.p.Deleted += deleted
	if deleted > 0 || r.p.Listed/1000 != before {
		r.p.Elapsed = time.Since(r.start)
		r.fn(r.p)
	}
}

func (r *progress) toDelete(n int) {
	if r != nil {
		r.mu.Lock()
		r.p.ToDelete = n
		r.mu.Unlock()
	}
}
