package rewrite

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Commit is the one commit of a row-rewriting operation: what it read (so
// that the conflict checker sees it) and what it changes.
type Commit struct {
	Op      txn.Operation
	Options txn.Options
	// Read selects the files whose concurrent addition or removal changes
	// the operation's result (its predicate's files); nil reads the whole
	// table. ReadDescription names it in conflict messages.
	Read            func(*protocol.Add) bool
	ReadDescription string
	// ReadFiles are the files the operation read or removes.
	ReadFiles []*protocol.Add
	Removes   []*protocol.Remove
	Adds      []*protocol.Add
	Metrics   map[string]any
	// NewMetadata, when set, is committed before the files: the table's
	// metadata with a schema the operation evolved.
	NewMetadata *protocol.Metadata
	// AppID, when set, records the app transaction (AppID, AppVersion).
	AppID      string
	AppVersion int64
}

// Run commits against snap and returns the table at the new version (nil
// when it cannot be loaded: the commit stands, the caller reloads). When
// the commit certainly did not land, the added files are deleted.
func (c Commit) Run(ctx context.Context, snap *snapshot.Snapshot) (*snapshot.Snapshot, int64, error) {
	t := txn.Begin(snap, c.Op, c.Options)
	if c.Read == nil {
		t.ReadWholeTable()
	} else {
		t.ReadPredicate(c.Read, c.ReadDescription)
	}
	t.ReadFiles(c.ReadFiles...)
	if c.NewMetadata != nil {
		t.Add(protocol.Action{Metadata: c.NewMetadata})
	}
	for _, r := range c.Removes {
		t.Add(protocol.Action{Remove: r})
	}
	for _, a := range c.Adds {
		t.Add(protocol.Action{Add: a})
	}
	if c.AppID != "" {
		t.SetAppTxn(c.AppID, c.AppVersion)
	}
	t.SetOperationMetrics(c.Metrics)
	res, err := t.Commit(ctx)
	if err != nil {
		if txn.NotLanded(err) {
			datafile.DeleteAdded(context.WithoutCancel(ctx), snap.Store(), c.Adds)
		}
		return nil, 0, err
	}
	post := res.Snapshot
	if post == nil {
		post, _ = snapshot.LoadVersion(context.WithoutCancel(ctx), snap.Store(), res.Version)
	}
	return post, res.Version, nil
}

// Replan runs attempt against snap and, while it fails with a conflict
// that planning again on the newer table resolves (txn.Replannable:
// another writer added to or removed from what it read), against the
// refreshed table: at most
// maxRetries more times (negative: none), pausing longer each time, with
// jitter so that writers that lost together do not collide again. A
// conflict always means another writer made progress, so this cannot
// livelock. When the table's schema, partitioning or column mapping
// changed meanwhile (txn.SameShape), the conflict is returned: the operation was planned
// for the old shape.
func Replan[T any](ctx context.Context, snap *snapshot.Snapshot, maxRetries int,
	attempt func(context.Context, *snapshot.Snapshot) (T, error)) (T, error) {
	for n := 0; ; n++ {
		out, err := attempt(ctx, snap)
		if err == nil || n >= maxRetries || !txn.Replannable(err) {
			return out, err
		}
		fresh, rerr := snap.Refresh(ctx)
		if rerr != nil || !txn.SameShape(snap, fresh) {
			return out, err
		}
		if perr := Pause(ctx, n+1); perr != nil {
			return out, perr
		}
		snap = fresh
	}
}

// Pause waits before planning again: about n times 50ms, with jitter.
func Pause(ctx context.Context, n int) error {
	d := time.Duration(n) * 50 * time.Millisecond
	d = d/2 + rand.N(d/2+1)
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return errs.Wrap(errs.Canceled, "", ctx.Err(), "planning again")
	case <-tm.C:
		return nil
	}
}

// Operate runs a row-rewriting operation op on the table snap shows: it
// refuses a table whose features forbid rewriting rows
// (txn.CheckRewrite), runs attempt under Replan with retries (0: the
// default, negative: none), and turns a panic into an errs.Internal
// error. On error the stats are zero and the snapshot nil.
func Operate[S any](ctx context.Context, snap *snapshot.Snapshot, op txn.Operation, retries int,
	attempt func(context.Context, *snapshot.Snapshot) (S, *snapshot.Snapshot, error)) (S, *snapshot.Snapshot, error) {
	return operate(ctx, snap, op, retries, txn.CheckRewrite, attempt)
}

// Rearrange is Operate for an operation that writes the same rows into
// other files (OPTIMIZE): it refuses only tables this engine cannot write
// (txn.CheckWritable), since no row is removed or changed. attempt plans
// from the snapshot it is handed, so a replan never re-adds rows that a
// concurrent writer removed.
func Rearrange[S any](ctx context.Context, snap *snapshot.Snapshot, op txn.Operation, retries int,
	attempt func(context.Context, *snapshot.Snapshot) (S, *snapshot.Snapshot, error)) (S, *snapshot.Snapshot, error) {
	return operate(ctx, snap, op, retries, txn.CheckWritable, attempt)
}

func operate[S any](ctx context.Context, snap *snapshot.Snapshot, op txn.Operation, retries int,
	check func(*snapshot.Snapshot, txn.Operation) error,
	attempt func(context.Context, *snapshot.Snapshot) (S, *snapshot.Snapshot, error)) (s S, post *snapshot.Snapshot, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errs.Recovered(errs.Internal, "", op.Name, v)
		}
		if err != nil {
			var zero S
			s, post = zero, nil
		}
	}()
	type outcome struct {
		s    S
		post *snapshot.Snapshot
	}
	out, err := Replan(ctx, snap, txn.Retries(retries), func(ctx context.Context, snap *snapshot.Snapshot) (outcome, error) {
		if err := check(snap, op); err != nil {
			return outcome{}, err
		}
		s, post, err := attempt(ctx, snap)
		return outcome{s, post}, err
	})
	return out.s, out.post, err
}

// Knobs are the reading and writing knobs of an operation's options.
type Knobs struct {
	MaxParallelFiles                      int
	MaxBufferedBytes                      int64
	ReadBatchSize                         int
	TargetFileSize                        int64
	MultipartThreshold, MultipartPartSize int64
}

// Options are the rewrite options of the knobs on snap's store.
func (k Knobs) Options(snap *snapshot.Snapshot, lim *limits.Limits) (Options, error) {
	out, err := storage.WithUploads(snap.Store(), k.MultipartThreshold, k.MultipartPartSize)
	if err != nil {
		return Options{}, err
	}
	return Options{
		Store: out, TargetFileSize: k.TargetFileSize, MaxParallelFiles: k.MaxParallelFiles,
		MaxBufferedBytes: k.MaxBufferedBytes, ReadBatchSize: k.ReadBatchSize, Limits: lim,
	}, nil
}
