package vacuum

import (
	"fmt"
	"time"
)

// Stats describe one vacuum.
type Stats struct {
	// Version is the VACUUM END commit's version, or the version read when
	// nothing was committed (a dry run, nothing to delete).
	Version int64
	// DryRun and Lite echo the options.
	DryRun, Lite bool
	// Files are the keys (relative to the table root) deleted, or that a
	// dry run would delete, in ascending order.
	Files []string
	// BytesToDelete is the size of Files (sizeOfDataToDelete).
	BytesToDelete int64
	// FilesDeleted is numDeletedFiles: len(Files) after a vacuum that
	// completed, fewer after one that failed, 0 on a dry run.
	FilesDeleted int
	// Directories is numVacuumedDirectories as Spark counts it: the
	// directories the listing found, the root included; 0 in Lite mode.
	Directories int
	// Retention is the retention applied; DefaultRetention the table's.
	Retention, DefaultRetention time.Duration
	ExecutionDuration           time.Duration
}

// Metrics are the stats under the names VACUUM START and END record.
func (s Stats) Metrics() map[string]any {
	return map[string]any{
		"numFilesToDelete":       len(s.Files),
		"sizeOfDataToDelete":     s.BytesToDelete,
		"numDeletedFiles":        s.FilesDeleted,
		"numVacuumedDirectories": s.Directories,
	}
}

// String renders the stats as VacuumStats(...).
func (s Stats) String() string {
	return fmt.Sprintf("VacuumStats(version=%d, dry_run=%t, lite=%t, num_files_to_delete=%d, size_of_data_to_delete=%d, "+
		"num_deleted_files=%d, num_vacuumed_directories=%d, retention_hours=%g, execution_time_ms=%d)",
		s.Version, s.DryRun, s.Lite, len(s.Files), s.BytesToDelete, s.FilesDeleted, s.Directories,
		s.Retention.Hours(), s.ExecutionDuration.Milliseconds())
}
