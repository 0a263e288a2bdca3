// Package optimize is OPTIMIZE: compaction rewrites the small files of a
// Delta table's partitions into files near a target size, and ZORDER BY
// rewrites partitions with their rows along a z-curve; both keep the
// same rows and commit the swap as OPTIMIZE with dataChange=false.
//
// # Plan
//
// The partitions considered are every partition, or those a predicate
// over partition columns (Options.Predicate) and delta-rs-style partition
// filters in disjunctive normal form (Options.PartitionFilters) select; a
// predicate naming another column is refused by name. In each, the live
// files under the target size (Options.TargetFileSize, else the table's
// delta.targetFileSize, else 100 MiB) are packed oldest first into bins
// that end before the next file would carry them past the target, so that
// rows written together stay together and insertion order is kept. A bin
// of fewer than Options.MinInputFiles files (2: a single small file gains
// nothing) is skipped, unless one of its files has a deletion vector:
// that file is rewritten without its deleted rows even alone, as Spark's
// OPTIMIZE does (delta-rs skips it; rewriting drops dead rows, which
// readers otherwise filter on every scan). A file at or over the target
// whose deletion vector hides more than MaxDeletedRowsRatio of its rows
// is rewritten alone for the same reason. The plan lives in plan.go, for
// other layouts of the same partitions to reuse.
//
// # Rewrite
//
// Each bin streams through internal/rewrite into files of about equal
// size near the target (the writer is told the bin's rows and bytes):
// deletion vectors applied, statistics written, column mapping and
// partition values kept. Options.MaxConcurrentTasks bins run at once,
// each reading its files one after the other, within an equal share of
// Options.MaxBufferedBytes (binBuffered); memory is bounded by the knobs
// whatever the size of a partition. Removes and adds carry dataChange=false.
//
// # Z-order
//
// With Options.ZOrderBy the plan is one bin per selected partition
// holding every live file (not only the small ones) except those an
// earlier z-order by the same columns wrote and nothing touched since
// (their adds carry Databricks' z-cube tags ZCUBE_ID, ZCUBE_ZORDER_BY,
// ZCUBE_ZORDER_CURVE; a rewrite or a deletion vector drops or outdates
// them), unless Options.Force. The bin's rows stream through
// internal/rewrite into an external sort (internal/extsort) by their
// z-order keys (internal/zorder), bounded by Options.MaxSortBytes and
// spilling sorted runs to Options.TempDir, and come back in z-order
// through the same writer into files near the target size, tagged as one
// new z-cube. The columns must be data columns with min/max statistics:
// z-ordering by a column files cannot be skipped by gains nothing.
// The commit records zOrderBy as the JSON array of the columns, as Spark.
//
// # Purging deletion vectors
//
// With Options.PurgeDeletionVectors the files rewritten are, as Spark's
// REORG TABLE ... APPLY (PURGE) chooses them, the files of the selected
// partitions with a deleted row (or a vector whose share the log cannot
// tell), whatever their size, above Options.PurgeMinDeletedRatio when
// set; they are packed into bins as a compaction packs them and every bin
// is rewritten, even of one file. The commit's operation is REORG with
// operationParameters predicate and applyPurge, as Spark writes it; the
// old DV files stay until a VACUUM past the retention.
//
// # Commit
//
// One commit with operation OPTIMIZE, operationParameters predicate (a
// JSON array of the partition predicates), targetSize and zOrderBy ("[]")
// and operationMetrics as delta-rs writes them (numFilesAdded,
// numFilesRemoved, filesAdded and filesRemoved as JSON text of
// {avg,max,min,totalFiles,totalSize}, partitionsOptimized, numBatches,
// totalConsideredFiles, totalFilesSkipped, preserveInsertionOrder). With
// Options.MinCommitInterval a long run commits the bins done each time
// the interval has passed, as delta-rs does; the plan's counts go with
// the first of those commits. Nothing to compact commits nothing.
//
// # Concurrency
//
// The commit reads only the compacted files, at snapshot isolation (its
// actions change no data): concurrent appends, and changes to other
// files, never conflict. A concurrent commit that removed a file being
// compacted (a DELETE, UPDATE or another OPTIMIZE) is a conflict; the
// compaction then plans again from the newer table, at most
// CommitMaxRetries times, so it never brings back rows another writer
// removed. On failure or cancellation the table is as the last commit
// left it and the files no commit took are deleted.
package optimize
