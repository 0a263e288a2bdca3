// Package update is UPDATE t SET col = expr, ... [WHERE pred]: it gives
// the rows of a Delta table for which a SQL predicate IS TRUE (every row
// with Options.All; an empty predicate alone is refused, see
// op.Predicate) new values, in one commit.
//
// Run plans from the log first (internal/rewrite): files whose partition
// values and statistics prove that no row matches are left alone without
// being read; files that prove every row matches are rewritten directly;
// the others are first read for the predicate's columns only, up to their
// first matching row, and only files with a match are rewritten. So a file
// with no matching row is never rewritten, and nothing is buffered to find
// out. In a rewritten file the assignments are evaluated on the matching
// rows only (an expression that fails on other rows, such as 10 / y WHERE
// y <> 0, does not fail the update), against the row's old values, and
// cast to the column's type without loss (as writes cast: a lossy or
// impossible cast is an error naming the column). A NULL for a NOT NULL
// column fails the update naming the column and its null rows over every
// file (the rewrite engine counts them), and nothing is committed. Partition columns may be assigned: the row moves to its new
// partition. A row whose predicate is NULL is left as it is.
//
// The commit is an UPDATE with Spark's operationParameters (predicate: a
// JSON array of the predicate text) and operationMetrics (numUpdatedRows,
// numCopiedRows, numAddedFiles, numRemovedFiles, ...). It records as read
// the files the predicate may select, and plans again on the newer table
// after a resolvable conflict (at most CommitMaxRetries times). The
// updated rows go through the table's column rules (internal/colrules):
// CHECK constraints evaluated on every updated row (FALSE or NULL fails
// the update, naming the constraint and the row's values, and nothing is
// committed), generated columns computed again when the update sets a
// column they read (checked when it sets them), identity columns never
// set. Tables whose features forbid changing rows are refused by name
// (txn.CheckRewrite): append-only tables, a constraint or generation
// expression beyond the expression subset. An update that matches no row
// commits nothing.
//
// # Memory
//
// The update streams: memory is bounded by MaxBufferedBytes (half for
// decoded batches of MaxParallelFiles readers under the process limits,
// half for the writer's buffers), plus the new values of one batch per
// reader; never by the table or a file's size.
//
// On failure or cancellation the table is unchanged and the files the call
// wrote are deleted. No panic reaches the caller.
package update
