package update

import (
	"github.com/deltalite-go/deltalite/limits"
)

// Defaults of the options.
const (
	DefaultMaxParallelFiles = limits.DefaultMaxParallelFiles
	DefaultMaxBufferedBytes = limits.DefaultMaxBufferedBytes
	DefaultReadBatchSize    = limits.DefaultReadBatchSize
)

// Options configure one update. Set, and Predicate or All, are required;
// the zero value of every other field means its default.
type Options struct {
	// Set maps a top-level column name to its new value: a SQL expression
	// in Spark's syntax over the row's old values, e.g. "x + 1",
	// "upper(name)", "NULL", "'2026-01-01'". Required.
	Set map[string]string
	// Predicate is the SQL WHERE condition; rows for which it IS TRUE are
	// updated. Required unless All: an empty or blank one is refused.
	Predicate string
	// All updates every row; it takes no Predicate. Asking for it
	// explicitly keeps an unset predicate from rewriting the table.
	All bool
	// MaxParallelFiles is how many files are read at once (default 4).
	MaxParallelFiles int
	// MaxBufferedBytes bounds the data held in memory (default 64 MiB):
	// half for decoded batches, half for the writer's buffers.
	MaxBufferedBytes int64
	// ReadBatchSize caps the rows of a decoded batch (default 8192).
	ReadBatchSize int
	// TargetFileSize is the size of rewritten files; 0 takes the table's
	// delta.targetFileSize, else 100 MiB.
	TargetFileSize int64
	// CopyOnWrite rewrites the files whose rows change even where the table
	// has deletion vectors on (delta.enableDeletionVectors), which by
	// default mark the rows that leave a file instead (the CLI's
	// --deletion-vectors=off).
	CopyOnWrite bool
	// MultipartThreshold and MultipartPartSize size cloud uploads of the
	// rewritten files, as upsert.Options does; 0 keeps the store's.
	MultipartThreshold, MultipartPartSize int64
	// CommitMaxRetries is how many times a commit that lost the race for a
	// version is retried (default 15), and how many times an update whose
	// commit conflicts plans again on the newer table; negative: none.
	CommitMaxRetries int
	// CommitMetadata is merged into commitInfo.
	CommitMetadata map[string]any
	// SessionTimeZone is the time zone this operation reads a TIMESTAMP
	// in, as Spark's spark.sql.session.timeZone: the predicate and the new values, and
	//
	// the table's generated columns and CHECK constraints (CAST(ts AS
	// DATE), hour(ts), date_format(ts, ...), from_unixtime, ...). A region
	// ("America/New_York"), "UTC", "Z" or an offset ("+05:30"); "" is UTC,
	// the default (a table does not record its writers' zone). Give the
	// zone the table's Spark writers run with.
	SessionTimeZone string
	// Limits are the process limits the call's budget draws from (default
	// limits.Process()).
	Limits *limits.Limits
}
