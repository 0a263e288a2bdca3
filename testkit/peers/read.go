package peers

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Engines that ReadTable can read with. Spark is among them but slow to
// start: prefer Spark(t).Read, which shares one Spark process per test binary.
const (
	DeltaRS = "deltalake" // delta-rs's query engine
	PyArrow = "pyarrow"   // delta-rs plans the files, pyarrow reads the Parquet
	DuckDB  = "duckdb"    // delta-rs plans the files, DuckDB reads the Parquet
	// DuckDBDelta is DuckDB's own delta extension (delta-kernel-rs plans,
	// DuckDB reads), loaded from the duckdb-extension-delta wheel.
	DuckDBDelta = "duckdb-delta"
	Polars      = "polars" // polars.read_delta
)

// ReadOptions select what ReadTable reads.
type ReadOptions struct {
	// Version to read (time travel); nil reads the latest.
	Version *int64
	// Timestamp (RFC 3339) to read as of, instead of Version.
	Timestamp string
	// Columns to project; empty reads all.
	Columns []string
	// Partitions are "col=value" filters, as delta-rs partition filters.
	Partitions []string
}

// ReadTable reads the Delta table at path with a peer engine and returns
// its rows; a failed read fails the test.
func ReadTable(t testing.TB, engine, path string, opts ReadOptions) Table {
	t.Helper()
	tb, err := TryReadTable(t, engine, path, opts)
	if err != nil {
		t.Fatalf("peers: %v", err)
	}
	return tb
}

// TryReadTable is ReadTable returning a failed read as an error, for tests
// that expect a peer to refuse a table.
func TryReadTable(t testing.TB, engine, path string, opts ReadOptions) (Table, error) {
	t.Helper()
	args := []string{path, "--engine", engine}
	if opts.Version != nil {
		args = append(args, "--version", strconv.FormatInt(*opts.Version, 10))
	}
	if opts.Timestamp != "" {
		args = append(args, "--timestamp", opts.Timestamp)
	}
	if len(opts.Columns) > 0 {
		args = append(args, "--columns", strings.Join(opts.Columns, ","))
	}
	for _, p := range opts.Partitions {
		args = append(args, "--partition", p)
	}
	out, err := TryPython(t, Options{}, "read_table.py", args...)
	if err != nil {
		return Table{}, err
	}
	return DecodeTable(out)
}

// WriteResult is what write_table.py reports.
type WriteResult struct {
	Engine  string            `json:"engine"`
	Path    string            `json:"path"`
	Version *int64            `json:"version"`
	Steps   []json.RawMessage `json:"steps"`
}

// WriteTable makes a table with a peer from a spec (see python/write_table.py:
// {"engine": "deltalake"|"spark", "path": ..., "steps": [...]}); a failed
// step fails the test. Spark specs start their own Spark process: inside a
// test binary that already uses Spark(t), send the steps there instead.
func WriteTable(t testing.TB, spec any) WriteResult {
	t.Helper()
	in, err := json.Marshal(spec)
	if err != nil {
		t.Fatalf("peers: write spec: %v", err)
	}
	out := RunPythonWith(t, Options{Stdin: in, Timeout: SparkTimeout()}, "write_table.py", "-")
	var res WriteResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("peers: write_table.py output %q: %v", out, err)
	}
	return res
}

// Int64 is a convenience for ReadOptions.Version.
func Int64(v int64) *int64 { return &v }
