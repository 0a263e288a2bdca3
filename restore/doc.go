// Package restore is RESTORE TABLE t TO VERSION AS OF v (or TIMESTAMP AS
// OF ts): it makes the table show the rows, schema and properties it had at
// an earlier version, in one new commit, as Spark's RestoreTableCommand
// does. History is kept: the versions in between stay readable.
//
// Run compares the live files of the table now with those of the target
// version, a file being its path and deletion vector (Spark's key):
//   - files live at the target and not now are added back with
//     dataChange=true, keeping their statistics, partition values, tags,
//     deletion vector and row-tracking fields;
//   - files live now and not at the target are removed with dataChange=true
//     and extended file metadata;
//   - a file live in both with a different deletion vector is both: its
//     current form removed, its target form added back.
//
// The target's metaData (schema, partitioning, configuration) is committed
// when it differs from the table's (protocol.SameMetadata); the protocol is
// the union of the current and the target's (the higher versions, every
// feature of both), since a protocol is never downgraded, committed when
// that adds to the table's. Unchanged, neither is written, so a restore
// that keeps the schema does not fail a concurrent blind append.
// Domain metadata is left as it is: Spark carries over only the clustering
// domain, which this engine does not write.
//
// Before committing, every file to add back (and its deletion vector file)
// is looked up in the store, a bounded number at a time; when one is gone
// (vacuumed or deleted by hand) the restore is refused with deltalite.ErrNotFound
// naming it and the version, and nothing is committed.
//
// The commit is a RESTORE with operationParameters version or timestamp
// and Spark's operationMetrics (numRestoredFiles, numRemovedFiles,
// restoredFilesSize, removedFilesSize, numOfFilesAfterRestore,
// tableSizeAfterRestore), plus the two delta-rs writes (numRestoredFile,
// numRemovedFile). It declares the whole table read and is not retried at
// a later version, so any commit made after the restore read the table
// fails it with deltalite.ErrCommitConflict, as Spark's commitLarge does: one that
// adds or removes files or changes the metadata or protocol by the conflict
// rules, and any other (a VACUUM START, which may be deleting the files the
// restore adds back) because no retry is allowed. The restore is not
// planned again. A commit made after the restore is checked by the usual
// rules: a blind append lands unless the restore changed the metadata.
// Restoring to the version the table is at, or to one whose files,
// metadata and protocol the table already shows, commits nothing.
//
// # Memory
//
// Run holds the file lists of two snapshots (now and the target) and the
// actions of the commit: that grows with the size of the log, not of the
// data. No data file is read.
package restore
