// Package changes reads a table's change data feed: the rows each commit of
// a version range inserted, deleted or updated, with the columns
// _change_type (insert, delete, update_preimage, update_postimage),
// _commit_version and _commit_timestamp, as Delta Spark's table_changes
// returns them.
//
// A commit with change data files (cdc actions) gives exactly their rows;
// any other commit gives the rows of its added files as inserts and those of
// its removed files as deletes (dataChange=true only: OPTIMIZE gives
// nothing), deletion vectors honoured as Spark's CDCReader honours them. The
// files are read through package scan, one at a time, so memory does not
// grow with the range.
package changes
