// Package scan reads the data files of a Delta table snapshot as Arrow
// record batches.
//
// A Scan is a small immutable value built from a Source (a snapshot) and
// options: the columns to read, filters or SQL predicates (WithWhere),
// batch size, a row limit, read parallelism and the allocator. It is
// planned to files first (Plan, and Explain for why files were skipped:
// exact partition pruning and statistics-based skipping; a predicate
// decides files by partition values and statistics, then filters rows),
// then streamed (Records, RecordReader) row group by row group, so memory
// is bounded by the batch size and the parallelism, never by the table.
// By default one file is read at a time, its columns decoded concurrently;
// WithParallelism reads several files at once instead, each on one
// goroutine, holding that many files' readers (pages, dictionaries).
// Unless WithAllocator says otherwise, Arrow buffers come from a pool the
// scans share: what a released batch or a finished page frees is handed
// out again rather than allocated anew, and what the pool keeps idle is
// dropped at the next garbage collections, so it stays within that bound.
//
// Reading turns each file into the table's logical shape: physical column
// names or field ids (column mapping) become logical names, partition
// values come from the log as constant columns, columns an older file lacks
// are nulls, timestamps, narrower integers, other decimal widths and
// dictionary-encoded values are cast to the table's types, and rows a
// deletion vector removes are dropped.
//
// The package never writes, never reads the transaction log itself (the
// Source did that) and never takes partition values from file paths.
package scan
