package write

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// replaceWhere is a bound replace-where predicate and what it means for
// the files of the snapshot being overwritten.
type replaceWhere struct {
	pred *expr.Bound
	// decide classifies a live file: True, removed whole; False, kept;
	// Unknown, rewritten without the rows the predicate selects.
	decide func(*protocol.Add) expr.Tristate
}

func (w *job) bindReplaceWhere(snap *snapshot.Snapshot) (*replaceWhere, error) {
	pred, err := expr.ParsePredicate(w.wo.ReplaceWhere, snap.Schema())
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, w.st.URL(), err, "replace-where predicate")
	}
	sc, mode := snap.Schema(), snap.ColumnMapping()
	partsOnly := expr.OnlyPartitionColumns(pred, snap.PartitionColumns())
	return &replaceWhere{pred: pred, decide: func(a *protocol.Add) expr.Tristate {
		f := expr.File{PartitionValues: a.PartitionValues}
		if !partsOnly && a.DeletionVector == nil {
			// Statistics of a file with a DV may be wide: only partition
			// values decide it then.
			f.Stats = stats.Parse(a.Stats, sc, mode)
		}
		return expr.Decide(pred, f)
	}}, nil
}

// planReplaceWhere binds the replace-where predicate against snap and
// notes the files it selects only in part (w.rewrite): their other rows are
// written again.
func (w *job) planReplaceWhere(snap *snapshot.Snapshot) error {
	rw, err := w.bindReplaceWhere(snap)
	if err != nil {
		return err
	}
	w.replaceWhere = rw
	for _, f := range snap.Files() {
		if rw.decide(f) == expr.Unknown {
			w.rewrite = append(w.rewrite, f)
		}
	}
	return nil
}

// selects reports a live file the overwrite removes: one the predicate
// selects in whole or in part.
func (rw *replaceWhere) selects(a *protocol.Add) bool { return rw.decide(a) != expr.False }

// rowCheck returns the check every written batch must pass: under a
// replace-where predicate, every new row must satisfy it (as Spark
// requires), else nothing is committed.
func (w *job) rowCheck(ctx context.Context, sc *schema.Struct, md *protocol.Metadata) (func(arrow.RecordBatch) error, error) {
	if w.replaceWhere == nil {
		return nil, nil
	}
	return func(rec arrow.RecordBatch) error {
		i, err := expr.FirstNotTrue(ctx, rec, w.replaceWhere.pred)
		if err != nil {
			return errs.Wrap(errs.InvalidArgument, w.st.URL(), err, "evaluating the replace-where predicate")
		}
		if i >= 0 {
			return errs.New(errs.InvalidArgument, w.st.URL(),
				"row %d of the data does not satisfy the replace-where predicate %s: nothing was written", i, w.replaceWhere.pred)
		}
		return nil
	}, nil
}

// keptRows streams the rows of the partly selected files that the
// replace-where predicate does not select, for writing again.
func (w *job) keptRows(ctx context.Context, emit func(arrow.RecordBatch) error) error {
	if len(w.rewrite) == 0 {
		return nil
	}
	_, batches, err := scan.New(w.snap, scan.WithFiles(w.rewrite...)).Records(ctx)
	if err != nil {
		return err
	}
	for rec, err := range batches {
		if err != nil {
			return err
		}
		kept, err := expr.FilterNot(ctx, rec, w.replaceWhere.pred)
		if err != nil {
			return errs.Wrap(errs.Internal, w.st.URL(), err, "filtering rows to keep")
		}
		w.copiedRows += kept.NumRows()
		err = emit(kept)
		kept.Release()
		if err != nil {
			return err
		}
	}
	return nil
}
