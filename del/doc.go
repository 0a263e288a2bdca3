// Package del is DELETE FROM t [WHERE pred]: it removes the rows of a
// Delta table for which a SQL predicate IS TRUE, in one commit. (The
// package is not named delete, Go's builtin.)
//
// Run plans from the log first: a file whose partition values and
// statistics prove that every live row matches is removed whole, one that
// proves none does is left alone, without reading either; a predicate on
// partition columns only therefore deletes by metadata, reading no data
// file. Only the remaining files are read, in two passes
// (internal/rewrite): the predicate's columns, up to a file's first
// matching row, then the files with a match are rewritten without their
// matching rows. A row whose predicate is NULL is kept, as SQL's WHERE
// keeps it. Options.All removes every file, the table and its history
// staying; an empty predicate without it is refused (op.Predicate),
// so that an unset predicate never empties a table. A delete that removes nothing commits nothing.
//
// The commit is a DELETE with Spark's operationParameters (predicate: a
// JSON array of the predicate text) and operationMetrics (numDeletedRows,
// numRemovedFiles, numAddedFiles, numCopiedRows, ...). It records as read
// the files the predicate may select, so that a concurrent writer adding
// or removing such files conflicts, and it plans again on the newer table
// when that conflict can be resolved (at most CommitMaxRetries times).
// Tables whose features forbid removing rows are refused by name
// (txn.CheckRewrite): append-only tables, change data feed without
// change data files. CHECK constraints, generated and identity columns do
// not stop a delete: the rows it keeps are unchanged and still hold them.
//
// # Memory
//
// The delete streams: memory is bounded by MaxBufferedBytes (half for
// decoded batches of MaxParallelFiles readers under the process limits,
// half for the writer's buffers), never by the table or a file's size.
//
// On failure or cancellation the table is unchanged and the files the call
// wrote are deleted (files of a commit whose outcome is unknown stay for
// vacuum). No panic reaches the caller.
package del
