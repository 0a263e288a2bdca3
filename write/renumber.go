package write

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// pause waits before the n-th numbering again, as the spine waits before
// planning again.
func pause(ctx context.Context, n int) error { return op.Pause(ctx, n) }

// renumbered is an append's files numbered again past a concurrent
// commit's identity values.
type renumbered struct {
	adds []*protocol.Add
	md   *protocol.Metadata // the commit's metaData with the new high watermarks
	base *protocol.Metadata // the metaData the rows were numbered after
}

// renumbers reports whether an append that failed to commit with err lost
// a race that numbering its rows again resolves: another writer assigned
// identity values from the high watermark this append numbered from
// (txn.RuleIdentityHighWaterMark), and the append's own metaData change
// is the high watermarks alone. Its source was read once, so it cannot
// plan again from it; its rows are in its files, which renumber reads.
func (w *job) renumbers(err error, snap *snapshot.Snapshot, md *protocol.Metadata) bool {
	var ce *txn.ConflictError
	return errors.As(err, &ce) && ce.Rule == txn.RuleIdentityHighWaterMark &&
		w.wo.Mode == ModeAppend && w.replaceWhere == nil && w.ignore == nil && !snap.IsEmpty() &&
		w.rules.Numbered() && txn.OnlyHighWaterMarks(snap.Metadata(), md)
}

// renumber writes the rows of the append's files (adds, written against
// snap with metaData md) into new files, their identity values numbered
// afresh after the high watermarks of the newest table, through the
// table's rules again (a generated column or CHECK constraint may read an
// identity column). The caller deletes the old files and commits the new
// ones on snap, declaring the marks they follow (txn.NumberedAfter), so
// that the conflict rules still check every commit since snap. An error
// of its own leaves no new file behind.
func (w *job) renumber(ctx context.Context, snap *snapshot.Snapshot, md *protocol.Metadata, adds []*protocol.Add) (renumbered, error) {
	fresh, err := snapshot.Load(ctx, w.st)
	if err != nil {
		return renumbered{}, err
	}
	if !txn.SameShape(snap, fresh) {
		return renumbered{}, errs.New(errs.CommitConflict, w.st.URL(),
			"another writer changed the table's schema, partitioning or column mapping while this write numbered its identity values: write again")
	}
	target, err := schema.Parse(md.SchemaString)
	if err != nil {
		return renumbered{}, errs.Wrap(errs.Internal, w.st.URL(), err, "table schema")
	}
	rules, err := colrules.For(fresh.Metadata(), target, w.sess)
	if err != nil {
		return renumbered{}, errs.Wrap(errs.UnsupportedTable, w.st.URL(), err, "writing")
	}
	relaxed := rules.Relaxed(target)
	source := func(write func(arrow.RecordBatch) error) error {
		for _, a := range adds {
			_, seq, err := scan.New(snap, scan.WithFiles(a), scan.WithParallelism(1),
				scan.WithBatchSize(limits.DefaultReadBatchSize), scan.WithAllocator(w.wo.Allocator)).Records(ctx)
			if err != nil {
				return err
			}
			for rec, err := range seq {
				if err != nil {
					return err
				}
				if err := w.renumberBatch(ctx, rules, relaxed, rec, write); err != nil {
					return err
				}
			}
		}
		return nil
	}
	out, err := w.appendRows(ctx, target, md, source)
	if err != nil {
		return renumbered{}, err
	}
	next, err := rules.Metadata(md, snap.ColumnMapping())
	if err != nil {
		datafile.DeleteAdded(ctx, w.st, out)
		return renumbered{}, err
	}
	return renumbered{adds: out, md: next, base: fresh.Metadata()}, nil
}

// renumberBatch hands write one batch of an append's rows, numbered by
// rules (which hand out each value once).
func (w *job) renumberBatch(ctx context.Context, rules *colrules.Rules, relaxed *schema.Struct, rec arrow.RecordBatch, write func(arrow.RecordBatch) error) error {
	conformed, err := datafile.Conform(rec, relaxed, w.wo.Allocator)
	if err != nil {
		return err
	}
	defer conformed.Release()
	ruled, err := rules.Insert(ctx, conformed, w.given)
	if err != nil {
		return errs.Wrap(errs.InvalidArgument, w.st.URL(), err, "numbering the rows again: nothing was written")
	}
	defer ruled.Release()
	return write(ruled)
}
