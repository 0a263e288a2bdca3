package deltalite

import (
	"context"

	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/scan"
)

// OptimizeOptions configure a compaction; see package optimize for every
// knob and its default. The zero value compacts every partition to the
// table's target file size in one commit.
type OptimizeOptions = optimize.Options

// OptimizeStats report a compaction with delta-rs's OPTIMIZE metrics:
// files added and removed with their sizes, partitions optimized,
// batches, files considered and skipped.
type OptimizeStats = optimize.Stats

// OptimizeFilter is one delta-rs-style partition filter (column, op,
// value) of OptimizeOptions.PartitionFilters.
//
// Deprecated: use scan.Filter.
type OptimizeFilter = scan.Filter

// Optimize compacts the small files of the table's partitions into files
// near the target size (OPTIMIZE), with dataChange=false, and moves the
// table to the version it committed. Concurrent appends never conflict
// with it. Nothing to compact commits nothing.
func (t *Table) Optimize(ctx context.Context, opts OptimizeOptions) (OptimizeStats, error) {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return OptimizeStats{}, err
	}
	stats, post, err := optimize.Run(ctx, snap, opts)
	t.moveTo(snap, post)
	return stats, err
}
