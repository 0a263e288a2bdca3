package restore

import (
	"time"
)

// DefaultMaxParallelChecks is how many existence checks run at once.
const DefaultMaxParallelChecks = 16

// Options configure one restore. Exactly one of Version and Timestamp must
// be set: the zero value is refused rather than read as version 0.
type Options struct {
	// Version is the version to restore to.
	Version *int64
	// Timestamp restores to the newest version committed at or before it;
	// one after the latest commit is refused (deltalite.ErrInvalidArgument).
	Timestamp time.Time
	// MaxParallelChecks bounds the concurrent lookups of the files to add
	// back (default 16).
	MaxParallelChecks int
	// CommitMetadata is merged into commitInfo.
	CommitMetadata map[string]any
}

// ToVersion is a convenience for Options.Version.
func ToVersion(v int64) *int64 { return &v }
