// Package stats reads the per-file statistics of a Delta add action (the
// JSON string in Add.Stats: numRecords, minValues, maxValues, nullCount,
// tightBounds) into typed values, and compares typed values, so that a scan
// can skip files that cannot hold a matching row.
//
// It is lenient by design: a missing, malformed or untyped statistic means
// "unknown", never an error. Statistics only ever let a reader skip work;
// a reader that cannot trust them must read the file. It never does I/O.
package stats
