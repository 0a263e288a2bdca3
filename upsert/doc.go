// Package upsert is the bounded-memory streaming upsert: insert-or-replace
// by primary key within a partition, with optional deletes, applied to a
// Delta table in one commit.
//
// Run reads the source batch once, casts it to the table schema, groups its
// rows by partition values (row selections, no copies) and builds one
// compact key set per touched partition. It then selects, per partition,
// the files that can hold a source key: statistics of every key column in
// the log, then a probe that reads only the key columns of each remaining
// file row group by row group, skipping row groups by their Parquet
// statistics and bloom filters. Only the files with a hit are rewritten,
// streamed batch by batch: matched rows are dropped, survivors and then the
// source rows are written at the target file size. Everything lands in one
// MERGE commit that records the partitions and files it read, so upserts
// into disjoint partitions commit side by side and a conflicting one plans
// again from the newer table.
//
// Memory is bounded by the source (guarded by MaxSourceBytes, key sets
// included) and the knobs, never by the table: decoded batches hold bytes
// of a limits.Budget (half of MaxBufferedBytes, under the process limits),
// and each partition's writer buffers at most its share of the other half.
//
// Identity is the primary key plus the partition values: a key that moves
// to another partition is inserted there and its old row stays, as MERGE
// with the partition columns in its condition does. A null in any key
// column never matches. The package never commits anything but through
// txn, never leaves a file it wrote behind on failure or cancellation
// (best effort), and never lets a panic reach its caller.
package upsert
