//go:build duckdb_arrow

package duckdbio_test

import (
	"testing"

	"github.com/deltalite-go/deltalite/testkit/docblocks"
)

// TestEnginesDocGoBlocks keeps docs/engines.md honest: each Go block is an
// example the tests compile, our scan's and DuckDB's in this module,
// Spark's in integrations/spark (whose tests compile it).
func TestEnginesDocGoBlocks(t *testing.T) {
	blocks := docblocks.Check(t, "../../docs/engines.md",
		"docs_scan_example_test.go", "docs_duckdb_example_test.go", "../spark/sparkdelta/docs_example_test.go")
	if blocks < 3 {
		t.Errorf("docs/engines.md has %d Go blocks, want one per engine", blocks)
	}
}
