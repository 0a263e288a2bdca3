package vacuum

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Statuses of VACUUM END.
const (
	StatusCompleted = "COMPLETED"
	StatusFailed    = "FAILED"
)

// endTimeout bounds the VACUUM END FAILED commit written after the call's
// context ended.
const endTimeout = 30 * time.Second

// Run vacuums the table snap shows and returns the stats and the table
// after the VACUUM END commit (snap itself when nothing was committed).
// Errors are *deltalite.Error values: deltalite.ErrInvalidArgument for a retention
// below the table's (naming the minimum) or a negative one,
// deltalite.ErrUnsupportedTable for a table with writer features this engine
// lacks, deltalite.ErrCorruptTable for a log path that cannot be resolved; a
// failed delete is returned after VACUUM END records status FAILED.
func Run(ctx context.Context, snap *snapshot.Snapshot, opt Options) (Stats, *snapshot.Snapshot, error) {
	start := time.Now()
	if snap == nil || snap.IsEmpty() {
		return Stats{}, nil, errs.New(errs.InvalidArgument, "", "a vacuum needs an existing table")
	}
	opt = opt.withDefaults()
	s := Stats{Version: snap.Version(), DryRun: opt.DryRun, Lite: opt.Lite}
	// Spark's protocolWrite: an engine that does not know every feature of
	// the table may not judge which files the table still needs.
	if err := txn.CheckWritable(snap, txn.Operation{Name: txn.OpVacuumStart, WritesNoRows: true}); err != nil {
		return s, nil, err
	}
	var err error
	if s.Retention, s.DefaultRetention, err = retention(snap, opt); err != nil {
		return s, nil, err
	}
	cutoff := opt.Now().Add(-s.Retention).UnixMilli()
	prog := newProgress(opt.Progress)
	needed, err := neededKeys(snap, cutoff)
	if err != nil {
		return s, nil, err
	}
	var found []storage.ObjectInfo
	if opt.Lite {
		found, err = expiredTombstones(snap, needed, cutoff)
	} else {
		found, s.Directories, err = listUnneeded(ctx, snap, needed, cutoff, opt.MaxParallelList, prog)
	}
	if err != nil {
		return s, nil, err
	}
	slices.SortFunc(found, func(a, b storage.ObjectInfo) int { return strings.Compare(a.Key, b.Key) })
	for _, o := range found {
		s.Files = append(s.Files, o.Key)
		s.BytesToDelete += o.Size
	}
	if opt.DryRun || len(s.Files) == 0 {
		s.ExecutionDuration = time.Since(start)
		return s, snap, nil
	}

	params := map[string]any{
		"retentionCheckEnabled":  !opt.NoEnforceRetention,
		"defaultRetentionMillis": s.DefaultRetention.Milliseconds(),
	}
	if opt.RetentionHours != nil {
		params["specifiedRetentionMillis"] = s.Retention.Milliseconds()
	}
	post, err := commit(ctx, snap, txn.Operation{Name: txn.OpVacuumStart, Parameters: params, WritesNoRows: true},
		map[string]any{"numFilesToDelete": len(s.Files), "sizeOfDataToDelete": s.BytesToDelete}, opt)
	if err != nil {
		return s, nil, err
	}
	s.Version = post.Version()

	prog.toDelete(len(s.Files))
	deleted, derr := deleteKeys(ctx, snap.Store(), s.Files, opt, prog)
	s.FilesDeleted = deleted
	end := txn.Operation{Name: txn.OpVacuumEnd, Parameters: map[string]any{"status": StatusCompleted}, WritesNoRows: true}
	var metrics map[string]any
	ectx := ctx
	if derr != nil {
		// Spark records a failed vacuum without metrics; the record is
		// written even when the failure is the caller's cancellation.
		end.Parameters["status"] = StatusFailed
		var cancel context.CancelFunc
		ectx, cancel = context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
		defer cancel()
	} else {
		metrics = map[string]any{"numDeletedFiles": s.FilesDeleted, "numVacuumedDirectories": s.Directories}
	}
	endSnap, err := commit(ectx, post, end, metrics, opt)
	s.ExecutionDuration = time.Since(start)
	if derr != nil {
		if err == nil {
			s.Version, post = endSnap.Version(), endSnap
		}
		return s, post, derr
	}
	if err != nil {
		return s, post, err
	}
	s.Version = endSnap.Version()
	return s, endSnap, nil
}

// retention is the retention to apply and the table's own.
func retention(snap *snapshot.Snapshot, opt Options) (time.Duration, time.Duration, error) {
	def, err := snap.TableProperties().Duration(protocol.PropDeletedFileRetention, DefaultRetention)
	if err != nil {
		return 0, 0, errs.Wrap(errs.CorruptTable, "", err,
			"set %s to an interval like 'interval 7 days'", protocol.PropDeletedFileRetention)
	}
	if opt.RetentionHours == nil {
		return def, def, nil
	}
	h := *opt.RetentionHours
	if h < 0 || int64(h) > math.MaxInt64/int64(time.Hour) {
		return 0, 0, errs.New(errs.InvalidArgument, "", "retention of %d hours: give 0 or more hours, up to %d",
			h, math.MaxInt64/int64(time.Hour))
	}
	ret := time.Duration(h) * time.Hour
	if ret < def && !opt.NoEnforceRetention {
		minHours := int64((def + time.Hour - 1) / time.Hour)
		return 0, 0, errs.New(errs.InvalidArgument, "",
			"a retention of %d hours is below the table's %s of %d hours: versions within it could no longer be read, "+
				"and files a concurrent writer is about to commit could be deleted. Use at least %d hours, "+
				"or turn the check off (NoEnforceRetention, --no-enforce-retention) when no other writer is active",
			h, protocol.PropDeletedFileRetention, minHours, minHours)
	}
	return ret, def, nil
}

// expired reports whether a tombstone was removed before the cutoff (ms),
// so that no version within the retention has its file.
func expired(r *protocol.Remove, cutoff int64) bool {
	var ts int64
	if r.DeletionTimestamp != nil {
		ts = *r.DeletionTimestamp
	}
	return ts < cutoff
}

// neededKeys are the keys of the files some version within the retention
// reads: the live adds' and the unexpired tombstones', with their
// deletion vector files.
func neededKeys(snap *snapshot.Snapshot, cutoff int64) (map[string]bool, error) {
	needed := make(map[string]bool, snap.NumFiles())
	note := func(p string, d *protocol.DeletionVector) error {
		keys, err := fileKeys(snap.Store(), p, 0, d)
		for _, k := range keys {
			needed[k.Key] = true
		}
		return err
	}
	for _, a := range snap.Files() {
		if err := note(a.Path, a.DeletionVector); err != nil {
			return nil, err
		}
	}
	for _, r := range snap.Tombstones() {
		if !expired(r, cutoff) {
			if err := note(r.Path, r.DeletionVector); err != nil {
				return nil, err
			}
		}
	}
	return needed, nil
}

// fileKeys are the objects under the table root a file action names: its
// data file (of the given size) and its deletion vector file (of the
// size the descriptor gives). Paths outside the root are another
// location's files and are left out.
func fileKeys(st storage.Store, p string, size int64, d *protocol.DeletionVector) ([]storage.ObjectInfo, error) {
	var out []storage.ObjectInfo
	key, err := protocol.ObjectKey(st.URL(), p)
	switch {
	case err == nil:
		out = append(out, storage.ObjectInfo{Key: key, Size: size})
	case !errors.Is(err, protocol.ErrOutsideRoot):
		return nil, errs.Wrap(errs.CorruptTable, p, err, "file path in the log cannot be resolved")
	}
	if d == nil {
		return out, nil
	}
	key, err = dv.FileKey(st, d)
	switch {
	case err == nil && key != "":
		out = append(out, storage.ObjectInfo{Key: key, Size: int64(d.SizeInBytes)})
	case err != nil && !errors.Is(err, protocol.ErrOutsideRoot):
		return nil, err
	}
	return out, nil
}

// expiredTombstones are Lite mode's files: those of the expired
// tombstones the log still has that nothing needed names.
func expiredTombstones(snap *snapshot.Snapshot, needed map[string]bool, cutoff int64) ([]storage.ObjectInfo, error) {
	var out []storage.ObjectInfo
	seen := map[string]bool{}
	for _, r := range snap.Tombstones() {
		if !expired(r, cutoff) {
			continue
		}
		var size int64
		if r.Size != nil {
			size = *r.Size
		}
		keys, err := fileKeys(snap.Store(), r.Path, size, r.DeletionVector)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if needed[k.Key] || seen[k.Key] || inLog(k.Key) {
				continue
			}
			seen[k.Key] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// inLog reports whether key lies in _delta_log, which a vacuum never
// touches whatever an action names.
func inLog(key string) bool { return strings.HasPrefix(key, "_delta_log/") }

// commit writes one VACUUM START or END commit, with no actions.
func commit(ctx context.Context, snap *snapshot.Snapshot, op txn.Operation, metrics map[string]any, opt Options) (*snapshot.Snapshot, error) {
	t := txn.Begin(snap, op, txn.Options{MaxRetries: opt.CommitMaxRetries, Metadata: opt.CommitMetadata})
	if metrics != nil {
		t.SetOperationMetrics(metrics)
	}
	res, err := t.Commit(ctx)
	if err != nil {
		return nil, err
	}
	if res.Snapshot != nil {
		return res.Snapshot, nil
	}
	return snapshot.LoadVersion(context.WithoutCancel(ctx), snap.Store(), res.Version)
}

// deleteKeys deletes keys in batches of opt.DeleteBatchSize, at most
// opt.MaxParallelDeletes at once, and returns how many the batches that
// succeeded held. The first failure stops the batches not yet started.
func deleteKeys(ctx context.Context, st storage.Store, keys []string, opt Options, prog *progress) (int, error) {
	var deleted atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.MaxParallelDeletes)
	for batch := range slices.Chunk(keys, opt.DeleteBatchSize) {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := st.Delete(gctx, batch...); err != nil {
				return errs.Wrap(errs.Internal, batch[0], err, "deleting %d files", len(batch))
			}
			deleted.Add(int64(len(batch)))
			prog.add(0, len(batch))
			return nil
		})
	}
	err := g.Wait()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil && ctx.Err() != nil {
		err = errs.Wrap(errs.Canceled, st.URL(), ctx.Err(), "vacuum")
	}
	return int(deleted.Load()), err
}
