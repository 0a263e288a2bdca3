package rewrite

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
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

// CountRows is the number of live rows of a file: from its log entry
// (record count less deletion vector) when it has statistics, else by
// reading the file's row counts (opened reports that it did).
func CountRows(ctx context.Context, snap *snapshot.Snapshot, a *protocol.Add) (n int64, opened bool, err error) {
	if fs := stats.Parse(a.Stats, snap.Schema(), snap.ColumnMapping()); fs != nil && fs.NumRecords >= 0 {
		n = fs.NumRecords
		if a.DeletionVector != nil {
			n -= a.DeletionVector.Cardinality
		}
		return n, false, nil
	}
	_, seq, err := scan.New(snap, scan.WithFiles(a), scan.WithColumns()).Records(ctx)
	if err != nil {
		return 0, true, err
	}
	for rec, err := range seq {
		if err != nil {
			return 0, true, err
		}
		n += rec.NumRows()
	}
	return n, true, nil
}

// Select evaluates pred on rec: sel[i] reports whether pred IS TRUE for
// row i when match is true, whether it IS NOT TRUE (false or null) when
// match is false; matched counts the rows for which it IS TRUE.
func Select(ctx context.Context, rec arrow.RecordBatch, pred *expr.Bound, match bool) (sel []bool, matched int64, err error) {
	m, err := expr.Mask(ctx, rec, pred)
	if err != nil {
		return nil, 0, err
	}
	defer m.Release()
	sel = make([]bool, m.Len())
	for i := range sel {
		hit := m.IsValid(i) && m.Value(i)
		if hit {
			matched++
		}
		sel[i] = hit == match
	}
	return sel, matched, nil
}
