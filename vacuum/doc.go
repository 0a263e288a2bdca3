// Package vacuum is VACUUM: it deletes the files of a Delta table that no
// version within the retention needs, as Spark's VacuumCommand decides
// them, so that storage stops growing with the table's history.
//
// A file is needed when the current version references it (an add, or the
// deletion vector file of one) or when a remove tombstone whose
// deletionTimestamp is within the retention does (a reader may still time
// travel to a version that has it). Everything else under the table root
// that is older than the retention goes: data files of expired removes,
// orphans of failed writes, deletion vector and _change_data files no
// needed action names. Never deleted: _delta_log, anything outside the
// root, files newer than the retention (a writer may be about to commit
// them), and hidden files and folders (a name starting with "_" or "."),
// except partition folders ("col=value" for a partition column),
// _change_data and _delta_index, as Spark's DeltaTableUtils.isHiddenDirectory
// says, and except this engine's own temporary files (storage.IsTemp:
// ".deltalite-tmp-*", which a killed write leaves in its folder) outside
// hidden folders; other engines' hidden files stay.
//
// Full mode lists the table's storage (on S3 and GCS in parallel key
// ranges that start at the table's top-level folders); Lite mode lists
// nothing and deletes only the files of the expired tombstones the log
// still has (delta-rs VacuumMode::Lite), missing orphans, temporary files
// of killed writes included.
//
// The retention is Options.RetentionHours, else the table's
// delta.deletedFileRetentionDuration, else 7 days. A retention below the
// table's is refused unless NoEnforceRetention says otherwise: a writer
// committing files older than the retention would lose them. The table's
// writer features must all be supported (Spark's protocolWrite check; with
// vacuumProtocolCheck the readers' too, checked as the snapshot loads).
//
// A vacuum that deletes files commits VACUUM START (operationParameters
// retentionCheckEnabled, specifiedRetentionMillis, defaultRetentionMillis;
// operationMetrics numFilesToDelete, sizeOfDataToDelete), deletes in
// parallel batches with the store's multi-key Delete, and commits VACUUM
// END (status COMPLETED or FAILED; numDeletedFiles,
// numVacuumedDirectories), as Spark and delta-rs do. A dry run, or a
// vacuum with nothing to delete, commits nothing. Only unneeded files are
// deleted, so a vacuum stopped at any point (a crash, a cancellation)
// leaves a table that reads at every version within the retention.
package vacuum
