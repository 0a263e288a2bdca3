package del

import (
	"context"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Run deletes the rows of the table snap shows for which opt.Predicate IS
// TRUE (every row with opt.All) and returns the stats and the table after
// the commit (snap itself when nothing was deleted). Errors are
// *deltalite.Error values: deltalite.ErrInvalidArgument for a predicate that does
// not parse or bind (naming its column) or is empty without opt.All (or
// is given with it), deltalite.ErrUnsupportedTable for a
// table whose features forbid deletes, deltalite.ErrCommitConflict, ...
func Run(ctx context.Context, snap *snapshot.Snapshot, opt Options) (Stats, *snapshot.Snapshot, error) {
	start := time.Now()
	if snap == nil || snap.IsEmpty() {
		return Stats{}, nil, errs.New(errs.InvalidArgument, "", "a delete needs an existing table")
	}
	sess, err := op.Session(opt.SessionTimeZone)
	if err != nil {
		return Stats{}, nil, err
	}
	pred, err := op.Predicate("DELETE", opt.Predicate, opt.All, snap, sess)
	if err != nil {
		return Stats{}, nil, err
	}
	o := op.Operation(txn.OpDelete, pred)
	o.KeepsColumnRules = true // the rows a delete keeps are unchanged, so they still hold
	o.WritesChangeData = true // through op.Write
	o.KeepsRowIDs = true      // through op.Write
	return op.Operate(ctx, snap, o, op.ChangesRows, opt.CommitMaxRetries, func(ctx context.Context, snap *snapshot.Snapshot) (Stats, *snapshot.Snapshot, error) {
		return attempt(ctx, snap, pred, o, opt, start)
	})
}

// attempt plans, rewrites and commits against snap.
func attempt(ctx context.Context, snap *snapshot.Snapshot, pred *expr.Bound, o txn.Operation, opt Options, start time.Time) (s Stats, _ *snapshot.Snapshot, err error) {
	t := time.Now()
	ro, err := op.Knobs{
		MaxParallelFiles: opt.MaxParallelFiles, MaxBufferedBytes: opt.MaxBufferedBytes, ReadBatchSize: opt.ReadBatchSize,
		TargetFileSize: opt.TargetFileSize, MultipartThreshold: opt.MultipartThreshold, MultipartPartSize: opt.MultipartPartSize,
	}.Options(snap, opt.Limits)
	if err != nil {
		return s, nil, err
	}
	plan, err := op.PlanFiles(ctx, snap, pred, ro)
	if err != nil {
		return s, nil, err
	}
	whole, files := plan.All, plan.Some
	for _, a := range whole {
		n, counted, err := rewrite.CountRows(ctx, snap, a)
		if err != nil {
			return s, nil, err
		}
		if counted {
			s.FilesScanned++
		}
		s.RowsDeleted += n
		s.BytesRemoved += a.Size
	}
	s.FilesScanned += plan.Scanned
	s.ScanDuration = time.Since(t)

	t = time.Now()
	w, err := op.Write(ctx, snap, op.Change{Drop: whole, Files: files, Rows: keepUnmatched(pred), Where: pred, WhereDeletes: true, CopyOnWrite: opt.CopyOnWrite}, ro)
	if err != nil {
		return s, nil, err
	}
	s.RewriteDuration = time.Since(t)
	s.RowsDeleted += w.RowsDropped
	s.RowsCopied = w.RowsCopied()
	s.FilesRemoved = w.FilesRemoved
	s.DeletionVectorsAdded = w.DeletionVectors
	s.FilesAdded = w.FilesAdded
	s.BytesRemoved += w.BytesRemoved
	s.BytesAdded = w.BytesAdded
	s.ChangeFilesAdded = len(w.CDC)
	if len(w.Removes) == 0 {
		s.Version = snap.Version()
		s.ExecutionDuration = time.Since(start)
		return s, snap, nil
	}
	s.ExecutionDuration = time.Since(start)
	c := op.Commit{
		Op: o, Options: txn.Options{MaxRetries: opt.CommitMaxRetries, Metadata: opt.CommitMetadata},
		ReadFiles: append(whole, files...), Removes: w.Removes, Adds: w.Adds, CDC: w.CDC, Metrics: s.Metrics(),
	}
	plan.ReadSet(&c, pred)
	post, v, err := c.Run(ctx, snap)
	if err != nil {
		return s, nil, err
	}
	s.Version = v
	return s, post, nil
}

// keepUnmatched keeps the rows for which pred IS NOT TRUE: false or null.
func keepUnmatched(pred *expr.Bound) rewrite.Func {
	return func(ctx context.Context, b rewrite.Batch) (rewrite.Output, error) {
		keep, _, err := rewrite.Select(ctx, b.Rec, pred, false)
		return rewrite.Output{Keep: keep}, err
	}
}
