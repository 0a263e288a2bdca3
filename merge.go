package deltalite

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/merge"
)

// MergeOptions configure a MERGE INTO; see package merge for the clauses,
// the presets and every knob. Predicate (the ON condition) and a MergeType
// or Clauses are required.
type MergeOptions = merge.Options

// MergeStats report a merge with Spark's MERGE metrics: source rows,
// target rows inserted, updated, deleted and copied, files scanned,
// skipped, added and removed, and the durations.
type MergeStats = merge.Stats

// Merge runs MERGE INTO this table USING src ON opts.Predicate with the
// clauses of opts, in one commit, with memory bounded by the source and
// the budget knobs, never by the table, and moves the table to the version
// it committed. A merge that changes nothing commits nothing.
func (t *Table) Merge(ctx context.Context, src array.RecordReader, opts MergeOptions) (MergeStats, error) {
	if src == nil {
		return MergeStats{}, errs.New(errs.InvalidArgument, t.URI(), "no source to merge")
	}
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return MergeStats{}, err
	}
	stats, post, err := merge.Run(ctx, snap, src, opts)
	t.moveTo(snap, post)
	return stats, err
}

// MergeBatch merges one record batch.
func (t *Table) MergeBatch(ctx context.Context, rec arrow.RecordBatch, opts MergeOptions) (MergeStats, error) {
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		return MergeStats{}, errs.Wrap(errs.InvalidArgument, t.URI(), err, "source batch")
	}
	defer rr.Release()
	return t.Merge(ctx, rr, opts)
}

// Merge merges src into the table at uri, opened with opts.StorageOptions
// or opts.Store, as Table.Merge does. With opts.CreateIfMissing a missing
// table is created from the source's columns in the merge's commit.
func Merge(ctx context.Context, uri string, src array.RecordReader, opts MergeOptions) (MergeStats, error) {
	st, err := storeOf(ctx, uri, opts.StorageOptions, opts.Store)
	if err != nil {
		return MergeStats{}, err
	}
	if !opts.CreateIfMissing {
		t, err := Open(ctx, uri, WithStore(st))
		if err != nil {
			return MergeStats{}, err
		}
		return t.Merge(ctx, src, opts)
	}
	snap, err := loadOrNew(ctx, st, src, nil, op.NewTableOptions{PartitionBy: opts.PartitionBy, ClusterBy: opts.ClusterBy, Properties: opts.Properties})
	if err != nil {
		return MergeStats{}, err
	}
	stats, _, err := merge.Run(ctx, snap, src, opts)
	return stats, err
}
