package write

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
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
	pred, err := w.sess.ParsePredicate(w.wo.ReplaceWhere, snap.Schema())
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

// replaceRows hands the spine (op.Write) the change of an overwrite with a
// replace-where predicate: the files it selects whole leave, the files it
// selects in part (w.rewrite) lose the rows it selects, and the source
// rows come in. It keeps the removes for the commit.
func (w *job) replaceRows(ctx context.Context, sc *schema.Struct, source func(func(arrow.RecordBatch) error) error) ([]*protocol.Add, error) {
	var drop []*protocol.Add
	for _, f := range w.snap.Files() {
		if w.replaceWhere.decide(f) == expr.True {
			drop = append(drop, f)
		}
	}
	// Kept rows take the written schema when the write evolves it.
	evolved := sc.JSON() != w.snap.Schema().JSON()
	rows := func(ctx context.Context, b rewrite.Batch) (rewrite.Output, error) {
		keep, _, err := rewrite.Select(ctx, b.Rec, w.replaceWhere.pred, false)
		if err != nil {
			return rewrite.Output{}, errs.Wrap(errs.InvalidArgument, b.File.Path, err, "evaluating the replace-where predicate")
		}
		out := rewrite.Output{Keep: keep}
		if evolved {
			if out.Replace, err = datafile.Conform(b.Rec, sc, w.wo.Allocator); err != nil {
				return rewrite.Output{}, err
			}
		}
		return out, nil
	}
	insert := func(_ context.Context, write func(arrow.RecordBatch) error) error { return source(write) }
	written, err := op.Write(ctx, w.snap, op.Change{Drop: drop, Files: w.rewrite, Rows: rows, Insert: insert}, rewrite.Options{
		Schema: sc, Store: w.st, TargetFileSize: w.wo.TargetFileSize, Compression: w.wo.Compression, Allocator: w.wo.Allocator,
	})
	if err != nil {
		return nil, err
	}
	w.copiedRows, w.replaced, w.cdc = written.RowsKept, written.Removes, written.CDC
	return written.Adds, nil
}
