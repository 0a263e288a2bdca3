//go:build !duckdb_arrow

package duckdbio

// The package exchanges Arrow record batches with DuckDB, which duckdb-go
// compiles only with the build tag duckdb_arrow. Without it, this line makes
// the build fail with the undefined name below, which says what to do.
var _ = build_with_tags_duckdb_arrow
