package update

import (
	"encoding/json"
	"fmt"
	"time"
)

// Stats describe one update, as Spark's UPDATE metrics do.
type Stats struct {
	// Version is the version the update committed, or the version it read
	// when no row matched and it committed nothing.
	Version int64
	// RowsUpdated are the rows given new values.
	RowsUpdated int64
	// RowsCopied are the other rows of the rewritten files, written again
	// unchanged (write amplification).
	RowsCopied int64
	// FilesRemoved are the rewritten files, FilesAdded the files written.
	FilesRemoved, FilesAdded int
	// FilesScanned are the data files whose rows were read.
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
	// finding the files with matching rows; RewriteDuration writing them.
	ExecutionDuration, ScanDuration, RewriteDuration time.Duration
}

// Metrics are the stats under Spark's UPDATE operationMetrics names, as
// the commit records them.
func (s Stats) Metrics() map[string]any {
	return map[string]any{
		"numUpdatedRows":          s.RowsUpdated,
		"numCopiedRows":           s.RowsCopied,
		"numAddedFiles":           s.FilesAdded,
		"numRemovedFiles":         s.FilesRemoved,
		"numAddedChangeFiles":     s.ChangeFilesAdded,
		"numDeletionVectorsAdded": s.DeletionVectorsAdded,
		"numAddedBytes":           s.BytesAdded,
		"numRemovedBytes":         s.BytesRemoved,
		"executionTimeMs":         s.ExecutionDuration.Milliseconds(),
		"scanTimeMs":              s.ScanDuration.Milliseconds(),
		"rewriteTimeMs":           s.RewriteDuration.Milliseconds(),
	}
}

// String renders the stats as UpdateStats(...).
func (s Stats) String() string {
	return fmt.Sprintf("UpdateStats(version=%d, num_updated_rows=%d, num_copied_rows=%d, num_added_files=%d, "+
		"num_removed_files=%d, num_files_scanned=%d, num_added_bytes=%d, num_removed_bytes=%d, execution_time_ms=%d, "+
		"scan_time_ms=%d, rewrite_time_ms=%d)",
		s.Version, s.RowsUpdated, s.RowsCopied, s.FilesAdded, s.FilesRemoved, s.FilesScanned, s.BytesAdded,
		s.BytesRemoved, s.ExecutionDuration.Milliseconds(), s.ScanDuration.Milliseconds(), s.RewriteDuration.Milliseconds())
}

// statsJSON is the JSON form: Spark's metric names in snake_case, with
// durations in whole milliseconds.
type statsJSON struct {
	Version                 int64 `json:"version"`
	NumUpdatedRows          int64 `json:"num_updated_rows"`
	NumCopiedRows           int64 `json:"num_copied_rows"`
	NumAddedFiles           int   `json:"num_added_files"`
	NumRemovedFiles         int   `json:"num_removed_files"`
	NumAddedChangeFiles     int   `json:"num_added_change_files"`
	NumDeletionVectorsAdded int   `json:"num_deletion_vectors_added"`
	NumFilesScanned         int   `json:"num_files_scanned"`
	NumAddedBytes           int64 `json:"num_added_bytes"`
	NumRemovedBytes         int64 `json:"num_removed_bytes"`
	ExecutionTimeMS         int64 `json:"execution_time_ms"`
	ScanTimeMS              int64 `json:"scan_time_ms"`
	RewriteTimeMS           int64 `json:"rewrite_time_ms"`
}

// MarshalJSON writes the snake_case form.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsJSON{
		Version: s.Version, NumUpdatedRows: s.RowsUpdated, NumCopiedRows: s.RowsCopied, NumAddedFiles: s.FilesAdded,
		NumRemovedFiles: s.FilesRemoved, NumFilesScanned: s.FilesScanned, NumAddedBytes: s.BytesAdded, NumAddedChangeFiles: s.ChangeFilesAdded, NumDeletionVectorsAdded: s.DeletionVectorsAdded,
		NumRemovedBytes: s.BytesRemoved, ExecutionTimeMS: s.ExecutionDuration.Milliseconds(),
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
		Version: j.Version, RowsUpdated: j.NumUpdatedRows, RowsCopied: j.NumCopiedRows, FilesAdded: j.NumAddedFiles,
		FilesRemoved: j.NumRemovedFiles, FilesScanned: j.NumFilesScanned, BytesAdded: j.NumAddedBytes, ChangeFilesAdded: j.NumAddedChangeFiles, DeletionVectorsAdded: j.NumDeletionVectorsAdded,
		BytesRemoved: j.NumRemovedBytes, ExecutionDuration: ms(j.ExecutionTimeMS), ScanDuration: ms(j.ScanTimeMS),
		RewriteDuration: ms(j.RewriteTimeMS),
	}
	return nil
}
