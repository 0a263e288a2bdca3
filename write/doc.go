// Package write is the write operation: append, overwrite (of the whole
// table or of the rows a replace-where predicate selects), error, ignore
// (of the table, or of the rows an ignore-where predicate selects) and
// create_or_replace, with schema evolution, as Spark and delta-rs's
// write_deltalake do. Like every operation package it plans against a
// snapshot, streams the source through the data-file writer under its
// budget, and hands one transaction to txn: a write is one commit, and a
// create and its first rows are version 0.
//
// It never holds the source in memory (batches stream to datafile), never
// commits outside txn, and on any failure deletes the data files it wrote.
package write
