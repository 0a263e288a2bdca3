package op

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Check refuses a table an attempt of the operation may not write. It runs
// before every attempt, on the table that attempt plans against.
type Check func(*snapshot.Snapshot, txn.Operation) error

// The checks of Operate.
var (
	// ChangesRows is the check of an operation that removes or changes rows
	// (DELETE, UPDATE, MERGE): txn.CheckRewrite, which refuses the tables
	// whose features this engine cannot yet keep through a row change.
	ChangesRows Check = txn.CheckRewrite
	// Writes is the check of an operation that writes the same rows into
	// other files (OPTIMIZE), or decides in its attempt whether it changes
	// rows (the upsert, whose inserts alone are an append: it calls
	// txn.CheckRewrite when it removes a file).
	Writes Check = txn.CheckWritable
)

// Operate runs operation o on the table snap shows: check refuses a table
// it may not write, attempt plans, writes and commits against one
// snapshot, under Replan with retries (0: the default, negative: none). A
// panic becomes an errs.Internal error. On error the stats are zero and
// the snapshot nil.
//
// An attempt plans from the snapshot it is handed, so that a replan never
// re-adds rows a concurrent writer removed.
func Operate[S any](ctx context.Context, snap *snapshot.Snapshot, o txn.Operation, check Check, retries int,
	attempt func(context.Context, *snapshot.Snapshot) (S, *snapshot.Snapshot, error)) (s S, post *snapshot.Snapshot, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errs.Recovered(errs.Internal, "", o.Name, v)
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
		if err := check(snap, o); err != nil {
			return outcome{}, err
		}
		s, post, err := attempt(ctx, snap)
		return outcome{s, post}, err
	})
	return out.s, out.post, err
}

// Replan runs attempt against snap and, while it fails with a conflict
// that planning again on the newer table resolves, against the refreshed
// table: at most maxRetries more times (negative: none), pausing longer
// each time, with jitter so that writers that lost together do not collide
// again. A conflict always means another writer made progress, so this
// cannot livelock.
//
// Planning again resolves a conflict txn.Replannable names (another writer
// added to or removed from what the attempt read), and, for an attempt
// that was creating the table (snap.IsEmpty()), another writer creating it
// first with the same schema and partitioning. When the table's schema,
// partitioning or column mapping changed meanwhile (txn.SameShape), the
// error is returned: the operation was planned for the old shape.
func Replan[T any](ctx context.Context, snap *snapshot.Snapshot, maxRetries int,
	attempt func(context.Context, *snapshot.Snapshot) (T, error)) (T, error) {
	for n := 0; ; n++ {
		out, err := attempt(ctx, snap)
		created := snap.IsEmpty() && errors.Is(err, errs.ErrTableExists)
		if err == nil || n >= maxRetries || !(created || txn.Replannable(err)) {
			return out, err
		}
		fresh, rerr := snap.Refresh(ctx)
		if rerr != nil {
			return out, err
		}
		if !txn.SameShape(snap, fresh) {
			if created {
				return out, errs.New(errs.TableExists, snap.Store().URL(),
					"another writer created the table first, with a schema or partitioning other than this operation's: run it again on that table")
			}
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
