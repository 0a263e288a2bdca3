package restore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// OpRestore is the commitInfo operation, spelled as Spark and delta-rs do.
const OpRestore = txn.OpRestore

// Run restores the table snap shows to opt.Version or opt.Timestamp and
// returns the stats and the table after the commit (snap itself when the
// table is already at that version). Errors are *deltalite.Error values:
// deltalite.ErrInvalidArgument for options naming no version or both or a
// timestamp after the latest commit,
// deltalite.ErrNotFound for a version or timestamp the log does not have or a file
// to add back that is gone, deltalite.ErrCommitConflict when another writer changed
// the table after snap.
func Run(ctx context.Context, snap *snapshot.Snapshot, opt Options) (Stats, *snapshot.Snapshot, error) {
	if snap == nil || snap.IsEmpty() {
		return Stats{}, nil, errs.New(errs.InvalidArgument, "", "a restore needs an existing table")
	}
	target, err := loadTarget(ctx, snap, opt)
	if err != nil {
		return Stats{}, nil, err
	}
	s := Stats{Version: snap.Version(), RestoredVersion: target.Version(), NumOfFilesAfterRestore: int64(target.NumFiles())}
	for _, a := range target.Files() {
		s.TableSizeAfterRestore += a.Size
	}
	if target.Version() == snap.Version() {
		return s, snap, nil
	}

	adds, removes := diff(snap, target, time.Now().UnixMilli())
	for _, a := range adds {
		s.NumRestoredFiles++
		s.RestoredFilesSize += a.Size
	}
	for _, r := range removes {
		s.NumRemovedFiles++
		s.RemovedFilesSize += *r.Size
	}
	// metaData and protocol are committed only when they change: either
	// action fails every concurrent writer, a blind append included.
	proto := protocol.MergeProtocols(snap.Protocol(), target.Protocol())
	newProto := !protocol.SameProtocol(proto, snap.Protocol())
	newMetadata := !protocol.SameMetadata(target.Metadata(), snap.Metadata())
	if len(adds) == 0 && len(removes) == 0 && !newMetadata && !newProto {
		return s, snap, nil // the table already shows that state (restored to it before)
	}
	if err := checkPresent(ctx, snap.Store(), adds, target.Version(), opt.MaxParallelChecks); err != nil {
		return Stats{}, nil, err
	}

	params := map[string]any{"version": target.Version()}
	if opt.Version == nil {
		params = map[string]any{"timestamp": opt.Timestamp.UTC().Format(time.RFC3339Nano)}
	}
	t := txn.Begin(snap, txn.Operation{Name: OpRestore, Parameters: params}, txn.Options{MaxRetries: -1, Metadata: opt.CommitMetadata})
	t.ReadWholeTable()
	// The protocol and metaData first, as Spark writes them.
	if newProto {
		t.Add(protocol.Action{Protocol: proto})
	}
	if newMetadata {
		t.Add(protocol.Action{Metadata: target.Metadata()})
	}
	for _, a := range adds {
		t.Add(protocol.Action{Add: a})
	}
	for _, r := range removes {
		t.Add(protocol.Action{Remove: r})
	}
	t.SetOperationMetrics(s.Metrics())
	res, err := t.Commit(ctx)
	var c *txn.ConflictError
	if errors.As(err, &c) && c.Rule == txn.RuleRetriesExhausted {
		// No retry was allowed: say why rather than "raise MaxRetries".
		return Stats{}, nil, errs.New(errs.CommitConflict, snap.Store().URL(),
			"version %d was committed after the restore read version %d, and a restore fails on any concurrent commit "+
				"(a VACUUM might be deleting the files it adds back): run it again", c.WinningVersion, snap.Version())
	}
	if err != nil {
		return Stats{}, nil, err
	}
	s.Version = res.Version
	post := res.Snapshot
	if post == nil {
		post, _ = snapshot.LoadVersion(context.WithoutCancel(ctx), snap.Store(), res.Version)
	}
	return s, post, nil
}

// loadTarget is the snapshot to restore to, checked against snap.
func loadTarget(ctx context.Context, snap *snapshot.Snapshot, opt Options) (*snapshot.Snapshot, error) {
	st := snap.Store()
	switch {
	case opt.Version == nil && opt.Timestamp.IsZero():
		return nil, errs.New(errs.InvalidArgument, "", "a restore needs a version or a timestamp to restore to")
	case opt.Version != nil && !opt.Timestamp.IsZero():
		return nil, errs.New(errs.InvalidArgument, "", "a restore takes a version or a timestamp, not both")
	case opt.Version != nil:
		v := *opt.Version
		if v < 0 || v > snap.Version() {
			return nil, errs.New(errs.NotFound, st.URL(), "cannot restore to version %d: the table's versions go up to %d", v, snap.Version())
		}
		target, err := snapshot.LoadVersion(ctx, st, v)
		if err != nil {
			return nil, wrapTarget(err, "version %d", v)
		}
		return target, nil
	}
	target, err := snapshot.LoadAt(ctx, st, opt.Timestamp)
	if err != nil {
		return nil, wrapTarget(err, "timestamp %s", opt.Timestamp.UTC().Format(time.RFC3339Nano))
	}
	if target.Version() > snap.Version() {
		return nil, errs.New(errs.CommitConflict, st.URL(),
			"version %d, committed after the version %d the restore read, is current at %s: re-read the table and restore again",
			target.Version(), snap.Version(), opt.Timestamp.UTC().Format(time.RFC3339Nano))
	}
	return target, nil
}

// wrapTarget says which restore point could not be loaded, keeping the
// kind of the failure (a cleaned-up version is NotFound).
func wrapTarget(err error, format string, args ...any) error {
	var e *errs.Error
	kind := errs.Internal
	if errors.As(err, &e) {
		kind = e.Kind
	}
	return errs.Wrap(kind, "", err, "loading the "+format+" to restore to", args...)
}

// diff is Spark's: files are keyed by path and deletion vector; those of
// target not live now come back, those live now and not in target go.
func diff(now, target *snapshot.Snapshot, ts int64) ([]*protocol.Add, []*protocol.Remove) {
	canon := protocol.NewState(now.Store().URL())
	key := func(a *protocol.Add) protocol.FileKey {
		return protocol.FileKey{Path: canon.CanonicalPath(a.Path), DV: a.DeletionVector.UniqueID()}
	}
	live := make(map[protocol.FileKey]bool, now.NumFiles())
	for _, a := range now.Files() {
		live[key(a)] = true
	}
	kept := make(map[protocol.FileKey]bool, target.NumFiles())
	var adds []*protocol.Add
	for _, a := range target.Files() {
		k := key(a)
		kept[k] = true
		if !live[k] {
			c := *a // the snapshot's action is shared and immutable
			c.DataChange = true
			adds = append(adds, &c)
		}
	}
	var removes []*protocol.Remove
	for _, a := range now.Files() {
		if !kept[key(a)] {
			removes = append(removes, protocol.RemoveOf(a, ts))
		}
	}
	return adds, removes
}

// checkPresent looks up every file to add back and its deletion vector
// file, at most parallel at once, and refuses the restore naming the first
// missing one (in path order) and how many more are gone.
func checkPresent(ctx context.Context, st storage.Store, adds []*protocol.Add, version int64, parallel int) error {
	if parallel <= 0 {
		parallel = DefaultMaxParallelChecks
	}
	var keys []string
	for _, a := range adds {
		k, err := protocol.ObjectKey(st.URL(), a.Path)
		if err != nil {
			return errs.Wrap(errs.CorruptTable, a.Path, err, "version %d names a file outside the table", version)
		}
		keys = append(keys, k)
		if a.DeletionVector != nil {
			dk, err := dv.FileKey(st, a.DeletionVector)
			if err != nil {
				return err
			}
			if dk != "" {
				keys = append(keys, dk)
			}
		}
	}
	missing := make([]bool, len(keys))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i, k := range keys {
		g.Go(func() error {
			_, err := st.Head(gctx, k)
			if errors.Is(err, storage.ErrNotExist) {
				missing[i] = true
				return nil
			}
			if err != nil {
				return errs.Wrap(errs.Internal, k, err, "checking that a file to restore exists")
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return errs.Wrap(errs.Canceled, st.URL(), ctx.Err(), "restore")
		}
		return err
	}
	var gone []string
	for i, m := range missing {
		if m {
			gone = append(gone, keys[i])
		}
	}
	if len(gone) == 0 {
		return nil
	}
	sort.Strings(gone)
	more := ""
	if len(gone) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(gone)-1)
	}
	return errs.New(errs.NotFound, gone[0],
		"cannot restore to version %d: the file is gone from the store%s, removed by hand or by a VACUUM; restore to a later version instead",
		version, more)
}
