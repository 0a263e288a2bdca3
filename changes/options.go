package changes

import "time"

// The columns the feed adds to the table's.
const (
	ChangeTypeColumn      = "_change_type"
	CommitVersionColumn   = "_commit_version"
	CommitTimestampColumn = "_commit_timestamp"
)

// Values of the _change_type column.
const (
	Insert          = "insert"
	Delete          = "delete"
	UpdatePreimage  = "update_preimage"
	UpdatePostimage = "update_postimage"
)

// Options says which changes to read. The zero value reads every change
// from version 0 to the table's version.
type Options struct {
	// FromVersion is the first version read (default 0).
	FromVersion int64
	// FromTimestamp, when set, starts at the oldest version committed at or
	// after it instead (not with FromVersion).
	FromTimestamp time.Time
	// ToVersion, when set, is the last version read (default: the table's
	// version; a larger one reads up to the table's version).
	ToVersion *int64
	// ToTimestamp, when set, ends at the newest version committed at or
	// before it instead (not with ToVersion).
	ToTimestamp time.Time
	// Columns selects the output columns, by name, in output order: table
	// columns and the three change columns. Nil: every table column, then
	// _change_type, _commit_version, _commit_timestamp.
	Columns []string
	// Where is a SQL predicate on table columns (scan.WithWhere's syntax);
	// only change rows for which it IS TRUE are returned, and files whose
	// partition values and statistics rule out every row are not read.
	Where string
	// SessionTimeZone is the time zone Where reads a TIMESTAMP in
	// (scan.WithSessionTimeZone); "" is UTC.
	SessionTimeZone string
	// BatchSize is the rows per batch read from a file (default
	// scan.DefaultBatchSize).
	BatchSize int
	// Stats, when set, counts what the read does as the reader is read:
	// final once it reports no more batches. Read it after, not while,
	// the reader is in use.
	Stats *Stats
}

// Stats is what a read of the changes did: the commits of the range it
// went through, the files it read (change data files, or the added and
// removed files of commits without them) and their bytes, the files of
// those commits the predicate's partition values and statistics ruled
// out unread, and the change rows returned. Only the files the range's
// commits name are ever read, whatever the table's size.
type Stats struct {
	Commits      int64 `json:"commits"`
	FilesRead    int64 `json:"files_read"`
	BytesRead    int64 `json:"bytes_read"`
	FilesSkipped int64 `json:"files_skipped"`
	Rows         int64 `json:"rows"`
}
