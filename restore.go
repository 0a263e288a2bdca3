package deltalite

import (
	"context"
	"time"

	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/restore"
)

// RestoreOptions configure a restore; see package restore. Exactly one of
// Version and Timestamp must be set.
type RestoreOptions = restore.Options

// RestoreStats report a restore with Spark's RESTORE metrics: files
// restored and removed with their sizes, and the table's files and size
// after it.
type RestoreStats = restore.Stats

// Restore makes the table show the state of an earlier version (RESTORE
// TABLE t TO VERSION AS OF / TIMESTAMP AS OF), in one commit that adds
// back the files of that version and removes the others, and moves the
// table to that commit. It is refused, naming a file, when a file to add
// back is gone (vacuumed); restoring to the current version commits
// nothing.
func (t *Table) Restore(ctx context.Context, opts RestoreOptions) (RestoreStats, error) {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return RestoreStats{}, err
	}
	stats, post, err := restore.Run(ctx, snap, opts)
	t.moveTo(snap, post)
	return stats, err
}

// CheckpointInfo names the checkpoint Checkpoint wrote.
type CheckpointInfo struct {
	// Version is the version the checkpoint holds.
	Version int64 `json:"version"`
	// File is its key under the table root.
	File string `json:"file"`
}

// Checkpoint writes a checkpoint of the table's newest version (the kind
// the table uses: with checkpointMetadata when it has the v2Checkpoint
// feature) and points _last_checkpoint at it, so that readers replay the
// log from there. Commits write one every delta.checkpointInterval
// versions already; this is for a checkpoint now.
func (t *Table) Checkpoint(ctx context.Context) (CheckpointInfo, error) {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return CheckpointInfo{}, err
	}
	t.moveTo(snap, nil)
	if err := txn.WriteCheckpoint(ctx, snap, time.Now()); err != nil {
		return CheckpointInfo{}, err
	}
	return CheckpointInfo{Version: snap.Version(), File: protocol.CheckpointKey(snap.Version())}, nil
}

// CleanupMetadata deletes the log files that delta.logRetentionDuration
// (default 30 days) lets go, as delta-rs cleanup_metadata does: commits
// and checkpoints older than the newest checkpoint made before the
// retention cutoff. Every version within the retention stays readable;
// without such a checkpoint nothing is deleted. It returns how many files
// went. Commits run it after each checkpoint unless
// delta.enableExpiredLogCleanup is false; this runs it now regardless.
func (t *Table) CleanupMetadata(ctx context.Context) (int, error) {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return 0, err
	}
	t.moveTo(snap, nil)
	return txn.CleanupExpiredLogs(ctx, snap, time.Now())
}
