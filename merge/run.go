package merge

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/sync/errgroup"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Run merges the rows src yields into the table snap shows and returns the
// stats and the table after the commit (snap itself when nothing was
// committed). The source is read to the end but not released.
//
// The source is read once, conformed to its own schema and hashed on the
// ON predicate's equi-join keys (bounded by MaxSourceBytes). The target
// files a source row may match, or a NOT MATCHED BY SOURCE clause may act
// on, are read: first only the columns that decide which rows change, to
// find the files with a changed row; then those files are rewritten
// through the join core (internal/rewrite) and the inserted rows written
// after them, all in one MERGE commit that records the files and the
// filter it read. A merge that changes nothing commits nothing.
//
// On a table not yet created (snapshot.Empty) every source row is
// unmatched: the commit that inserts them creates the table, version 0,
// and a merge that inserts nothing creates nothing.
//
// Errors are *deltalite.Error values: ErrInvalidArgument for a bad clause or a
// target row several source rows match, ErrSchemaMismatch for columns that
// do not line up, ErrSourceTooLarge, ErrCommitConflict, ErrUnsupportedTable.
func Run(ctx context.Context, snap *snapshot.Snapshot, src array.RecordReader, opt Options) (s Stats, post *snapshot.Snapshot, err error) {
	start := time.Now()
	defer func() {
		if v := recover(); v != nil {
			err = errs.Recovered(errs.Internal, "", "merge", v)
		}
		if err != nil {
			s, post = Stats{}, nil
		}
	}()
	if snap == nil {
		return Stats{}, nil, errs.New(errs.TableNotFound, "", "a merge needs an existing table")
	}
	c, err := configure(opt)
	if err != nil {
		return Stats{}, nil, err
	}
	if opt.AppID != "" && txn.AppTxnApplied(snap, opt.AppID, opt.AppVersion) {
		return Stats{Version: snap.Version(), Skipped: true}, snap, nil
	}
	buffered := opt.MaxBufferedBytes
	if buffered == 0 {
		buffered = limits.DefaultMaxBufferedBytes
	}
	// What the budgets let the passes hold (the rewrite's, which the first
	// pass shares), then the source as it is read and its hash table once
	// built: declared as upsert does (limits.ExpectHeap).
	heapUse := limits.ExpectHeap(rewrite.HeapBound(buffered))
	defer heapUse.Done()
	ctx = exec.WithAllocator(ctx, c.mem)
	var read int64 // the source's bytes heapUse was told as it was read
	rec, sc, err := readSource(ctx, src, c.mem, c.maxSource, func(n int64) { read += n; heapUse.Hold(n) })
	if err != nil {
		return Stats{}, nil, err
	}
	defer rec.Release()
	p, err := resolveWidening(opt, snap.Schema(), sc, schema.MergeOptions{Widen: protocol.TypeWidening(snap.Protocol(), snap.Metadata()),
		Preview: protocol.TypeWideningPreview(snap.Protocol())})
	if err != nil {
		return Stats{}, nil, err
	}
	o := p.operation(opt.Predicate)
	o.WritesChangeData = true // through op.Write
	o.KeepsRowIDs = true      // through op.Write, updated rows by position (rewrite.Output.Updated)
	o.KeepsColumnRules = true // every inserted and updated row goes through colrules (build)
	check := op.Writes        // inserts alone are an append
	if p.rewritesRows() {
		check = op.ChangesRows
	}
	j, err := newJoiner(ctx, p, rec)
	if err != nil {
		return Stats{}, nil, err
	}
	defer j.release()
	if err := guard(j.footprint(), c.maxSource); err != nil {
		return Stats{}, nil, err
	}
	heapUse.Hold(j.footprint() - read)
	// One budget for the call: the first pass's readers and the rewrite's
	// draw on it, half of MaxBufferedBytes as rewrite's own would be.
	files := opt.MaxParallelFiles
	if files == 0 {
		files = limits.DefaultMaxParallelFiles
	}
	budget := c.limits.NewBudget(limits.CallConfig{MaxParallelPartitions: 1, MaxParallelFiles: files, MaxDecodedBytes: max(buffered/2, 1)})
	r := &runner{c: c, opt: opt, p: p, j: j, op: o, budget: budget, files: files}
	first := true
	s, post, err = op.Operate(ctx, snap, o, check, opt.CommitMaxRetries, func(ctx context.Context, snap *snapshot.Snapshot) (Stats, *snapshot.Snapshot, error) {
		if !first {
			// Another writer changed what this merge read: plan again on
			// top, unless it was this merge's own app transaction.
			if opt.AppID != "" && txn.AppTxnApplied(snap, opt.AppID, opt.AppVersion) {
				return Stats{Version: snap.Version(), Skipped: true}, snap, nil
			}
			j.reset()
		}
		first = false
		return r.attempt(ctx, snap)
	})
	if err != nil {
		return Stats{}, nil, err
	}
	if !s.Skipped {
		s.ExecutionDuration = time.Since(start)
	}
	return s, post, nil
}

// config is Options resolved: the knobs with their defaults.
type config struct {
	maxSource int64
	mem       memory.Allocator
	limits    *limits.Limits
}

func configure(opt Options) (*config, error) {
	if err := errs.NonNegative("merge: ",
		errs.Knob{Name: "MaxParallelPartitions", Value: int64(opt.MaxParallelPartitions)},
		errs.Knob{Name: "MaxParallelFiles", Value: int64(opt.MaxParallelFiles)},
		errs.Knob{Name: "MaxBufferedBytes", Value: opt.MaxBufferedBytes},
		errs.Knob{Name: "ReadBatchSize", Value: int64(opt.ReadBatchSize)},
		errs.Knob{Name: "TargetFileSize", Value: opt.TargetFileSize},
		errs.Knob{Name: "MultipartThreshold", Value: opt.MultipartThreshold},
		errs.Knob{Name: "MultipartPartSize", Value: opt.MultipartPartSize}); err != nil {
		return nil, err
	}
	if opt.MaxSourceBytes < NoSourceLimit {
		return nil, invalid("MaxSourceBytes must be 0 (process limit), NoSourceLimit (-1) or positive (got %d)", opt.MaxSourceBytes)
	}
	if opt.AppID == "" && opt.AppVersion != 0 {
		return nil, invalid("AppVersion %d was given without an AppID", opt.AppVersion)
	}
	c := &config{mem: arrowmem.Default, limits: opt.Limits}
	if c.limits == nil {
		c.limits = limits.Process()
	}
	switch c.maxSource = opt.MaxSourceBytes; c.maxSource {
	case 0:
		c.maxSource = c.limits.Config().MaxSourceBytes
	case NoSourceLimit:
		c.maxSource = 0
	}
	return c, nil
}

// runner is one merge across its attempts.
type runner struct {
	c   *config
	opt Options
	p   *plan
	j   *joiner
	op  txn.Operation
	// budget is the call's: readers of both passes hold its permits and
	// bytes; files is how many read at once.
	budget *limits.Budget
	files  int
}

// attempt plans, rewrites and commits the merge on snap.
func (r *runner) attempt(ctx context.Context, snap *snapshot.Snapshot) (s Stats, _ *snapshot.Snapshot, err error) {
	scanStart := time.Now()
	s.NestedLoop = r.j.nestedLoop()
	inScope, err := r.j.inScope(snap.ColumnMapping())
	if err != nil {
		return s, nil, err
	}
	var scope []*protocol.Add
	all := snap.Files()
	for _, a := range all {
		if inScope(a) {
			scope = append(scope, a)
		}
	}
	s.TargetFilesScanned, s.TargetFilesSkipped = len(scope), len(all)-len(scope)
	dvs := op.WritesDeletionVectors(snap, r.opt.CopyOnWrite)
	changed, rows, err := r.probe(ctx, snap, scope, dvs)
	if err != nil {
		return s, nil, err
	}
	s.ScanDuration = time.Since(scanStart)

	out, err := storage.WithUploads(snap.Store(), r.opt.MultipartThreshold, r.opt.MultipartPartSize)
	if err != nil {
		return s, nil, err
	}
	var md *protocol.Metadata
	if r.p.evolved() {
		next, err := op.WidenTypes(snap.Store().URL(), snap.Protocol(), snap.Metadata(), r.p.out.Clone())
		if err != nil {
			return s, nil, err
		}
		md = snap.Metadata().WithSchema(next, snap.ColumnMapping())
		// Rows are written in the committed schema: under column mapping
		// the columns and nested fields evolution added have physical
		// names only there.
		r.p.out = next
	}
	// Numbered afresh on every attempt, from the high watermark of the
	// table it plans against.
	if r.j.rules, err = colrules.For(snap.Metadata(), r.p.out, r.p.sess); err != nil {
		return s, nil, err
	}
	var mu sync.Mutex
	var cnt Counts
	var inserts []arrow.RecordBatch
	defer func() {
		for _, b := range inserts {
			b.Release()
		}
	}()
	takeInserts := func(ctx context.Context) error {
		ins, ic, err := r.j.inserts(ctx)
		inserts, cnt.SourceRows, cnt.TargetRowsInserted = ins, ic.SourceRows, ic.TargetRowsInserted
		return err
	}
	if len(changed) == 0 {
		// Every file in scope was read whole, so the matches are complete.
		if err := takeInserts(ctx); err != nil {
			return s, nil, err
		}
		if len(inserts) == 0 {
			s.Counts.add(cnt)
			s.Version = snap.Version()
			return s, snap, nil
		}
	}
	rewriteStart := time.Now()
	fn := func(ctx context.Context, b rewrite.Batch) (rewrite.Output, error) {
		res, err := r.j.apply(ctx, b.Rec)
		if err != nil {
			return rewrite.Output{}, err
		}
		mu.Lock()
		cnt.add(res.Counts)
		mu.Unlock()
		return rewrite.Output{Keep: res.keep, Replace: res.replace, Updated: res.updated}, nil
	}
	insert := func(ctx context.Context, write func(arrow.RecordBatch) error) error {
		if inserts == nil {
			if err := takeInserts(ctx); err != nil {
				return err
			}
		}
		for _, b := range inserts {
			if err := write(b); err != nil {
				return err
			}
		}
		return nil
	}
	res, err := op.Write(ctx, snap, op.Change{Files: changed, Rows: fn, Insert: insert, Selected: rows, CopyOnWrite: r.opt.CopyOnWrite}, rewrite.Options{
		Schema: r.p.out, Store: out, TargetFileSize: r.opt.TargetFileSize, MaxParallelFiles: r.opt.MaxParallelFiles,
		MaxBufferedBytes: r.opt.MaxBufferedBytes, ReadBatchSize: r.opt.ReadBatchSize, Budget: r.budget, Allocator: r.c.mem,
	})
	if err != nil {
		return s, nil, err
	}
	s.RewriteDuration = time.Since(rewriteStart)
	s.Counts.add(cnt)
	s.TargetRowsCopied = res.RowsCopied()
	s.OutputRows = res.RowsKept + res.RowsAppended
	s.TargetFilesAdded, s.TargetFilesRemoved = res.FilesAdded, res.FilesRemoved
	s.TargetDeletionVectorsAdded = res.DeletionVectors
	s.TargetBytesAdded, s.TargetBytesRemoved = res.BytesAdded, res.BytesRemoved
	s.TargetChangeFilesAdded = len(res.CDC)

	base := md
	if base == nil {
		base = snap.Metadata()
	}
	if next, err := r.j.rules.Metadata(base, snap.ColumnMapping()); err != nil {
		op.Commit{Adds: res.Adds, Removes: res.Removes, CDC: res.CDC}.DeleteWritten(ctx, out)
		return s, nil, err
	} else if next != base {
		md = next // the identity values the inserts took advance the high watermark
	}
	commitStart := time.Now()
	s.ExecutionDuration = time.Since(scanStart)
	post, v, err := op.Commit{
		Op: r.op, Options: txn.Options{MaxRetries: r.opt.CommitMaxRetries, Metadata: r.opt.CommitMetadata},
		Read: inScope, ReadDescription: "the files the merge's source and conditions may touch",
		ReadFiles: scope, Removes: res.Removes, Adds: res.Adds, CDC: res.CDC, Metrics: s.Metrics(),
		NewMetadata: md, AppID: r.opt.AppID, AppVersion: r.opt.AppVersion,
	}.Run(ctx, snap)
	s.CommitDuration = time.Since(commitStart)
	if err != nil {
		return s, nil, err
	}
	s.Version = v
	return s, post, nil
}

// probe reads the columns that decide which rows change of each file in
// scope and returns the files with a changed row, in scope order. A file
// is read whole unless a change shows early; either way the source rows
// it matches are marked. With dvs (deletion vectors) every file is read
// whole and rows are the positions of each file's changed rows, so that
// the rewrite reads those rows only. Each reader holds a file permit of the call's
// budget and bytes for the batches its scan may hold, estimated from the
// file's size and record count in the log and the share of its columns.
func (r *runner) probe(ctx context.Context, snap *snapshot.Snapshot, scope []*protocol.Add, dvs bool) (_ []*protocol.Add, rows map[*protocol.Add]*dv.Bitmap, _ error) {
	hit := make([]bool, len(scope))
	sel := make([]*dv.Bitmap, len(scope))
	cols := r.p.probeColumns()
	batch := r.opt.ReadBatchSize
	if batch == 0 {
		batch = limits.DefaultReadBatchSize
	}
	share := float64(max(len(cols), 1)) / float64(max(len(r.p.target.Fields), 1))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.files)
	for i, a := range scope {
		g.Go(func() error {
			release, err := r.budget.AcquireFile(gctx)
			if err != nil {
				return errs.Wrap(errs.Canceled, "", err, "reading %s", a.Path)
			}
			defer release()
			var perRow float64 = 64
			if fs := stats.Parse(a.Stats, snap.Schema(), snap.ColumnMapping()); fs != nil && fs.NumRecords > 0 {
				// Decoded Arrow takes about four times the stored bytes.
				perRow = 4 * float64(a.Size) / float64(fs.NumRecords) * share
			}
			res, err := r.budget.AcquireBytes(gctx, int64(perRow*float64(batch))*probeInFlight)
			if err != nil {
				return errs.Wrap(errs.Canceled, "", err, "reading %s", a.Path)
			}
			defer res.Release()
			opts := []scan.Option{scan.WithFiles(a), scan.WithBatchSize(batch), scan.WithParallelism(1), scan.WithAllocator(r.c.mem)}
			if len(cols) > 0 {
				opts = append(opts, scan.WithColumns(cols...))
			}
			if dvs {
				opts = append(opts, scan.WithRowIndex())
			}
			_, seq, err := scan.New(snap, opts...).Records(gctx)
			if err != nil {
				return err
			}
			for rec, err := range seq {
				if err != nil {
					return err
				}
				var pos *array.Int64
				if dvs {
					rec.Retain() // SplitPositions consumes a reference; the scan releases its own
					if rec, pos, err = rewrite.SplitPositions(a, rec); err != nil {
						return err
					}
				}
				fates, err := r.j.decide(gctx, rec)
				if pos != nil {
					rec.Release()
					for k, f := range fates {
						if f.clause >= 0 {
							if sel[i] == nil {
								sel[i] = dv.NewBitmap()
							}
							sel[i].Add(uint64(pos.Value(k)))
						}
					}
					pos.Release()
				}
				if err != nil {
					return err
				}
				if pos == nil && changes(fates) {
					// The rewrite reads it whole and marks the rest.
					hit[i] = true
					return nil
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	var out []*protocol.Add
	for i, a := range scope {
		if sel[i] != nil {
			if rows == nil {
				rows = map[*protocol.Add]*dv.Bitmap{}
			}
			rows[a], hit[i] = sel[i], true
		}
		if hit[i] {
			out = append(out, a)
		}
	}
	return out, rows, nil
}

// probeInFlight is how many batches of one file a first-pass scan holds:
// queued, being decoded and being decided.
const probeInFlight = 4

// operation is the commit's MERGE with Spark's operationParameters.
func (p *plan) operation(predicate string) txn.Operation {
	kinds := map[When][]map[string]any{}
	for _, c := range p.clauses {
		m := map[string]any{"actionType": map[Action]string{Update: "update", UpdateAll: "update", Delete: "delete", Insert: "insert", InsertAll: "insert"}[c.Action]}
		if c.cond != nil {
			m["predicate"] = c.cond.String()
		}
		kinds[c.When] = append(kinds[c.When], m)
	}
	list := func(w When) []map[string]any {
		if kinds[w] == nil {
			return []map[string]any{}
		}
		return kinds[w]
	}
	return txn.Operation{Name: txn.OpMerge, Parameters: map[string]any{
		"predicate":                    p.on.String(),
		"matchedPredicates":            list(Matched),
		"notMatchedPredicates":         list(NotMatched),
		"notMatchedBySourcePredicates": list(NotMatchedBySource),
	}}
}

// rewritesRows reports whether a clause may update or delete target rows.
func (p *plan) rewritesRows() bool {
	return slices.ContainsFunc(p.clauses, func(c clause) bool { return c.When != NotMatched })
}
