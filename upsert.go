package deltalite

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
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
	t.moveTo(snap, post)
	return stats, err
}

// Upsert upserts src into the table at uri, as Table.Upsert does. With
// opts.CreateIfMissing a missing table is created from the source's
// columns (less opts.DeleteColumn), partitioned by opts.PartitionBy, with
// opts.Properties, in the same commit as the rows: version 0. A
// failed upsert, or one with no rows, creates nothing. When another writer
// creates the table first with the same schema and partitioning, the
// upsert goes into that table instead.
func Upsert(ctx context.Context, uri string, src array.RecordReader, opts UpsertOptions) (UpsertStats, error) {
	st, err := storeOf(ctx, uri, opts.StorageOptions, opts.Store)
	if err != nil {
		return UpsertStats{}, err
	}
	t, err := Open(ctx, uri, WithStore(st))
	if err == nil {
		return t.Upsert(ctx, src, opts)
	}
	if !errors.Is(err, errs.ErrTableNotFound) || !opts.CreateIfMissing {
		return UpsertStats{}, err
	}
	if src == nil || src.Schema() == nil {
		return UpsertStats{}, errs.New(errs.InvalidArgument, uri, "no source to upsert")
	}
	sc, err := op.SourceSchema(st.URL(), src.Schema())
	if err != nil {
		return UpsertStats{}, err
	}
	if opts.DeleteColumn != "" {
		sc = sc.Without(opts.DeleteColumn)
	}
	n := opts.Normalized()
	empty, err := op.Empty(st, sc, op.NewTableOptions{PartitionBy: n.PartitionBy, ClusterBy: n.ClusterBy, Properties: n.Properties})
	if err != nil {
		return UpsertStats{}, err
	}
	stats, _, err := upsert.Run(ctx, empty, src, opts)
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
