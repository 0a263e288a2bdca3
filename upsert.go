package deltalite

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/upsert"
)

// UpsertOptions configure an upsert; see package upsert for every knob
// and its default. PrimaryKeys is required.
type UpsertOptions = upsert.Options

// UpsertStats report an upsert: version, partitions touched, files added,
// removed, carried over and probed, rows updated, inserted, deleted and
// copied, and the plan / rewrite / commit durations.
type UpsertStats = upsert.Stats

// Upsert inserts or replaces the source rows by primary key within their
// partition, in one commit, with memory bounded by the source and the
// budget knobs, never by the table. The table moves to the version the
// upsert committed.
func (t *Table) Upsert(ctx context.Context, src array.RecordReader, opts UpsertOptions) (UpsertStats, error) {
	if src == nil {
		return UpsertStats{}, errs.New(errs.InvalidArgument, t.URI(), "no source to upsert")
	}
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return UpsertStats{}, err
	}
	stats, post, err := upsert.Run(ctx, snap, src, opts)
	if post != nil {
		t.set(post)
	} else if snap != t.Snapshot() {
		t.set(snap)
	}
	return stats, err
}

// UpsertTable upserts an in-memory Arrow table.
func (t *Table) UpsertTable(ctx context.Context, tbl arrow.Table, opts UpsertOptions) (UpsertStats, error) {
	rr := array.NewTableReader(tbl, -1)
	defer rr.Release()
	return t.Upsert(ctx, rr, opts)
}

// UpsertBatch upserts one record batch.
func (t *Table) UpsertBatch(ctx context.Context, rec arrow.RecordBatch, opts UpsertOptions) (UpsertStats, error) {
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		return UpsertStats{}, errs.Wrap(errs.InvalidArgument, t.URI(), err, "source batch")
	}
	defer rr.Release()
	return t.Upsert(ctx, rr, opts)
}
