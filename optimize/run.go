package optimize

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// config is Options validated, with defaults applied.
type config struct {
	Options
	sel    selection
	target int64
	// zCols are the z-order columns (logical paths), zOrderBy them as
	// the JSON array the commit and the files' tags record; "[]" for a
	// compaction.
	zCols    [][]string
	zOrderBy string
	// clustering: the table is clustered and zCols are its clustering
	// columns.
	clustering bool
}

func resolve(snap *snapshot.Snapshot, opt Options) (*config, error) {
	if snap == nil || snap.IsEmpty() {
		return nil, errs.New(errs.InvalidArgument, "", "OPTIMIZE needs an existing table")
	}
	opt = opt.Normalized()
	if err := errs.NonNegative("OPTIMIZE option ",
		errs.Knob{Name: "TargetFileSize", Value: opt.TargetFileSize},
		errs.Knob{Name: "MinInputFiles", Value: int64(opt.MinInputFiles)},
		errs.Knob{Name: "MaxConcurrentTasks", Value: int64(opt.MaxConcurrentTasks)},
		errs.Knob{Name: "MinCommitInterval", Value: int64(opt.MinCommitInterval)},
		errs.Knob{Name: "MaxBufferedBytes", Value: opt.MaxBufferedBytes},
		errs.Knob{Name: "ReadBatchSize", Value: int64(opt.ReadBatchSize)},
		errs.Knob{Name: "MaxSortBytes", Value: opt.MaxSortBytes}); err != nil {
		return nil, err
	}
	c := &config{Options: opt, target: opt.TargetFileSize, zOrderBy: "[]"}
	if err := c.resolveClustering(snap); err != nil {
		return nil, err
	}
	if opt.ZOrderBy != nil { // an empty list asks for a z-order by nothing: refused, not a compaction
		cols, js, err := zOrderColumns(snap, opt.ZOrderBy)
		if err != nil {
			return nil, err
		}
		c.zCols, c.zOrderBy = cols, js
	}
	if r := opt.PurgeMinDeletedRatio; r < 0 || r >= 1 || math.IsNaN(r) {
		return nil, errs.New(errs.InvalidArgument, "", "OPTIMIZE option PurgeMinDeletedRatio is %v: give a share of a file's rows, at least 0 and below 1", r)
	}
	if opt.PurgeMinDeletedRatio > 0 && !opt.PurgeDeletionVectors {
		return nil, errs.New(errs.InvalidArgument, "", "OPTIMIZE option PurgeMinDeletedRatio applies to a purge: set PurgeDeletionVectors too")
	}
	if opt.PurgeDeletionVectors && opt.ZOrderBy != nil {
		return nil, errs.New(errs.InvalidArgument, "", "OPTIMIZE options PurgeDeletionVectors and ZOrderBy exclude each other: purge, then z-order")
	}
	if c.MaxSortBytes == 0 {
		c.MaxSortBytes = DefaultMaxSortBytes
	}
	if c.target == 0 {
		t, err := protocol.Properties(snap.Properties()).TargetFileSize()
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "OPTIMIZE target size")
		}
		c.target = t
	}
	if c.MinInputFiles == 0 {
		c.MinInputFiles = DefaultMinInputFiles
	}
	if c.MaxConcurrentTasks == 0 {
		c.MaxConcurrentTasks = DefaultMaxConcurrentTasks()
	}
	if c.MaxBufferedBytes == 0 {
		c.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	sel, err := selectPartitions(snap, opt.Predicate, opt.PartitionFilters, opt.SessionTimeZone)
	if err != nil {
		return nil, err
	}
	c.sel = sel
	return c, nil
}

// operation is the commit's operation with delta-rs's and Spark's
// parameters: the partition predicates as a JSON array, the target size,
// and the z-order columns (none for a compaction); a purge is Spark's
// REORG with its applyPurge parameter.
func (c *config) operation() txn.Operation {
	var preds strings.Builder
	enc := json.NewEncoder(&preds)
	enc.SetEscapeHTML(false) // "p > 'c'", not "p \u003e 'c'"
	_ = enc.Encode(append([]string{}, c.sel.texts...))
	if c.PurgeDeletionVectors {
		return txn.Operation{Name: txn.OpReorg, Parameters: map[string]any{
			"predicate": strings.TrimSpace(preds.String()), "applyPurge": "true", // Spark writes parameters as JSON text
		}, KeepsRowIDs: true, KeepsColumnRules: true} // rows are copied unchanged
	}
	o := txn.Operation{Name: txn.OpOptimize, Parameters: map[string]any{
		"predicate": strings.TrimSpace(preds.String()), "targetSize": strconv.FormatInt(c.target, 10), "zOrderBy": c.zOrderBy,
	}, KeepsRowIDs: true, KeepsColumnRules: true} // rows are copied unchanged
	if c.clustering {
		// Spark's clustering OPTIMIZE: the clustering columns as clusterBy,
		// an empty zOrderBy, and isFull.
		o.Parameters["clusterBy"], o.Parameters["zOrderBy"], o.Parameters["isFull"] = c.zOrderBy, "[]", c.Full
	}
	return o
}

// Run compacts the table snap shows (see the package doc) and returns the
// stats and the table after the last commit (snap itself when there was
// nothing to compact). Errors are *deltalite.Error values:
// deltalite.ErrInvalidArgument for options that do not parse or name a column
// that is not a partition column, deltalite.ErrCommitConflict when another
// writer removed files being compacted more often than CommitMaxRetries,
// ...
func Run(ctx context.Context, snap *snapshot.Snapshot, opt Options) (Stats, *snapshot.Snapshot, error) {
	start := time.Now()
	c, err := resolve(snap, opt)
	if err != nil {
		return Stats{}, nil, err
	}
	o := c.operation()
	// What the knobs let the bins hold: the rewrite's and a z-order's sort,
	// declared as the other operations declare (limits.ExpectHeap).
	expect := rewrite.HeapBound(c.MaxBufferedBytes)
	if len(c.zCols) > 0 {
		expect += c.MaxSortBytes
	}
	heapUse := limits.ExpectHeap(expect)
	defer heapUse.Done()
	// Commits of an attempt that later lost a conflict stand: their counts
	// carry into the next attempt's stats.
	var done Stats
	return op.Operate(ctx, snap, o, op.Writes, opt.CommitMaxRetries, func(ctx context.Context, snap *snapshot.Snapshot) (Stats, *snapshot.Snapshot, error) {
		return c.attempt(ctx, snap, o, &done, start)
	})
}

// binBuffered is the MaxBufferedBytes of the rewrite of each of tasks
// concurrent bins: half of its share of maxBuffered. The rewrite counts
// decoded batches and the rows its writer buffers, not the writer's
// encoding of a row group (each column's plain values, its compressed
// pages), which measured about as much again: with whole shares, two
// compaction bins' heap was twice the knob (a 10-partition compaction of
// 1 GiB peaked at 151 MiB RSS against 109-126 MiB with half shares, at the
// same CPU time).
func binBuffered(maxBuffered int64, tasks int) int64 {
	return max(maxBuffered/int64(tasks)/2, 1)
}

// binResult is one bin written, not yet committed.
type binResult struct {
	b       *bin
	res     op.Written
	spilled int64 // bytes a z-order's sort spilled
}

// attempt plans on snap, rewrites the bins and commits them, once at the
// end or every MinCommitInterval. done accumulates what landed.
func (c *config) attempt(ctx context.Context, snap *snapshot.Snapshot, o txn.Operation, done *Stats, start time.Time) (Stats, *snapshot.Snapshot, error) {
	var plan compaction
	switch {
	case c.clustering:
		plan = planClustering(snap, partitionsOf(snap, c.sel), c.Full)
	case len(c.zCols) > 0:
		plan = planZOrder(snap, partitionsOf(snap, c.sel), c.zOrderBy, c.Force)
	case c.PurgeDeletionVectors:
		plan = planPurge(snap, partitionsOf(snap, c.sel), c.target, c.PurgeMinDeletedRatio)
	default:
		plan = planCompaction(snap, partitionsOf(snap, c.sel), c.target, c.MinInputFiles, MaxDeletedRowsRatio)
	}
	base := Stats{ConsideredFiles: plan.considered, SkippedFiles: plan.skipped, PartitionsOptimized: plan.partitions}
	if len(plan.bins) == 0 {
		s := *done
		if done.Commits == 0 {
			s.ConsideredFiles, s.SkippedFiles, s.Version = plan.considered, plan.skipped, snap.Version()
		}
		s.ExecutionDuration = time.Since(start)
		return s, snap, nil
	}
	tasks := min(c.MaxConcurrentTasks, len(plan.bins))
	ro, err := op.Knobs{
		MaxParallelFiles: 1, MaxBufferedBytes: binBuffered(c.MaxBufferedBytes, tasks), ReadBatchSize: c.ReadBatchSize,
		TargetFileSize: c.target, MultipartThreshold: c.MultipartThreshold, MultipartPartSize: c.MultipartPartSize,
	}.Options(snap, c.Limits)
	if err != nil {
		return Stats{}, nil, err
	}
	sortBytes := max(c.MaxSortBytes/int64(tasks), 1)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan binResult)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(tasks)
	go func() {
		for _, b := range plan.bins {
			if gctx.Err() != nil {
				break
			}
			g.Go(func() error { return c.rewriteBin(gctx, snap, b, ro, sortBytes, results) })
		}
		_ = g.Wait()
		close(results)
	}()

	var (
		pending    []binResult
		post       = snap
		last       = time.Now()
		cerr       error
		binsDone   int
		doneFiles  Stats
		firstBatch = true
	)
	commit := func() {
		if len(pending) == 0 {
			return
		}
		s := base
		if !firstBatch {
			// The plan's counts belong to the attempt's first commit.
			s = Stats{}
		}
		p, err := c.commit(ctx, snap, o, pending, &s)
		pending = nil
		if err != nil {
			cerr = err
			cancel()
			return
		}
		firstBatch = false
		post = p
		done.Version = s.Version
		done.Commits++
		done.add(s)
		last = time.Now()
	}
	for r := range results {
		if cerr != nil {
			deleteAdded(ctx, snap, r.res.Adds)
			continue
		}
		pending = append(pending, r)
		binsDone++
		doneFiles.FilesRemoved.TotalFiles += len(r.b.files)
		doneFiles.FilesAdded.TotalFiles += len(r.res.Adds)
		if c.Progress != nil {
			c.Progress(Progress{BinsDone: binsDone, Bins: len(plan.bins), FilesRemoved: doneFiles.FilesRemoved.TotalFiles,
				FilesAdded: doneFiles.FilesAdded.TotalFiles, Elapsed: time.Since(start)})
		}
		if c.MinCommitInterval > 0 && time.Since(last) >= c.MinCommitInterval {
			commit()
		}
	}
	gerr := g.Wait()
	if cerr == nil && gerr != nil {
		for _, r := range pending {
			deleteAdded(ctx, snap, r.res.Adds)
		}
		return Stats{}, nil, gerr
	}
	if cerr == nil {
		commit()
	}
	if cerr != nil {
		return Stats{}, nil, cerr
	}
	s := *done
	s.ExecutionDuration = time.Since(start)
	return s, post, nil
}

// rewriteBin writes one bin's rows into new files and hands the result on.
func (c *config) rewriteBin(ctx context.Context, snap *snapshot.Snapshot, b *bin, ro rewrite.Options, sortBytes int64, out chan<- binResult) error {
	if b.rows > 0 {
		e := datafile.Expectation{Rows: b.rows, BytesPerRow: float64(b.bytes) / float64(b.rows)}
		ro.Expected = func(map[string]string) datafile.Expectation { return e }
	}
	var res op.Written
	var spilled int64
	var err error
	if len(c.zCols) > 0 {
		res, spilled, err = c.zOrderBin(ctx, snap, b, ro, sortBytes)
	} else {
		res, err = op.Write(ctx, snap, op.Change{Files: b.files, Rows: keepAll, Rearrange: true}, ro)
	}
	if err != nil {
		return err
	}
	select {
	case out <- binResult{b: b, res: res, spilled: spilled}:
		return nil
	case <-ctx.Done():
		deleteAdded(ctx, snap, res.Adds)
		return errs.Wrap(errs.Canceled, "", ctx.Err(), "OPTIMIZE")
	}
}

// keepAll writes every live row again.
func keepAll(context.Context, rewrite.Batch) (rewrite.Output, error) { return rewrite.Output{}, nil }

// commit commits the bins of rs against snap, the table the attempt
// planned on (so that the conflict check sees every commit since,
// including this run's earlier ones), filling s with what it committed.
func (c *config) commit(ctx context.Context, snap *snapshot.Snapshot, o txn.Operation, rs []binResult, s *Stats) (*snapshot.Snapshot, error) {
	mine := map[string]bool{}
	cm := op.Commit{Op: o, Options: txn.Options{MaxRetries: c.CommitMaxRetries, Metadata: c.CommitMetadata}}
	for _, r := range rs {
		cm.ReadFiles = append(cm.ReadFiles, r.b.files...)
		cm.Removes = append(cm.Removes, r.res.Removes...)
		cm.Adds = append(cm.Adds, r.res.Adds...)
		for _, a := range r.b.files {
			mine[a.Path] = true
			s.FilesRemoved.add(a.Size)
			if a.DeletionVector != nil {
				s.RowsDropped += a.DeletionVector.Cardinality
			}
		}
		for _, a := range r.res.Adds {
			s.FilesAdded.add(a.Size)
		}
		s.Batches += r.res.Batches
		s.RowsRewritten += r.res.RowsKept
		s.SpilledBytes += r.spilled
	}
	// Only the compacted files were read: appends and changes elsewhere
	// never conflict (the commit's dataChange=false actions are checked at
	// snapshot isolation), a removal of one of them does.
	cm.Read = func(a *protocol.Add) bool { return mine[a.Path] }
	cm.ReadDescription = "the files being compacted"
	cm.Metrics = typed(s.Metrics())
	post, v, err := cm.Run(ctx, snap)
	if err != nil {
		return nil, err
	}
	s.Version = v
	return post, nil // nil when the new version could not be loaded: the commit stands
}

// typed keeps the metrics' JSON types in the commit (numbers, booleans),
// as delta-rs writes them, rather than Spark's strings.
func typed(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		b, _ := json.Marshal(v) // numbers, booleans and strings
		out[k] = json.RawMessage(b)
	}
	return out
}

// add adds the counts of one commit o to s.
func (s *Stats) add(o Stats) {
	s.FilesAdded.merge(o.FilesAdded)
	s.FilesRemoved.merge(o.FilesRemoved)
	s.PartitionsOptimized += o.PartitionsOptimized
	s.Batches += o.Batches
	s.ConsideredFiles += o.ConsideredFiles
	s.SkippedFiles += o.SkippedFiles
	s.RowsRewritten += o.RowsRewritten
	s.RowsDropped += o.RowsDropped
	s.SpilledBytes += o.SpilledBytes
}

// deleteAdded deletes files written for a commit that will not be made.
func deleteAdded(ctx context.Context, snap *snapshot.Snapshot, adds []*protocol.Add) {
	datafile.DeleteAdded(context.WithoutCancel(ctx), snap.Store(), adds)
}
