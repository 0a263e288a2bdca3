package deltalite

import (
	"context"

	"github.com/deltalite-go/deltalite/update"
)

// UpdateOptions configure an update; see package update for every knob
// and its default. Set and Predicate are required; updating every row
// takes All.
type UpdateOptions = update.Options

// UpdateStats report an update with Spark's UPDATE metrics: rows updated
// and copied, files removed, added and scanned, bytes removed and added,
// and the execution / scan / rewrite durations.
type UpdateStats = update.Stats

// Update gives the rows for which opts.Predicate IS TRUE the values of
// opts.Set (UPDATE t SET ... WHERE ...), in one commit, and moves the table
// to that version. Only files holding a matching row are rewritten; an
// update that matches no row commits nothing.
func (t *Table) Update(ctx context.Context, opts UpdateOptions) (UpdateStats, error) {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return UpdateStats{}, err
	}
	stats, post, err := update.Run(ctx, snap, opts)
	t.moveTo(snap, post)
	return stats, err
}
