package rewrite

import (
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Decide returns the classifier of snap's live files for pred, from their
// partition values and statistics: True, every live row matches (remove
// the file whole); False, none does (leave it); Unknown, read it. A nil
// pred matches every row. Statistics of a file with a deletion vector
// describe a superset of its live rows, which still proves all or none.
func Decide(snap *snapshot.Snapshot, pred *expr.Bound) func(*protocol.Add) expr.Tristate {
	if pred == nil {
		return func(*protocol.Add) expr.Tristate { return expr.True }
	}
	sc, mode := snap.Schema(), snap.ColumnMapping()
	partsOnly := expr.OnlyPartitionColumns(pred, snap.PartitionColumns())
	return func(a *protocol.Add) expr.Tristate {
		f := expr.File{PartitionValues: a.PartitionValues}
		if !partsOnly {
			f.Stats = stats.Parse(a.Stats, sc, mode)
		}
		return expr.Decide(pred, f)
	}
}

// LiveRows is the number of live rows of a file by its log entry (its
// record count less its deletion vector's), and whether the log knows it.
func LiveRows(snap *snapshot.Snapshot, a *protocol.Add) (int64, bool) {
	fs := stats.Parse(a.Stats, snap.Schema(), snap.ColumnMapping())
	if fs == nil || fs.NumRecords < 0 || a.Stats == "" {
		return 0, false
	}
	n := fs.NumRecords
	if a.DeletionVector != nil {
		n -= a.DeletionVector.Cardinality
	}
	return n, true
}
