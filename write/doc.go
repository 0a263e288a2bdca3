// Package write turns Arrow record batches into the Parquet data files of a
// Delta table and the add actions that describe them: partition fan-out into
// Hive-style directories, files rolled at the target size, per-file
// statistics as PROTOCOL.md defines them, and physical names and field ids
// under column mapping. Conform first casts a source batch to the table's
// logical Arrow schema.
//
// Memory is bounded: rows wait in per-partition buffers whose total is held
// under Options.MaxBufferedBytes by writing row groups of the largest
// buffers early, and a data file is opened only when its first row group is
// written, so many partitions do not multiply memory.
//
// The package never commits: it returns add actions for the caller's
// transaction, and Abort deletes the files of a write that will not commit.
// It never overwrites an object and never writes outside the table root.
//
// Partition directories. Each partition column, in the order of
// Options.PartitionColumns, becomes a directory "name=value" with the value
// in the log's text form (schema.FormatPartitionValue) and both name and
// value escaped as Hive and Spark escape path names: control characters and
// "#%'*/:=?\{[]^ become %XX. Null is __HIVE_DEFAULT_PARTITION__. Because
// Delta stores null as "" in partitionValues, an empty string (or binary
// value) is written as null, as Spark does, and reads back as null; a
// non-nullable partition column refuses it. A value that is not valid UTF-8
// is refused, since the log holds partition values as JSON text. A segment longer than 200 bytes is cut and suffixed
// with a hash of the value. Directory names are cosmetic: readers take
// partition values from the log. Under column mapping, directories are two
// random characters (as Spark does) rather than physical column names.
package write
