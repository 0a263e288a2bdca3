// Package optimize is OPTIMIZE's compaction: it rewrites the small files
// of a Delta table's partitions into files near a target size, with the
// same rows, and commits the swap as OPTIMIZE with dataChange=false.
//
// # Plan
//
// The partitions considered are every partition, or those a predicate
// over partition columns (Options.Where) and delta-rs-style partition
// filters in disjunctive normal form (Options.PartitionFilters) select; a
// predicate naming another column is refused by name. In each, the live
// files under the target size (Options.TargetSize, else the table's
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
// Options.MaxBufferedBytes; memory is bounded by the knobs whatever the
// size of a partition. Removes and adds carry dataChange=false.
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
