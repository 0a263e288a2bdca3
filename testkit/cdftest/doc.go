// Package cdftest proves the change data feed against Spark and delta-rs:
// seeded random sequences of appends, overwrites, replace-where writes,
// upserts, MERGEs with random clause sets, DELETEs, UPDATEs and OPTIMIZEs
// run on change-data-feed tables, written by this engine and by Spark; a
// model of each sequence gives the change rows every version must show,
// and this engine's Table.Changes, Spark's table_changes and delta-rs's
// load_cdf must all show exactly those. See README.md.
//
// The package holds tests only.
package cdftest
