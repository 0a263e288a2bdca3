package update

import (
	"context"
	"time"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Run updates the rows of the table snap shows for which opt.Predicate IS
// TRUE (every row with opt.All) with opt.Set, and returns the stats and the
// table after the commit (snap itself when no row matched). Errors are
// *deltalite.Error values: deltalite.ErrInvalidArgument for an assignment or
// predicate that does not parse or bind, or an empty predicate without
// opt.All, deltalite.ErrSchemaMismatch for a value that does not fit its column
// (a NULL for a NOT NULL one), deltalite.ErrUnsupportedTable for a table whose
// features forbid updates, deltalite.ErrCommitConflict, ...
func Run(ctx context.Context, snap *snapshot.Snapshot, opt Options) (Stats, *snapshot.Snapshot, error) {
	start := time.Now()
	if snap == nil || snap.IsEmpty() {
		return Stats{}, nil, errs.New(errs.InvalidArgument, "", "an update needs an existing table")
	}
	sess, err := op.Session(opt.SessionTimeZone)
	if err != nil {
		return Stats{}, nil, err
	}
	sets, err := bindAssignments(sess, snap.Schema(), opt.Set)
	if err != nil {
		return Stats{}, nil, err
	}
	pred, err := op.Predicate("UPDATE", opt.Predicate, opt.All, snap, sess)
	if err != nil {
		return Stats{}, nil, err
	}
	o := op.Operation(txn.OpUpdate, pred)
	rules, err := colrules.For(snap.Metadata(), snap.Schema(), sess)
	if err != nil {
		return Stats{}, nil, err
	}
	o.KeepsColumnRules = true // every updated row goes through rules
	o.WritesChangeData = true // through op.Write
	o.KeepsRowIDs = true      // through op.Write, updated rows by position (rewrite.Output.Updated)
	return op.Operate(ctx, snap, o, op.ChangesRows, opt.CommitMaxRetries, func(ctx context.Context, snap *snapshot.Snapshot) (Stats, *snapshot.Snapshot, error) {
		return attempt(ctx, snap, pred, sets, rules, o, opt, start)
	})
}

// attempt plans, rewrites and commits against snap.
func attempt(ctx context.Context, snap *snapshot.Snapshot, pred *expr.Bound, sets []assignment, rules *colrules.Rules, o txn.Operation, opt Options, start time.Time) (s Stats, _ *snapshot.Snapshot, err error) {
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
	files := append(plan.All, plan.Some...)
	s.FilesScanned = plan.Scanned
	s.ScanDuration = time.Since(t)

	t = time.Now()
	res, err := op.Write(ctx, snap, op.Change{Files: files, Rows: assign(pred, sets, rules), Where: pred, CopyOnWrite: opt.CopyOnWrite}, ro)
	if err != nil {
		return s, nil, err
	}
	s.RewriteDuration = time.Since(t)
	s.FilesScanned += len(plan.All)
	s.RowsUpdated = res.RowsChanged
	s.RowsCopied = res.RowsCopied()
	s.FilesRemoved, s.FilesAdded, s.DeletionVectorsAdded = res.FilesRemoved, res.FilesAdded, res.DeletionVectors
	s.BytesRemoved, s.BytesAdded = res.BytesRemoved, res.BytesAdded
	s.ChangeFilesAdded = len(res.CDC)
	s.ExecutionDuration = time.Since(start)
	if len(files) == 0 {
		s.Version = snap.Version()
		return s, snap, nil
	}
	c := op.Commit{
		Op: o, Options: txn.Options{MaxRetries: opt.CommitMaxRetries, Metadata: opt.CommitMetadata},
		ReadFiles: files, Removes: res.Removes, Adds: res.Adds, CDC: res.CDC, Metrics: s.Metrics(),
	}
	plan.ReadSet(&c, pred)
	post, v, err := c.Run(ctx, snap)
	if err != nil {
		return s, nil, err
	}
	s.Version = v
	return s, post, nil
}
