// Package upserttest proves the upsert engine: a differential parity suite
// against delta-rs MERGE (and an in-memory model of the upsert semantics),
// deletes and idempotent redelivery, SIGKILL crash tests and multi-process
// concurrency tests. It holds tests only; see README.md.
package upserttest
