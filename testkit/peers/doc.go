// Package peers runs the reference engines (delta-rs, pyarrow, DuckDB,
// polars, Spark with Delta Lake) from Go tests, so that the tests can prove
// that deltalite reads what those engines write and that they read what
// deltalite writes.
//
// The engines live in a Python virtual environment that
// scripts/setup-test-env.sh installs into the repository (.venv, with the
// Delta jars for Spark under .cache). When it is missing, tests that need a
// peer are skipped, unless DELTALITE_REQUIRE_PEERS=1 is set (as `make test`
// and CI set it): then a missing peer fails the test.
//
// The Python side is in python/ at the repository root: read_table.py,
// write_table.py, merge_upsert.py and spark_ops.py. Rows cross the boundary
// as canonical JSON (python/peerlib/canon.py) and come back here as Arrow
// records, so that testkit/arrowrows renders both sides the same way.
//
// Spark starts slowly (tens of seconds), so one Spark process serves a whole
// test binary: Spark(t) starts it on first use, and every call sends it a
// batch of operations. Batch operations where you can.
//
// This package is test support: it must never be imported by non-test code.
package peers
