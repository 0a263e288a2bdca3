package merge

import (
	"encoding/json"
	"fmt"
	"time"
)

// Counts are the row counts of a merge, Spark's operation metrics
// (numSourceRows, numTargetRowsInserted, ...) spelled in snake_case in
// JSON as delta-rs's merge metrics are (num_source_rows, ...).
type Counts struct {
	SourceRows                          int64 `json:"num_source_rows"`
	TargetRowsInserted                  int64 `json:"num_target_rows_inserted"`
	TargetRowsUpdated                   int64 `json:"num_target_rows_updated"`
	TargetRowsMatchedUpdated            int64 `json:"num_target_rows_matched_updated"`
	TargetRowsNotMatchedBySourceUpdated int64 `json:"num_target_rows_not_matched_by_source_updated"`
	TargetRowsDeleted                   int64 `json:"num_target_rows_deleted"`
	TargetRowsMatchedDeleted            int64 `json:"num_target_rows_matched_deleted"`
	TargetRowsNotMatchedBySourceDeleted int64 `json:"num_target_rows_not_matched_by_source_deleted"`
}

func (c *Counts) add(o Counts) {
	c.SourceRows += o.SourceRows
	c.TargetRowsInserted += o.TargetRowsInserted
	c.TargetRowsUpdated += o.TargetRowsUpdated
	c.TargetRowsDeleted += o.TargetRowsDeleted
	c.TargetRowsMatchedUpdated += o.TargetRowsMatchedUpdated
	c.TargetRowsMatchedDeleted += o.TargetRowsMatchedDeleted
	c.TargetRowsNotMatchedBySourceUpdated += o.TargetRowsNotMatchedBySourceUpdated
	c.TargetRowsNotMatchedBySourceDeleted += o.TargetRowsNotMatchedBySourceDeleted
}

// Stats describe one merge. They print as MergeStats(...) and marshal to
// JSON with snake_case keys, durations in whole milliseconds
// (execution_time_ms, ...).
type Stats struct {
	// Version is the version the merge committed, or the version it read
	// when it committed nothing.
	Version int64 `json:"version"`
	// Skipped reports a merge whose AppID and AppVersion the table had
	// already seen: nothing was read or written.
	Skipped bool `json:"skipped"`
	// NestedLoop reports an ON predicate without an equi-join conjunct:
	// every candidate target row was checked against every source row.
	NestedLoop bool `json:"nested_loop"`

	Counts
	// TargetRowsCopied are unchanged rows rewritten with the files that
	// held a changed row (the write amplification).
	TargetRowsCopied int64 `json:"num_target_rows_copied"`
	// OutputRows are the rows written: inserted, updated and copied.
	OutputRows int64 `json:"num_output_rows"`

	// TargetFilesScanned are the files read to find matches; the others
	// (TargetFilesSkipped) were ruled out by partition values, statistics
	// and the source's keys.
	TargetFilesScanned int   `json:"num_target_files_scanned"`
	TargetFilesSkipped int   `json:"num_target_files_skipped_during_scan"`
	TargetFilesAdded   int   `json:"num_target_files_added"`
	TargetFilesRemoved int   `json:"num_target_files_removed"`
	TargetBytesAdded   int64 `json:"num_target_bytes_added"`
	TargetBytesRemoved int64 `json:"num_target_bytes_removed"`
	// TargetChangeFilesAdded are the change data files written (a table
	// with the change data feed on).
	TargetChangeFilesAdded int `json:"num_target_change_files_added"`
	// TargetDeletionVectorsAdded are the target files that kept their rows
	// and got a new deletion vector marking the rows that left (a table
	// with deletion vectors on).
	TargetDeletionVectorsAdded int `json:"num_target_deletion_vectors_added"`

	// Durations: the whole merge, finding the files to rewrite (pruning
	// and probing), rewriting and committing.
	ExecutionDuration time.Duration `json:"-"`
	ScanDuration      time.Duration `json:"-"`
	RewriteDuration   time.Duration `json:"-"`
	CommitDuration    time.Duration `json:"-"`
}

// plainStats is Stats without its JSON methods.
type plainStats Stats

// statsJSON is the JSON form: the fields and the durations in ms.
type statsJSON struct {
	plainStats
	ExecutionMS int64 `json:"execution_time_ms"`
	ScanMS      int64 `json:"scan_time_ms"`
	RewriteMS   int64 `json:"rewrite_time_ms"`
	CommitMS    int64 `json:"commit_time_ms"`
}

// MarshalJSON writes the snake_case form.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsJSON{plainStats(s), s.ExecutionDuration.Milliseconds(), s.ScanDuration.Milliseconds(),
		s.RewriteDuration.Milliseconds(), s.CommitDuration.Milliseconds()})
}

// UnmarshalJSON reads the snake_case form.
func (s *Stats) UnmarshalJSON(b []byte) error {
	var j statsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	*s = Stats(j.plainStats)
	s.ExecutionDuration, s.ScanDuration, s.RewriteDuration, s.CommitDuration = ms(j.ExecutionMS), ms(j.ScanMS), ms(j.RewriteMS), ms(j.CommitMS)
	return nil
}

// String renders the stats as MergeStats(key=value, ...) with the JSON
// keys.
func (s Stats) String() string {
	return fmt.Sprintf("MergeStats(version=%d, skipped=%t, nested_loop=%t, num_source_rows=%d, num_target_rows_inserted=%d, "+
		"num_target_rows_updated=%d, num_target_rows_deleted=%d, num_target_rows_copied=%d, num_output_rows=%d, "+
		"num_target_files_scanned=%d, num_target_files_skipped_during_scan=%d, num_target_files_added=%d, num_target_files_removed=%d, "+
		"execution_time_ms=%d, scan_time_ms=%d, rewrite_time_ms=%d, commit_time_ms=%d)",
		s.Version, s.Skipped, s.NestedLoop, s.SourceRows, s.TargetRowsInserted, s.TargetRowsUpdated, s.TargetRowsDeleted,
		s.TargetRowsCopied, s.OutputRows, s.TargetFilesScanned, s.TargetFilesSkipped, s.TargetFilesAdded, s.TargetFilesRemoved,
		s.ExecutionDuration.Milliseconds(), s.ScanDuration.Milliseconds(), s.RewriteDuration.Milliseconds(), s.CommitDuration.Milliseconds())
}

// Metrics are the commit's operationMetrics, named as Spark names them
// (numSourceRows, numTargetRowsUpdated, ...).
func (s Stats) Metrics() map[string]any {
	return map[string]any{
		"numSourceRows":                          s.SourceRows,
		"numTargetRowsInserted":                  s.TargetRowsInserted,
		"numTargetRowsUpdated":                   s.TargetRowsUpdated,
		"numTargetRowsMatchedUpdated":            s.TargetRowsMatchedUpdated,
		"numTargetRowsNotMatchedBySourceUpdated": s.TargetRowsNotMatchedBySourceUpdated,
		"numTargetRowsDeleted":                   s.TargetRowsDeleted,
		"numTargetRowsMatchedDeleted":            s.TargetRowsMatchedDeleted,
		"numTargetRowsNotMatchedBySourceDeleted": s.TargetRowsNotMatchedBySourceDeleted,
		"numTargetRowsCopied":                    s.TargetRowsCopied,
		"numOutputRows":                          s.OutputRows,
		"numTargetFilesAdded":                    s.TargetFilesAdded,
		"numTargetFilesRemoved":                  s.TargetFilesRemoved,
		"numTargetBytesAdded":                    s.TargetBytesAdded,
		"numTargetBytesRemoved":                  s.TargetBytesRemoved,
		"numTargetChangeFilesAdded":              s.TargetChangeFilesAdded,
		"numTargetDeletionVectorsAdded":          s.TargetDeletionVectorsAdded,
		"executionTimeMs":                        s.ExecutionDuration.Milliseconds(),
		"scanTimeMs":                             s.ScanDuration.Milliseconds(),
		"rewriteTimeMs":                          s.RewriteDuration.Milliseconds(),
	}
}
