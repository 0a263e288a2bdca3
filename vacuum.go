package deltalite

import (
	"context"

	"github.com/deltalite-go/deltalite/vacuum"
)

// VacuumOptions configure a vacuum; see package vacuum for every knob and
// its default. The zero value is a full vacuum with the table's retention
// (delta.deletedFileRetentionDuration, else 7 days), enforced.
type VacuumOptions = vacuum.Options

// VacuumStats report a vacuum: the files deleted (or that a dry run would
// delete), their size, and the metrics VACUUM START and END record.
type VacuumStats = vacuum.Stats

// Vacuum deletes the files no version within the retention needs, as
// Spark's VACUUM does, recording VACUUM START and VACUUM END commits, and
// moves the table to the last of them. A dry run deletes and commits
// nothing and lists the files.
func (t *Table) Vacuum(ctx context.Context, opts VacuumOptions) (VacuumStats, error) {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return VacuumStats{}, err
	}
	stats, post, err := vacuum.Run(ctx, snap, opts)
	t.moveTo(snap, post)
	return stats, err
}
