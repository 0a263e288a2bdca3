package upsert

import (
	"encoding/json"
	"fmt"
	"time"
)

// Stats describe one upsert. Durations are wall time per phase: plan
// (reading the source, listing and pruning files, probing), rewrite
// (reading and writing the touched partitions) and commit.
type Stats struct {
	// Version is the table version the upsert committed, or the version it
	// read when it committed nothing.
	Version int64
	// Skipped reports an upsert whose AppID and AppVersion the table had
	// already seen: nothing was read or written.
	Skipped bool

	PartitionsTouched int
	FilesAdded        int
	FilesRemoved      int
	// DeletionVectorsAdded are files that kept their rows and got a new
	// deletion vector marking the rows that left (a table with deletion
	// vectors on); FilesRemoved counts only files removed whole then.
	DeletionVectorsAdded int
	// FilesCarriedOver are files of touched partitions kept as they are.
	FilesCarriedOver int
	// FilesProbed are files whose key columns were read.
	FilesProbed int

	// RowsUpdated are table rows replaced by a source row with their key.
	RowsUpdated int64
	// RowsInserted are source rows whose key matched no table row, those
	// with a null key included.
	RowsInserted int64
	// RowsDeleted are table rows removed by a delete row of the source.
	RowsDeleted int64
	// RowsCopied are unchanged rows rewritten with the files that held a
	// matched row (the write amplification).
	RowsCopied int64
	SourceRows int64
	// NullPKRows are source rows with a null in a key column.
	NullPKRows int64

	PlanDuration, RewriteDuration, CommitDuration time.Duration
}

// String renders the stats as the Python engine's UpsertStats(...).
func (s Stats) String() string {
	return fmt.Sprintf("UpsertStats(version=%d, skipped=%t, partitions_touched=%d, files_added=%d, files_removed=%d, "+
		"files_carried_over=%d, files_probed=%d, rows_updated=%d, rows_inserted=%d, rows_deleted=%d, rows_copied=%d, "+
		"source_rows=%d, null_pk_rows=%d, plan_ms=%d, rewrite_ms=%d, commit_ms=%d)",
		s.Version, s.Skipped, s.PartitionsTouched, s.FilesAdded, s.FilesRemoved, s.FilesCarriedOver, s.FilesProbed,
		s.RowsUpdated, s.RowsInserted, s.RowsDeleted, s.RowsCopied, s.SourceRows, s.NullPKRows,
		s.PlanDuration.Milliseconds(), s.RewriteDuration.Milliseconds(), s.CommitDuration.Milliseconds())
}

// statsJSON is the JSON form: the Python engine's snake_case keys, with
// durations in whole milliseconds.
type statsJSON struct {
	Version           int64 `json:"version"`
	Skipped           bool  `json:"skipped"`
	PartitionsTouched int   `json:"partitions_touched"`
	FilesAdded        int   `json:"files_added"`
	FilesRemoved      int   `json:"files_removed"`
	FilesCarriedOver  int   `json:"files_carried_over"`
	FilesProbed       int   `json:"files_probed"`
	RowsUpdated       int64 `json:"rows_updated"`
	RowsInserted      int64 `json:"rows_inserted"`
	RowsDeleted       int64 `json:"rows_deleted"`
	RowsCopied        int64 `json:"rows_copied"`
	SourceRows        int64 `json:"source_rows"`
	NullPKRows        int64 `json:"null_pk_rows"`
	DeletionVectors   int   `json:"deletion_vectors_added,omitempty"`
	PlanMS            int64 `json:"plan_ms"`
	RewriteMS         int64 `json:"rewrite_ms"`
	CommitMS          int64 `json:"commit_ms"`
}

// MarshalJSON writes the snake_case form.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsJSON{
		Version: s.Version, Skipped: s.Skipped, PartitionsTouched: s.PartitionsTouched,
		FilesAdded: s.FilesAdded, FilesRemoved: s.FilesRemoved, FilesCarriedOver: s.FilesCarriedOver, FilesProbed: s.FilesProbed,
		RowsUpdated: s.RowsUpdated, RowsInserted: s.RowsInserted, RowsDeleted: s.RowsDeleted, RowsCopied: s.RowsCopied,
		SourceRows: s.SourceRows, NullPKRows: s.NullPKRows, DeletionVectors: s.DeletionVectorsAdded,
		PlanMS: s.PlanDuration.Milliseconds(), RewriteMS: s.RewriteDuration.Milliseconds(), CommitMS: s.CommitDuration.Milliseconds(),
	})
}

// UnmarshalJSON reads the snake_case form.
func (s *Stats) UnmarshalJSON(b []byte) error {
	var j statsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Stats{
		Version: j.Version, Skipped: j.Skipped, PartitionsTouched: j.PartitionsTouched,
		FilesAdded: j.FilesAdded, FilesRemoved: j.FilesRemoved, FilesCarriedOver: j.FilesCarriedOver, FilesProbed: j.FilesProbed,
		RowsUpdated: j.RowsUpdated, RowsInserted: j.RowsInserted, RowsDeleted: j.RowsDeleted, RowsCopied: j.RowsCopied,
		SourceRows: j.SourceRows, NullPKRows: j.NullPKRows, DeletionVectorsAdded: j.DeletionVectors,
		PlanDuration: time.Duration(j.PlanMS) * time.Millisecond, RewriteDuration: time.Duration(j.RewriteMS) * time.Millisecond,
		CommitDuration: time.Duration(j.CommitMS) * time.Millisecond,
	}
	return nil
}
