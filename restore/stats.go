package restore

import "fmt"

// Stats describe one restore with Spark's RESTORE metrics; the JSON form
// uses the column names of Spark's RESTORE output.
type Stats struct {
	// Version is the version the restore committed, or the version the
	// table was at when it had nothing to do.
	Version int64 `json:"version"`
	// RestoredVersion is the version whose state the table now shows.
	RestoredVersion int64 `json:"restored_version"`
	// TableSizeAfterRestore and NumOfFilesAfterRestore describe the live
	// files after the restore: those of RestoredVersion.
	TableSizeAfterRestore  int64 `json:"table_size_after_restore"`
	NumOfFilesAfterRestore int64 `json:"num_of_files_after_restore"`
	// NumRemovedFiles and RemovedFilesSize are the files the restore
	// removed; NumRestoredFiles and RestoredFilesSize those it added back.
	NumRemovedFiles   int64 `json:"num_removed_files"`
	NumRestoredFiles  int64 `json:"num_restored_files"`
	RemovedFilesSize  int64 `json:"removed_files_size"`
	RestoredFilesSize int64 `json:"restored_files_size"`
}

// Metrics are the stats under Spark's RESTORE operationMetrics names, as
// the commit records them, with delta-rs's two names as well so that
// readers of either engine's history find theirs.
func (s Stats) Metrics() map[string]any {
	return map[string]any{
		"tableSizeAfterRestore":  s.TableSizeAfterRestore,
		"numOfFilesAfterRestore": s.NumOfFilesAfterRestore,
		"numRemovedFiles":        s.NumRemovedFiles,
		"numRestoredFiles":       s.NumRestoredFiles,
		"removedFilesSize":       s.RemovedFilesSize,
		"restoredFilesSize":      s.RestoredFilesSize,
		"numRemovedFile":         s.NumRemovedFiles,
		"numRestoredFile":        s.NumRestoredFiles,
	}
}

// String renders the stats as RestoreStats(...).
func (s Stats) String() string {
	return fmt.Sprintf("RestoreStats(version=%d, restored_version=%d, table_size_after_restore=%d, "+
		"num_of_files_after_restore=%d, num_removed_files=%d, num_restored_files=%d, removed_files_size=%d, "+
		"restored_files_size=%d)",
		s.Version, s.RestoredVersion, s.TableSizeAfterRestore, s.NumOfFilesAfterRestore, s.NumRemovedFiles,
		s.NumRestoredFiles, s.RemovedFilesSize, s.RestoredFilesSize)
}
