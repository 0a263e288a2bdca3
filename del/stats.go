package del

import (
	"encoding/json"
	"fmt"
	"time"
)

// Stats describe one delete, as Spark's DELETE metrics do.
type Stats struct {
	// Version is the version the delete committed, or the version it read
	// when it removed nothing and committed nothing.
	Version int64
	// RowsDeleted are the rows removed.
	RowsDeleted int64
	// FilesRemoved are the files removed, whole or rewritten; FilesAdded
	// the files written with the rows they kept.
	FilesRemoved, FilesAdded int
	// RowsCopied are the rows the rewritten files kept (write
	// amplification).
	RowsCopied int64
	// FilesScanned are the data files whose rows were read: files the log
	// could not decide. A delete by partition reads none.
	FilesScanned int
	BytesRemoved int64
	BytesAdded   int64
	// ChangeFilesAdded are the change data files written (a table with
	// the change data feed on).
	ChangeFilesAdded int
	// DeletionVectorsAdded are the files that kept their rows and got a
	// new deletion vector marking the rows that left (a table with
	// deletion vectors on).
	DeletionVectorsAdded int
	// ExecutionDuration is the whole call; ScanDuration planning and
	// finding the files with matching rows; RewriteDuration writing the
	// rows kept.
	ExecutionDuration, ScanDuration, RewriteDuration time.Duration
}

// Metrics are the stats under Spark's DELETE operationMetrics names, as
// the commit records them.
func (s Stats) Metrics() map[string]any {
	return map[string]any{
		"numDeletedRows":          s.RowsDeleted,
		"numRemovedFiles":         s.FilesRemoved,
		"numAddedFiles":           s.FilesAdded,
		"numCopiedRows":           s.RowsCopied,
		"numAddedChangeFiles":     s.ChangeFilesAdded,
		"numDeletionVectorsAdded": s.DeletionVectorsAdded,
		"numRemovedBytes":         s.BytesRemoved,
		"numAddedBytes":           s.BytesAdded,
		"executionTimeMs":         s.ExecutionDuration.Milliseconds(),
		"scanTimeMs":              s.ScanDuration.Milliseconds(),
		"rewriteTimeMs":           s.RewriteDuration.Milliseconds(),
	}
}

// String renders the stats as DeleteStats(...).
func (s Stats) String() string {
	return fmt.Sprintf("DeleteStats(version=%d, num_deleted_rows=%d, num_removed_files=%d, num_added_files=%d, "+
		"num_copied_rows=%d, num_files_scanned=%d, num_removed_bytes=%d, num_added_bytes=%d, execution_time_ms=%d, "+
		"scan_time_ms=%d, rewrite_time_ms=%d)",
		s.Version, s.RowsDeleted, s.FilesRemoved, s.FilesAdded, s.RowsCopied, s.FilesScanned, s.BytesRemoved,
		s.BytesAdded, s.ExecutionDuration.Milliseconds(), s.ScanDuration.Milliseconds(), s.RewriteDuration.Milliseconds())
}

// statsJSON is the JSON form: Spark's metric names in snake_case, with
// durations in whole milliseconds.
type statsJSON struct {
	Version                 int64 `json:"version"`
	NumDeletedRows          int64 `json:"num_deleted_rows"`
	NumRemovedFiles         int   `json:"num_removed_files"`
	NumAddedFiles           int   `json:"num_added_files"`
	NumCopiedRows           int64 `json:"num_copied_rows"`
	NumAddedChangeFiles     int   `json:"num_added_change_files"`
	NumDeletionVectorsAdded int   `json:"num_deletion_vectors_added"`
	NumFilesScanned         int   `json:"num_files_scanned"`
	NumRemovedBytes         int64 `json:"num_removed_bytes"`
	NumAddedBytes           int64 `json:"num_added_bytes"`
	ExecutionTimeMS         int64 `json:"execution_time_ms"`
	ScanTimeMS              int64 `json:"scan_time_ms"`
	RewriteTimeMS           int64 `json:"rewrite_time_ms"`
}

// MarshalJSON writes the snake_case form.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsJSON{
		Version: s.Version, NumDeletedRows: s.RowsDeleted, NumRemovedFiles: s.FilesRemoved, NumAddedFiles: s.FilesAdded,
		NumCopiedRows: s.RowsCopied, NumFilesScanned: s.FilesScanned, NumRemovedBytes: s.BytesRemoved,
		NumAddedBytes: s.BytesAdded, NumAddedChangeFiles: s.ChangeFilesAdded, NumDeletionVectorsAdded: s.DeletionVectorsAdded, ExecutionTimeMS: s.ExecutionDuration.Milliseconds(),
		ScanTimeMS: s.ScanDuration.Milliseconds(), RewriteTimeMS: s.RewriteDuration.Milliseconds(),
	})
}

// UnmarshalJSON reads the snake_case form.
func (s *Stats) UnmarshalJSON(b []byte) error {
	var j statsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	*s = Stats{
		Version: j.Version, RowsDeleted: j.NumDeletedRows, FilesRemoved: j.NumRemovedFiles, FilesAdded: j.NumAddedFiles,
		RowsCopied: j.NumCopiedRows, FilesScanned: j.NumFilesScanned, BytesRemoved: j.NumRemovedBytes,
		BytesAdded: j.NumAddedBytes, ChangeFilesAdded: j.NumAddedChangeFiles, DeletionVectorsAdded: j.NumDeletionVectorsAdded, ExecutionDuration: ms(j.ExecutionTimeMS), ScanDuration: ms(j.ScanTimeMS),
		RewriteDuration: ms(j.RewriteTimeMS),
	}
	return nil
}
