// Package upsert is the bounded-memory streaming upsert: insert-or-replace
// by primary key within a partition, with optional deletes, applied to a
// Delta table in one commit.
//
// Run reads the source once, casts it to the table schema, groups its rows
// by partition values (row selections, no copies) and builds one compact
// key set per touched partition (internal/keyset). It then selects, per
// partition, the files that can hold a source key: the log statistics of
// every key column against the sorted source values of that column, then a
// probe that reads only the key columns of each remaining file, row group
// by row group, skipping row groups by their Parquet statistics and bloom
// filters and honouring deletion vectors. Each touched partition's change
// is then written by the operations' spine (internal/op.Write), which
// decides how: the files with a hit lose their matched rows (rows before
// the probe's first hit need no key check), copied without them, or, on a
// table with deletion vectors on, marked in their deletion vectors after a
// read of the key columns only; the source rows follow at the target file
// size, with change data files where the table has the feed on. Everything
// lands in one MERGE commit that records the touched partitions and the
// rewritten files as read, so upserts into disjoint partitions commit side
// by side and one that conflicts plans again on the newer table.
//
// Identity is the primary key plus the partition values: a key that moves
// to another partition is inserted there and its old row stays, as MERGE
// with the partition columns in its condition does. A null in any key
// column never matches.
//
// # Memory
//
// What grows with the source is held once and guarded by MaxSourceBytes:
// the cast source batches, row selections (4 bytes per row of partitions
// whose rows are not contiguous), the key sets and the sorted per-column
// key values. What grows with the table never does: the table is read a
// batch at a time, and every decoded batch holds bytes of a limits.Budget
// of half of MaxBufferedBytes (under the process limits) from before it is
// decoded until the writer took it (internal/rewrite's readers: a
// reservation covers the batches a scan may hold at once and the one on
// its way to the writer, grown to what is decoded; wide files simply run
// fewer at once). Each partition being rewritten takes an equal
// share of that half (limits.Budget.Share) and its readers draw only on
// it, so one partition's readers never hold the bytes another partition's
// writer waits to be fed with. Survivors reach the writer as slices of the
// decoded batch (datafile.Writer.WriteSelected), not copies. Each partition's
// writer buffers at most its
// share of the other half of MaxBufferedBytes before writing a row group;
// it is not a budget reservation because a writer must never wait on the
// budget that its readers wait on.
//
// The package never commits but through txn, deletes the files it wrote
// when it fails or is cancelled (files of a commit whose outcome is
// unknown stay for vacuum), and never lets a panic reach its caller.
package upsert
