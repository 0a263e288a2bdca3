// Package dv reads and writes Delta deletion vectors: the sets of row
// positions that a file action marks as deleted without rewriting its data
// file (PROTOCOL.md, "Deletion Vectors").
//
// It knows the three descriptor storage types (a UUID-named file in the
// table, an absolute path, a bitmap inlined in the log), the DV file framing
// (version byte, big-endian size, data, big-endian CRC-32), the serialized
// RoaringBitmapArray (magic 1681511377, portable 64-bit roaring) and Z85.
//
// It must never trust what it reads: every size, offset, checksum, magic
// number and cardinality is checked, and bad input is an errs.CorruptTable
// error naming the DV file, never a panic or memory out of proportion to the
// input. It never reads the log or data files; callers hand it descriptors.
package dv
