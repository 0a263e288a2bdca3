// Package rewrite is the row stream under the operations' spine
// (internal/op, whose Write is its caller for DELETE, UPDATE, MERGE and
// OPTIMIZE). It streams chosen data files of a snapshot through a caller's
// per-batch function into new data files and returns the remove and add
// actions for the caller's one commit, with counters. It never commits.
//
// # Use
//
// Run(ctx, snap, files, fn, opt) reads each file of files through scan
// (deletion vectors applied, column mapping resolved, columns conformed to
// the table's logical Arrow schema, partition columns filled from the log)
// and calls fn once per decoded batch. fn answers with an Output: which
// rows to keep (Keep; nil keeps all), optionally a replacement batch of
// the same rows with new values (Replace; written instead of the batch,
// Keep applied to it) and which rows it updated (Updated): per row, whether
// it leaves, stays or is updated in place. That one shape serves every
// user:
//
//   - DELETE: Keep = the rows whose predicate IS NOT TRUE.
//   - UPDATE: Replace = the batch with new values in the matching rows,
//     Updated = those rows; a changed partition column moves its row to
//     another partition (the writer partitions every row by its values).
//   - MERGE: Keep drops deleted rows, Replace and Updated carry updated
//     ones, and
//     Options.Append writes inserted rows after the files, through the
//     same writer (so they land in their partitions' files).
//
// Every file of files is removed (dataChange=true, with its size, partition
// values, deletion vector and extended file metadata: protocol.RemoveOf);
// the kept and replaced rows are written at the table's target file size
// with statistics, physical names under column mapping, and partition
// values taken from the rows. A file whose every row is dropped leaves no
// new file.
// Options.Rearrange marks both sides dataChange=false instead, for OPTIMIZE
// (package optimize), which writes the same rows into fewer files; with
// Options.Expected its output is cut into files of about equal size.
//
// # Which files to pass: decide first, then rewrite
//
// A file with no changed row must not be rewritten, but a caller may know
// that only by reading it (UPDATE ... WHERE on a file its statistics
// cannot decide). Run does not find out while writing: it would have to
// buffer a file's rows until the first change, or write and then delete
// what it wrote. Instead the engine is two-pass and buffer-free: Matching
// first reads only the predicate's columns of each undecided file,
// stopping at the file's first matching row, and returns the files with a
// match; Run then rewrites exactly those. The second read of a matching
// file's predicate columns is the price; it buys memory that never holds
// more than a few batches per reader, and no data file written in vain.
// MERGE decides with its key probe instead and passes its own file list.
//
// # Memory
//
// The engine streams. Readers (Options.MaxParallelFiles at once) each hold a
// reservation of a limits.Budget (Options.Budget, else one of half of
// Options.MaxBufferedBytes under the process limits) covering the batches
// their scan may hold at once plus the one on its way to the writer,
// sized from the file's log statistics and grown to the bytes actually
// decoded; batch rows shrink for wide rows from what earlier batches
// measured. The one writer buffers at most the other half of
// MaxBufferedBytes before writing row groups (datafile.Options.
// MaxUnwrittenBytes); it never waits on the budget its readers wait on.
// Kept rows reach the writer as slices of the decoded batch
// (datafile.Writer.WriteSelected), not copies. Peak memory is therefore a
// function of the knobs, never of the table or of a file's size.
//
// # Failure
//
// A row to write (kept, replaced or appended) with a null where the
// written schema forbids one fails the rewrite, as an
// errs.SchemaMismatch naming each such column with its null rows over
// every file and the appended rows: the engine counts them
// (datafile.NullCounts) before the writer sees the batch, reads on to the
// end to count them all, and writes nothing more once it found one.
//
// On failure or cancellation Run deletes every data file it wrote and
// returns no actions; fn and Append errors are returned as they are. Panics
// in fn, in Append or in the engine become errs.Internal errors.
package rewrite
