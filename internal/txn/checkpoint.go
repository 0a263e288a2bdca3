package txn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deltalite-go/deltalite/internal/checkpoint"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// afterCommit writes the checkpoint of res.Version when the table's
// checkpoint interval asks for one, then cleans up expired log files. The
// commit has happened: failures become warnings.
func (t *Txn) afterCommit(ctx context.Context, res *Result) {
	snap := res.Snapshot
	props := snap.TableProperties()
	interval, err := props.CheckpointInterval()
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Errorf("no checkpoint: %w", err))
		return
	}
	if res.Version == 0 || res.Version%interval != 0 {
		return
	}
	if err := WriteCheckpoint(ctx, snap, t.opt.Now()); err != nil {
		res.Warnings = append(res.Warnings, err)
		return
	}
	res.CheckpointWritten = true
	cleanup, err := props.Bool(protocol.PropEnableExpiredLogCleanup, true)
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Errorf("no log cleanup: %w", err))
		return
	}
	if !cleanup {
		return
	}
	n, err := CleanupExpiredLogs(ctx, snap, t.opt.Now())
	res.LogFilesDeleted = n
	if err != nil {
		res.Warnings = append(res.Warnings, err)
	}
}

// WriteCheckpoint writes the classic checkpoint of snap's version (with
// checkpointMetadata when the table has v2Checkpoint; stats as JSON and/or
// as structs as the table's properties ask) and points _last_checkpoint at
// it, unless _last_checkpoint already names a newer checkpoint. now decides
// which tombstones have expired. A checkpoint file of that version that
// exists already is kept as it is, with _last_checkpoint: it holds the same
// state, and another engine's may have a Hadoop checksum sidecar
// (.N.checkpoint.parquet.crc) that rewriting it would make Spark refuse.
func WriteCheckpoint(ctx context.Context, snap *snapshot.Snapshot, now time.Time) error {
	st, v := snap.Store(), snap.Version()
	if _, err := st.Head(ctx, protocol.CheckpointKey(v)); err == nil {
		return nil
	} else if !errors.Is(err, storage.ErrNotExist) {
		return errs.Wrap(errs.Internal, protocol.CheckpointKey(v), err, "checkpoint %d", v)
	}
	actions, err := snap.CheckpointActions(now)
	if err != nil {
		return fmt.Errorf("checkpoint %d: %w", v, err)
	}
	opt, err := checkpoint.OptionsFor(snap.Metadata())
	if err != nil {
		return fmt.Errorf("checkpoint %d: %w", v, err)
	}
	lc, err := PutCheckpoint(ctx, st, v, actions, opt)
	if err != nil {
		return fmt.Errorf("checkpoint %d: %w", v, err)
	}
	// Never move the hint backwards past a checkpoint another writer made.
	if data, err := storage.ReadAll(ctx, st, protocol.LastCheckpointKey); err == nil {
		if cur, err := checkpoint.DecodeLastCheckpoint(data); err == nil && cur.Version > v {
			return nil
		}
	}
	b, err := checkpoint.EncodeLastCheckpoint(lc)
	if err != nil {
		return fmt.Errorf("checkpoint %d: %w", v, err)
	}
	if err := st.Put(ctx, protocol.LastCheckpointKey, bytes.NewReader(b)); err != nil {
		return fmt.Errorf("checkpoint %d written, but not _last_checkpoint: %w", v, err)
	}
	return nil
}

// PutCheckpoint stores the classic checkpoint file of version, encoded from
// already reconciled actions by checkpoint.Encode, durably (a checkpoint
// lost to a power loss would still be listed, and refused, so it is synced
// as commits are). It is written with Put semantics, so rewriting an
// identical checkpoint is harmless; nothing is left behind on failure. It
// returns the _last_checkpoint content to store for it.
func PutCheckpoint(ctx context.Context, st storage.Store, version int64, actions []protocol.Action, opt checkpoint.WriteOptions) (checkpoint.LastCheckpoint, error) {
	key := protocol.CheckpointKey(version)
	obj, err := storage.Create(ctx, st, key)
	if err != nil {
		return checkpoint.LastCheckpoint{}, errs.Wrap(errs.Internal, key, err, "storing checkpoint")
	}
	lc, err := checkpoint.Encode(ctx, obj, version, actions, opt)
	if err != nil {
		obj.Abort()
		return checkpoint.LastCheckpoint{}, err
	}
	err = obj.Commit()
	if err == nil {
		err = storage.Sync(ctx, st, key)
	}
	if err != nil {
		return checkpoint.LastCheckpoint{}, errs.Wrap(errs.Internal, key, err, "storing checkpoint")
	}
	return lc, nil
}
