// Package keyset is the compact hash set of primary-key tuples the upsert
// engine builds over a source batch and probes with the rows of target
// files.
//
// Keys are tuples of one or more columns of the table's Arrow types. A set
// stores them without an allocation per key: open addressing over one flat
// slot array, keys packed into one or two machine words when their columns
// have a fixed width of at most 16 bytes (integers, dates, timestamps,
// floats, booleans, decimals), and otherwise in a chunked byte arena as a
// canonical encoding. Two tuples are equal exactly when delta-rs MERGE's
// equality join matches them (checked against deltalake 1.6.6): NaN equals
// NaN, -0.0 equals 0.0, and a tuple with a null in any column is never
// stored and never found.
//
// A Set is filled by one goroutine and may then be probed by many at once,
// each through its own Binding. The package never does I/O and never keeps
// a reference to the Arrow arrays it is shown.
package keyset
