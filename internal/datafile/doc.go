// Package datafile turns Arrow record batches into the Parquet data files of a
// Delta table and the add actions that describe them: partition fan-out into
// Hive-style directories, files rolled at the target size, per-file
// statistics as PROTOCOL.md defines them, and physical names and field ids
// under column mapping. Conform first casts a source batch to the table's
// logical Arrow schema.
//
// The package never commits: it returns add actions for the caller's
// transaction, and Abort deletes the files of a write that will not commit.
// It never overwrites an object and never writes outside the table root.
//
// # Memory
//
// Rows wait in per-partition buffers of Arrow data whose total is held under
// Options.MaxUnwrittenBytes: when a partition holds half the bound (or a
// million rows) it is written as one row group, and when the total passes
// the bound the largest buffers are written early. The column chunks of a
// row group are encoded in parallel, one worker per core, and the row group
// is held encoded (compressed, so at most about its Arrow bytes) until its
// last column is done; tables with nested columns are encoded one column
// at a time. Each row group is closed as soon as it is written, so an open
// file holds no data, and a file is opened only at its partition's first
// row group; many partitions therefore do not multiply memory. The price of
// many partitions with a small bound is small row groups, and, past
// Options.MaxOpenFiles, more files.
//
// # Files
//
// Files are named part-NNNNN-<uuid>-c000.<codec>.parquet, NNNNN counting
// the Writer's files; a name an object already has is never reused. A file
// is finished when the Parquet bytes written reach the target size; the rows
// of a row group are cut so that the file ends near the target, from the
// Parquet bytes per Arrow byte seen so far. Void columns are not stored, as
// Spark does not store them: readers fill a missing column with nulls.
//
// Given the rows a partition is expected to store (Options.Expected), the
// Writer cuts its output into about equal files rather than full ones and a
// small tail. Rows are sized at the Parquet bytes a row of the partition
// has taken so far (before its first row group: the caller's figure, else
// the Writer's, else the Arrow bytes buffered). E bytes make
// n = max(1, round(E/T), ceil(E/(1.25 T))) files of E/n for a target T: so
// between 0.625 T and 1.25 T each, or one file below 1.25 T. The
// expectation is asked again at each cut, for the bytes still to come; the
// last file it foresees stays open up to 1.5 T so that rows beyond it join
// that file; once it is used up, files roll at T. A file is cut within
// T/32 of its aim (T/16 without an expectation) and finished only when more
// rows come; at Close the rest is known, and when the open file and the
// rows left come to at most 1.5 T they make one file. No file is cut past
// 1.5 T (within a row group's estimate, as for the target). Rows of another
// kind than those written before (compact copies after slices of decoded
// batches) may take other Parquet bytes per Arrow byte, so a cut to balance
// writes half the rows it estimates first and cuts the rest by what those
// took.
//
// # Partition directories
//
// Each partition column, in the order of Options.PartitionColumns, becomes
// a directory "name=value" with the value in the log's text form
// (schema.FormatPartitionValue), and name and value escaped as Hive and
// Spark escape path names: control characters and "#%'*/:=?\{[]^ become
// %XX; null is __HIVE_DEFAULT_PARTITION__. A segment longer than 200 bytes
// is cut and suffixed with a hash of the value. Directory names are
// cosmetic: readers take partition values from the log. Under column
// mapping, directories are two random characters, as Spark writes them,
// and partitionValues are keyed by physical names.
//
// Delta stores null as "" in partitionValues, so an empty string (or binary
// value) is written as null, as Spark does, and reads back as null; a
// non-nullable partition column refuses it. A value that is not valid UTF-8
// is refused, since the log holds partition values as JSON text.
//
// # Statistics
//
// Statistics are computed from the Arrow data as it is written: numRecords,
// and minValues, maxValues and nullCount mirroring the schema (physical
// names under column mapping) for delta.dataSkippingStatsColumns, else the
// first delta.dataSkippingNumIndexedCols leaf columns (default 32; -1 all;
// partition and void columns do not count). Binary, array, map and variant
// columns have a null count only. Strings keep
// delta.dataSkippingStringPrefixLength characters (default 32); a cut
// maximum has its last character raised so that it stays an upper bound,
// and is left out when it cannot be. Timestamps are written to the
// millisecond, the minimum cut down and the maximum rounded up; dates and
// timestamps outside years 1 to 9999 are left out. Float bounds leave out
// NaN (a NaN also drops the maximum, as NaN sorts last in Spark) and
// infinities, and a zero bound is widened to -0.0 or 0.0.
package datafile
