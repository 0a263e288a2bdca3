// Package checkpoint reads and writes Delta checkpoints: classic single-file
// and multi-part Parquet checkpoints, v2 checkpoints (UUID-named JSON or
// Parquet, classic-named with v2 content) with their sidecar files, and the
// _last_checkpoint pointer with its PROTOCOL.md checksum.
//
// Reading streams a checkpoint row group by row group and batch by batch,
// decoding only the action columns it needs, and hands every action to a
// callback; it never holds a whole checkpoint in memory. Writing turns
// already reconciled actions into one classic checkpoint file.
//
// The package never reconciles actions (that is the log replay's job), never
// decides which checkpoint to use, never reads table data files, and does no
// I/O: it decodes the files its caller opened (snapshot) and encodes into the
// writer its caller stores (txn). Every failure it returns is an *errs.Error
// naming the file involved: a damaged checkpoint is an errs.CorruptTable
// error, never a panic.
package checkpoint
