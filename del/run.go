package del

import (
	"context"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
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
	pred, err := rewrite.Predicate("DELETE", opt.Predicate, opt.All, snap)
	if err != nil {
		return Stats{}, nil, err
	}
	op := rewrite.Operation(txn.OpDelete, pred)
	op.ChecksConstraints = true // the rows a delete keeps are unchanged, so they still hold
	return rewrite.Operate(ctx, snap, op, opt.CommitMaxRetries, func(ctx context.Context, snap *snapshot.Snapshot) (Stats, *snapshot.Snapshot, error) {
		return attempt(ctx, snap, pred, op, opt, start)
	})
}

// attempt plans, rewrites and commits against snap.
func attempt(ctx context.Context, snap *snapshot.Snapshot, pred *expr.Bound, op txn.Operation, opt Options, start time.Time) (s Stats, _ *snapshot.Snapshot, err error) {
	t := time.Now()
	ro, err := rewrite.Knobs{
		MaxParallelFiles: opt.MaxParallelFiles, MaxBufferedBytes: opt.MaxBufferedBytes, ReadBatchSize: opt.ReadBatchSize,
		TargetFileSize: opt.TargetFileSize, MultipartThreshold: opt.MultipartThreshold, MultipartPartSize: opt.MultipartPartSize,
	}.Options(snap, opt.Limits)
	if err != nil {
		return s, nil, err
	}
	plan, err := rewrite.PlanFiles(ctx, snap, pred, ro)
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
	res, err := rewrite.Run(ctx, snap, files, keepUnmatched(pred), ro)
	if err != nil {
		return s, nil, err
	}
	s.RewriteDuration = time.Since(t)
	s.RowsDeleted += res.RowsDropped
	s.RowsCopied = res.RowsCopied()
	s.FilesRemoved = len(whole) + res.FilesRead
	s.FilesAdded = res.FilesAdded
	s.BytesRemoved += res.BytesRemoved
	s.BytesAdded = res.BytesAdded
	if s.FilesRemoved == 0 {
		s.Version = snap.Version()
		s.ExecutionDuration = time.Since(start)
		return s, snap, nil
	}
	now := time.Now().UnixMilli()
	removes := make([]*protocol.Remove, 0, s.FilesRemoved)
	for _, a := range whole {
		removes = append(removes, protocol.RemoveOf(a, now))
	}
	removes = append(removes, res.Removes...)
	s.ExecutionDuration = time.Since(start)
	c := rewrite.Commit{
		Op: op, Options: txn.Options{MaxRetries: opt.CommitMaxRetries, Metadata: opt.CommitMetadata},
		ReadFiles: append(whole, files...), Removes: removes, Adds: res.Adds, Metrics: s.Metrics(),
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
