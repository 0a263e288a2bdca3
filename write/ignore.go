package write

import (
	"context"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// ignoreWhere is a bound IgnoreWhere predicate and the classifier of the
// files of the table it was bound to: those it may select are what the
// append read, so that a concurrent commit adding such a file conflicts.
type ignoreWhere struct {
	pred   *expr.Bound
	decide func(*protocol.Add) expr.Tristate
}

// IgnoreSkips reports whether a write in mode ignore narrowed by the SQL
// predicate where (Options.IgnoreWhere) skips the table snap shows: it
// holds a row where selects. Files are decided by the log where it can
// (partition values, statistics), else read up to their first such row.
// Run decides with it and pins its append to the same table; a caller
// whose append commits through another engine can only decide first.
func IgnoreSkips(ctx context.Context, snap *snapshot.Snapshot, where, sessionTimeZone string) (bool, error) {
	sess, err := op.Session(sessionTimeZone)
	if err != nil {
		return false, err
	}
	_, skip, err := bindIgnore(ctx, snap, where, sess)
	return skip, err
}

func bindIgnore(ctx context.Context, snap *snapshot.Snapshot, where string, sess expr.Session) (*ignoreWhere, bool, error) {
	pred, err := sess.ParsePredicate(where, snap.Schema())
	if err != nil {
		return nil, false, errs.Wrap(errs.InvalidArgument, snap.Store().URL(), err, "ignore-where predicate (Options.IgnoreWhere)")
	}
	iw := &ignoreWhere{pred: pred, decide: op.Decide(snap, pred)}
	var undecided []*protocol.Add
	for _, a := range snap.Files() {
		switch iw.decide(a) {
		case expr.True: // every live row matches: skip unless it has none
			n, _, err := rewrite.CountRows(ctx, snap, a)
			if err != nil {
				return nil, false, err
			}
			if n > 0 {
				return nil, true, nil
			}
		case expr.Unknown:
			undecided = append(undecided, a)
		}
	}
	hits, err := rewrite.Matching(ctx, snap, undecided, pred, rewrite.Options{})
	if err != nil {
		return nil, false, err
	}
	return iw, len(hits) > 0, nil
}

// skips reports whether the write to snap writes nothing: its app
// transaction is already applied, or IgnoreWhere selects a row of snap.
// An ignore-where write that goes ahead keeps the predicate bound to
// snap (w.ignore) as its commit's read set.
func (w *job) skips(ctx context.Context, snap *snapshot.Snapshot) (bool, error) {
	if w.wo.AppID != "" && txn.AppTxnApplied(snap, w.wo.AppID, w.wo.AppVersion) {
		return true, nil
	}
	if w.wo.IgnoreWhere == "" {
		return false, nil
	}
	iw, skip, err := bindIgnore(ctx, snap, w.wo.IgnoreWhere, w.sess)
	if err != nil {
		return false, err
	}
	if skip {
		return true, nil
	}
	w.ignore = iw
	return false, nil
}

// readIgnored declares what an ignore-where append read: the files that
// may hold rows the predicate selects. A commit adding such a file after
// snap then conflicts (it is no blind append), and the write decides
// again on the newer table (commitPinned).
func (w *job) readIgnored(t *txn.Txn) {
	decide := w.ignore.decide
	t.ReadPredicate(func(a *protocol.Add) bool { return decide(a) != expr.False },
		"the files that may hold rows where "+w.ignore.pred.String())
}

// pinned is the outcome of a commit that may have decided to skip.
type pinned struct {
	res     *txn.Result
	skipped *snapshot.Snapshot // the newer table that made an ignore-where write skip
}

// commitPinned commits the written files to snap. An ignore-where append
// that a concurrent commit conflicts with (another writer added rows the
// predicate may select) decides again on the newer table, in the spine's
// replan loop: it skips, or commits the same files there.
func (w *job) commitPinned(ctx context.Context, snap *snapshot.Snapshot, md *protocol.Metadata, o txn.Operation, adds []*protocol.Add, res *Result) (pinned, error) {
	if w.ignore == nil || snap.IsEmpty() {
		r, err := w.commit(ctx, snap, md, o, adds, res)
		return pinned{res: r}, err
	}
	first := snap
	return op.Replan(ctx, snap, txn.Retries(w.wo.CommitMaxRetries), func(ctx context.Context, s *snapshot.Snapshot) (pinned, error) {
		md := md
		if s != first {
			if w.rules.Numbered() {
				// Its rows' identity values may be another writer's now.
				return pinned{}, errs.New(errs.CommitConflict, w.st.URL(), "another writer changed the table while this write gave its rows identity values: write again")
			}
			if skip, err := w.skips(ctx, s); err != nil || skip {
				return pinned{skipped: s}, err
			}
			if err := txn.CheckWritable(s, o); err != nil {
				return pinned{}, err
			}
			// The same schema (op.Replan checks it), perhaps other
			// properties: evolve the newer table's metadata, not the old.
			var err error
			if md, err = w.metadataFor(s); err != nil {
				return pinned{}, err
			}
		}
		r, err := w.commit(ctx, s, md, o, adds, res)
		return pinned{res: r}, err
	})
}
