package optimize

import (
	"encoding/json"
	"fmt"
	"time"
)

// FileSizes summarise the sizes of a set of files, as delta-rs's
// MetricDetails: smallest, largest, mean, count and total.
type FileSizes struct {
	Min        int64   `json:"min"`
	Max        int64   `json:"max"`
	Avg        float64 `json:"avg"`
	TotalFiles int     `json:"totalFiles"`
	TotalSize  int64   `json:"totalSize"`
}

// add counts a file of size n.
func (f *FileSizes) add(n int64) { f.merge(FileSizes{Min: n, Max: n, TotalFiles: 1, TotalSize: n}) }

// merge adds the files of o.
func (f *FileSizes) merge(o FileSizes) {
	if o.TotalFiles == 0 {
		return
	}
	if f.TotalFiles == 0 || o.Min < f.Min {
		f.Min = o.Min
	}
	f.Max = max(f.Max, o.Max)
	f.TotalFiles += o.TotalFiles
	f.TotalSize += o.TotalSize
	f.Avg = float64(f.TotalSize) / float64(f.TotalFiles)
}

// text is the JSON text delta-rs stores for the metric (a string inside
// operationMetrics, with avg always a float: "524.0").
func (f FileSizes) text() string {
	avg, _ := json.Marshal(f.Avg)
	if f.Avg == float64(int64(f.Avg)) {
		avg = fmt.Appendf(nil, "%.1f", f.Avg)
	}
	return fmt.Sprintf(`{"avg":%s,"max":%d,"min":%d,"totalFiles":%d,"totalSize":%d}`, avg, f.Max, f.Min, f.TotalFiles, f.TotalSize)
}

// Stats describe one OPTIMIZE, as delta-rs's optimize metrics do.
type Stats struct {
	// Version is the version of the last commit, or the version read when
	// there was nothing to compact and nothing was committed.
	Version int64
	// Commits is the number of OPTIMIZE commits made (more than one with
	// Options.MinCommitInterval on a long run).
	Commits int
	// FilesAdded and FilesRemoved are the files written and the files
	// they replace.
	FilesAdded, FilesRemoved FileSizes
	// PartitionsOptimized counts the partitions with files rewritten.
	PartitionsOptimized int
	// Batches counts the record batches read.
	Batches int64
	// ConsideredFiles are the live files of the selected partitions;
	// SkippedFiles those of them left as they were.
	ConsideredFiles, SkippedFiles int
	// RowsRewritten are the rows written again; RowsDropped the rows the
	// removed files' deletion vectors had hidden, which are gone for good.
	RowsRewritten, RowsDropped int64
	// SpilledBytes are the bytes of sorted runs a z-order wrote to
	// Options.TempDir because its partitions did not fit MaxSortBytes.
	SpilledBytes int64
	// ExecutionDuration is the whole call.
	ExecutionDuration time.Duration
}

// Metrics are the stats under delta-rs's operationMetrics names, as the
// commit records them: filesAdded and filesRemoved are JSON text.
func (s Stats) Metrics() map[string]any {
	return map[string]any{
		"numFilesAdded":          s.FilesAdded.TotalFiles,
		"numFilesRemoved":        s.FilesRemoved.TotalFiles,
		"filesAdded":             s.FilesAdded.text(),
		"filesRemoved":           s.FilesRemoved.text(),
		"partitionsOptimized":    s.PartitionsOptimized,
		"numBatches":             s.Batches,
		"totalConsideredFiles":   s.ConsideredFiles,
		"totalFilesSkipped":      s.SkippedFiles,
		"preserveInsertionOrder": true,
	}
}

// String renders the stats as OptimizeStats(...).
func (s Stats) String() string {
	return fmt.Sprintf("OptimizeStats(version=%d, commits=%d, num_files_added=%d, num_files_removed=%d, "+
		"partitions_optimized=%d, num_batches=%d, total_considered_files=%d, total_files_skipped=%d, "+
		"bytes_added=%d, bytes_removed=%d, rows_rewritten=%d, rows_dropped=%d, execution_time_ms=%d)",
		s.Version, s.Commits, s.FilesAdded.TotalFiles, s.FilesRemoved.TotalFiles, s.PartitionsOptimized, s.Batches,
		s.ConsideredFiles, s.SkippedFiles, s.FilesAdded.TotalSize, s.FilesRemoved.TotalSize, s.RowsRewritten,
		s.RowsDropped, s.ExecutionDuration.Milliseconds())
}

// statsJSON is the JSON form: delta-rs's metric names, the file size
// summaries as objects, and the version and rows.
type statsJSON struct {
	Version                int64     `json:"version"`
	Commits                int       `json:"commits"`
	NumFilesAdded          int       `json:"numFilesAdded"`
	NumFilesRemoved        int       `json:"numFilesRemoved"`
	FilesAdded             FileSizes `json:"filesAdded"`
	FilesRemoved           FileSizes `json:"filesRemoved"`
	PartitionsOptimized    int       `json:"partitionsOptimized"`
	NumBatches             int64     `json:"numBatches"`
	TotalConsideredFiles   int       `json:"totalConsideredFiles"`
	TotalFilesSkipped      int       `json:"totalFilesSkipped"`
	PreserveInsertionOrder bool      `json:"preserveInsertionOrder"`
	RowsRewritten          int64     `json:"rowsRewritten"`
	RowsDropped            int64     `json:"rowsDropped"`
	SpilledBytes           int64     `json:"spilledBytes,omitempty"`
	ExecutionTimeMS        int64     `json:"executionTimeMs"`
}

// MarshalJSON writes the metrics object with the version.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsJSON{
		Version: s.Version, Commits: s.Commits, NumFilesAdded: s.FilesAdded.TotalFiles,
		NumFilesRemoved: s.FilesRemoved.TotalFiles, FilesAdded: s.FilesAdded, FilesRemoved: s.FilesRemoved,
		PartitionsOptimized: s.PartitionsOptimized, NumBatches: s.Batches, TotalConsideredFiles: s.ConsideredFiles,
		TotalFilesSkipped: s.SkippedFiles, PreserveInsertionOrder: true, RowsRewritten: s.RowsRewritten,
		RowsDropped: s.RowsDropped, SpilledBytes: s.SpilledBytes, ExecutionTimeMS: s.ExecutionDuration.Milliseconds(),
	})
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (s *Stats) UnmarshalJSON(b []byte) error {
	var j statsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Stats{
		Version: j.Version, Commits: j.Commits, FilesAdded: j.FilesAdded, FilesRemoved: j.FilesRemoved,
		PartitionsOptimized: j.PartitionsOptimized, Batches: j.NumBatches, ConsideredFiles: j.TotalConsideredFiles,
		SkippedFiles: j.TotalFilesSkipped, RowsRewritten: j.RowsRewritten, RowsDropped: j.RowsDropped,
		SpilledBytes: j.SpilledBytes, ExecutionDuration: time.Duration(j.ExecutionTimeMS) * time.Millisecond,
	}
	return nil
}
