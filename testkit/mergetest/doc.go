// Package mergetest proves MERGE, DELETE and UPDATE against delta-rs: its
// tests draw seeded random scenarios (a table, partitioned or not, with
// NULLs and NULL keys; MERGE steps with random clause sets, ON predicates,
// expressions, casts and schema evolution; random DELETE and UPDATE steps),
// apply each step to a copy of the table with delta-rs (deltalake 1.6.6,
// one Python process per scenario) and with this engine, and compare the
// content and the row counts after every step. See README.md.
//
// The package holds tests only.
package mergetest
