//go:build !duckdb_arrow

package duckdbio

// The package exchanges Arrow record batches with DuckDB, which duckdb-go
// compiles only with the build tag duckdb_arrow. Without it the build stops
// on this line, and the compiler prints the string in full: it says what
// to run instead.
var _ int = "integrations/duckdb needs cgo and the build tag duckdb_arrow: go build -tags duckdb_arrow ./cmd/deltalite-duckdb (go test and go vet alike)"
