package txn

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Commit writes the transaction as the next table version. When another
// writer took that version it reads the commits made since the read
// version, runs the conflict rules, and retries at the version after the
// newest of them, up to Options.MaxRetries times with backoff. A conflict
// fails at once; running out of retries fails too. Both are
// errs.CommitConflict errors whose Err is a *ConflictError naming the rule
// and the winning version. After the commit, a checkpoint and log cleanup
// may run; their failures are Result.Warnings, never errors.
func (t *Txn) Commit(ctx context.Context) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, errs.Recovered(errs.Internal, "", "commit", r)
		}
	}()
	if t.committed {
		return nil, invalid("the transaction has already committed")
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	if err := checkCallerMetadata(t.opt.Metadata); err != nil {
		return nil, err
	}
	level, err := t.isolationLevel()
	if err != nil {
		return nil, err
	}
	at := attempt{version: t.ReadVersion() + 1, isolation: level}
	if at.highWaterMark, err = t.readHighWaterMark(); err != nil {
		return nil, err
	}
	if ictEnabled(t.newMetadata()) && t.snap != nil {
		ts, err := t.snap.CommitTimestamp(ctx)
		if err != nil {
			return nil, err
		}
		ms := ts.UnixMilli()
		at.prevTime = &ms
	}
	var winners [][]protocol.Action
	for attempts := 1; ; attempts++ {
		if err := ctx.Err(); err != nil {
			return nil, errs.Wrap(errs.Canceled, t.st.URL(), err, "commit")
		}
		at.now = t.opt.Now()
		actions := t.commitActions(at)
		data, err := protocol.EncodeCommit(actions)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "encoding the commit")
		}
		key := protocol.CommitKey(at.version)
		perr := t.st.PutIfAbsent(ctx, key, data)
		if perr == nil {
			return t.finish(ctx, at.version, attempts, winners, actions), nil
		}
		if !errors.Is(perr, storage.ErrExist) {
			// The write may have landed even so (a timed-out request the
			// store completed): our txnId in the commit tells.
			if got, err := readCommit(ctx, t.st, at.version); err == nil && got != nil && newWinner(at.version, got).txnID() == t.id {
				return t.finish(ctx, at.version, attempts, winners, got), nil
			}
			return nil, errs.Wrap(errs.Internal, key, perr, "writing the commit")
		}
		if t.snap == nil {
			return nil, errs.New(errs.TableExists, t.st.URL(), "another writer created the table first")
		}
		// Read every commit made since, check it, and move past it.
		for {
			got, err := readCommit(ctx, t.st, at.version)
			if err != nil {
				return nil, err
			}
			if got == nil {
				break
			}
			w := newWinner(at.version, got)
			if w.txnID() == t.id {
				// An earlier attempt landed after all.
				return t.finish(ctx, at.version, attempts, winners, got), nil
			}
			c, err := t.check(w, level)
			if err != nil {
				return nil, err
			}
			if c != nil {
				return nil, conflictErr(c)
			}
			if m, ok, err := winnerHighWaterMark(w); err != nil {
				return nil, err
			} else if ok {
				at.highWaterMark = m
			}
			winners = append(winners, got)
			at.prevTime = commitTimeOf(got)
			at.version++
		}
		if attempts > t.opt.MaxRetries {
			return nil, conflictErr(&ConflictError{Rule: RuleRetriesExhausted, WinningVersion: at.version - 1,
				Detail: fmt.Sprintf("gave up after %d attempts: other writers kept taking the next version (the commits since version %d do not conflict with this one)",
					attempts, t.ReadVersion())})
		}
		if err := sleep(ctx, t.opt.Backoff(attempts)); err != nil {
			return nil, errs.Wrap(errs.Canceled, t.st.URL(), err, "commit")
		}
	}
}

// readCommit reads and decodes commit v; nil, nil when it does not exist.
func readCommit(ctx context.Context, st storage.Store, v int64) ([]protocol.Action, error) {
	key := protocol.CommitKey(v)
	data, err := storage.ReadAll(ctx, st, key)
	if errors.Is(err, storage.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.Wrap(errs.Internal, key, err, "reading a concurrent commit")
	}
	actions, err := protocol.DecodeCommit(data)
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, key, err, "decoding a concurrent commit")
	}
	return actions, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// finish builds the result of a commit that landed at version: the
// post-commit snapshot (from the read snapshot plus the winners' and our
// actions, so exactly at version), then the checkpoint and log cleanup.
func (t *Txn) finish(ctx context.Context, version int64, attempts int, winners [][]protocol.Action, ours []protocol.Action) *Result {
	t.committed = true
	res := &Result{Version: version, Attempts: attempts}
	var post *snapshot.Snapshot
	var err error
	if t.snap == nil {
		post, err = snapshot.LoadVersion(ctx, t.st, version)
	} else {
		post, err = t.snap.Advance(append(winners, ours))
	}
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Errorf("building the snapshot of version %d: %w", version, err))
		return res
	}
	res.Snapshot = post
	func() {
		// The commit stands whatever happens after it.
		defer func() {
			if r := recover(); r != nil {
				res.Warnings = append(res.Warnings, errs.Recovered(errs.Internal, "", fmt.Sprintf("after commit %d", version), r))
			}
		}()
		t.afterCommit(ctx, res)
	}()
	return res
}

// Create commits version 0 of a new table: the protocol, the metaData and
// any further actions (the first data files). It fails with
// errs.TableExists when the table's log already has a commit or checkpoint,
// or when another writer creates it first.
func Create(ctx context.Context, st storage.Store, p *protocol.Protocol, md *protocol.Metadata, actions []protocol.Action, op Operation, opt Options) (*Result, error) {
	if st == nil {
		return nil, invalid("no store to create the table in")
	}
	if p == nil || md == nil {
		return nil, invalid("creating a table needs a protocol and a metaData action")
	}
	exists, err := logExists(ctx, st)
	if err != nil {
		return nil, err
	}
	if exists {
		return nil, errs.New(errs.TableExists, st.URL(), "a Delta table already exists here")
	}
	empty, err := snapshot.Empty(st, p, md)
	if err != nil {
		return nil, err
	}
	t := Begin(empty, op, opt)
	t.Add(actions...)
	return t.Commit(ctx)
}

// logExists reports whether _delta_log holds a commit or a checkpoint.
func logExists(ctx context.Context, st storage.Store) (bool, error) {
	for o, err := range st.List(ctx, protocol.LogDir, "") {
		if err != nil {
			return false, errs.Wrap(errs.Internal, st.URL(), err, "listing the transaction log")
		}
		if protocol.ParseLogFile(o.Key).Kind != protocol.OtherFile {
			return true, nil
		}
	}
	return false, nil
}
