package scan

import (
	"testing"

	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// TestRowIndexCountsDeletedRows: positions are the file's, deleted rows
// counted (the DV of table-with-dv-small deletes rows 0 and 9), and they
// survive a predicate on another column and a batch boundary.
func TestRowIndexCountsDeletedRows(t *testing.T) {
	src := openTable(t, "delta-rs/table-with-dv-small")
	arrowrows.Diff(t, readRows(t, src, WithRowIndex(), WithWhere("value >= 6"), WithBatchSize(3)), []string{
		"_metadata.row_index=6, value=6", "_metadata.row_index=7, value=7", "_metadata.row_index=8, value=8",
	})
	arrowrows.Diff(t, readRows(t, src, WithColumns(), WithRowIndex()), []string{
		"_metadata.row_index=1", "_metadata.row_index=2", "_metadata.row_index=3", "_metadata.row_index=4",
		"_metadata.row_index=5", "_metadata.row_index=6", "_metadata.row_index=7", "_metadata.row_index=8",
	})
}
