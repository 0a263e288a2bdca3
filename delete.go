package deltalite

import (
	"context"

	"github.com/deltalite-go/deltalite/del"
)

// DeleteOptions configure a delete; see package del for every knob and
// its default. Predicate is required; deleting every row takes All.
type DeleteOptions = del.Options

// DeleteStats report a delete with Spark's DELETE metrics: rows deleted
// and copied, files removed, added and scanned, bytes removed and added,
// and the execution / scan / rewrite durations.
type DeleteStats = del.Stats

// Delete removes the rows for which opts.Predicate IS TRUE (DELETE FROM t
// WHERE ...), in one commit, and moves the table to that version. Files
// whose partition values and statistics decide the predicate are removed
// or kept without being read. A delete that removes nothing commits
// nothing.
func (t *Table) Delete(ctx context.Context, opts DeleteOptions) (DeleteStats, error) {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return DeleteStats{}, err
	}
	stats, post, err := del.Run(ctx, snap, opts)
	t.moveTo(snap, post)
	return stats, err
}
