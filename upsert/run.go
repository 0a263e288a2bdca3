package upsert

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/metrics"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Run upserts the rows src yields into the table snap shows and returns
// the stats and the table after the commit (snap itself when nothing was
// committed). The source is read to the end but not released.
//
// A source row replaces the table row with the same primary key and
// partition values, or is inserted; with DeleteColumn, a row flagged true
// removes the table row with its key instead. Source columns the table
// lacks are a deltalite.ErrSchemaMismatch error, missing ones are null, values
// are cast to the table's types. Two source rows with one key in one
// partition are a deltalite.ErrInvalidArgument error naming the key. A null
// partition value is a partition like any other (null-safe, as Spark's
// MERGE on `t.p <=> s.p`); null keys never match. Errors are *deltalite.Error values: match them
// with errors.Is against deltalite.ErrCommitConflict, ErrSchemaMismatch,
// ErrUnsupportedTable, ErrSourceTooLarge, ErrInvalidArgument, ...
//
// On failure or cancellation the table is unchanged and the files the call
// wrote are deleted (files of a commit whose outcome is unknown stay for
// vacuum).
func Run(ctx context.Context, snap *snapshot.Snapshot, src array.RecordReader, opt Options) (s Stats, post *snapshot.Snapshot, err error) {
	start := time.Now()
	strategy := strings.ToLower(strings.TrimSpace(opt.PruneStrategy))
	if strategy == "" {
		strategy = PruneProbe
	}
	m := opt.Metrics
	if m == nil {
		m = metrics.Default()
	}
	defer func() {
		if v := recover(); v != nil {
			s, post, err = Stats{}, nil, errs.Recovered(errs.Internal, "", "upsert", v)
		}
		if err != nil {
			s, post = Stats{}, nil
		}
		m.ObserveUpsert(metrics.UpsertObservation{
			Err: err, ErrorKind: errorKind(err), PruneStrategy: strategy, Duration: time.Since(start),
			FilesAdded: int64(s.FilesAdded), FilesRemoved: int64(s.FilesRemoved),
			FilesCarriedOver: int64(s.FilesCarriedOver), FilesProbed: int64(s.FilesProbed),
			RowsUpdated: s.RowsUpdated, RowsInserted: s.RowsInserted, RowsCopied: s.RowsCopied,
		})
	}()
	if snap == nil {
		return Stats{}, nil, invalid("an upsert needs a table snapshot")
	}
	c, err := resolve(snap, opt)
	if err != nil {
		return Stats{}, nil, err
	}
	// Refused before the source is read; every attempt checks its table
	// again (op.Operate).
	if err := txn.CheckWritable(snap, c.operation()); err != nil {
		return Stats{}, nil, err
	}
	if c.AppID != "" && txn.AppTxnApplied(snap, c.AppID, c.AppVersion) {
		return Stats{Version: snap.Version(), Skipped: true}, snap, nil
	}
	planStart := time.Now()
	// What the budgets let the rewrite hold (decoded batches, writers'
	// buffers and the row group being encoded), then the source as it is
	// read, then its key sets.
	heapUse := limits.ExpectHeap(c.MaxBufferedBytes * 3 / 2)
	defer heapUse.Done()
	r, err := prepare(ctx, c, src, heapUse.Hold)
	if err != nil {
		return Stats{}, nil, err
	}
	defer r.src.release()
	heapUse.Hold(r.keyBytes)
	if r.out, err = storage.WithUploads(snap.Store(), c.MultipartThreshold, c.MultipartPartSize); err != nil {
		return Stats{}, nil, err
	}
	base := Stats{SourceRows: r.src.rows, PartitionsTouched: len(r.parts), PlanDuration: time.Since(planStart)}
	for _, p := range r.parts {
		base.NullPKRows += p.keys.nullKeys
	}
	if r.src.rows == 0 && !c.AllowEmptyCommit {
		base.Version = snap.Version()
		return base, snap, nil
	}
	r.budget = c.Limits.NewBudget(c.budget)
	c.count(func(tr *trace) { tr.budget.Store(r.budget) })
	first := true
	return op.Operate(ctx, snap, c.operation(), op.Writes, c.CommitMaxRetries, func(ctx context.Context, snap *snapshot.Snapshot) (Stats, *snapshot.Snapshot, error) {
		if !first {
			// Another writer changed what this upsert read: plan again on
			// top, unless it committed this upsert's app transaction.
			if c.AppID != "" && txn.AppTxnApplied(snap, c.AppID, c.AppVersion) {
				return Stats{Version: snap.Version(), Skipped: true}, snap, nil
			}
			for _, p := range r.parts {
				p.reset()
			}
		}
		first = false
		r.snap = snap
		s, post, err := r.attempt(ctx, base)
		// The time of a lost attempt counts toward the one that commits.
		base.PlanDuration, base.RewriteDuration, base.CommitDuration = s.PlanDuration, s.RewriteDuration, s.CommitDuration
		return s, post, err
	})
}

// prepare reads the source and builds the partitions' keys, within the
// source guard; held is told the bytes of each source batch kept.
func prepare(ctx context.Context, c *config, src array.RecordReader, held func(int64)) (_ *run, err error) {
	s, err := readSource(ctx, c, src, held)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.release()
		}
	}()
	vals, sels, selBytes, err := groupSource(c, s)
	if err != nil {
		return nil, err
	}
	r := &run{c: c, src: s}
	extra := selBytes
	defer func() { r.keyBytes = extra }()
	for i, pv := range vals {
		if err := ctxErr(ctx, "building key sets"); err != nil {
			return nil, err
		}
		k, err := buildKeys(c, s, pv, sels[i])
		if err != nil {
			return nil, err
		}
		extra += k.bytes
		if err := c.guard(s.bytes, extra); err != nil {
			return nil, err
		}
		p := &part{pv: pv, sels: sels[i], keys: k}
		for _, sel := range sels[i] {
			p.rows += int64(sel.len())
		}
		r.parts = append(r.parts, p)
	}
	return r, nil
}

// attempt plans, rewrites and commits against r.snap.
func (r *run) attempt(ctx context.Context, s Stats) (Stats, *snapshot.Snapshot, error) {
	t := time.Now()
	if err := r.listFiles(ctx); err != nil {
		return s, nil, err
	}
	r.prune()
	r.dvs = op.WritesDeletionVectors(r.snap, r.c.CopyOnWrite)
	r.fullProbe = r.dvs && !txn.ChangeDataFeed(r.snap.Metadata()) &&
		!protocol.RowTrackingEnabled(r.snap.Protocol(), r.snap.Metadata())
	if err := r.probe(ctx); err != nil {
		return s, nil, err
	}
	s.PlanDuration += time.Since(t)
	removes := 0
	for _, p := range r.parts {
		removes += len(p.rewriteFiles())
	}
	r.rewrites = removes > 0
	identity, err := rewrite.IdentityFields(r.snap)
	if err != nil {
		return s, nil, err
	}
	r.identity = identity
	if r.identity != nil {
		for _, p := range r.parts {
			p.keys.trackRowIDs()
		}
	}
	if removes > 0 {
		if err := txn.CheckRewrite(r.snap, r.c.operation()); err != nil {
			return s, nil, err
		}
	}
	if r.rules, err = colrules.For(r.snap.Metadata(), r.c.table, r.c.sess); err != nil {
		return s, nil, err
	}
	t = time.Now()
	if err := r.rewrite(ctx); err != nil {
		r.deleteWritten(ctx)
		return s, nil, err
	}
	s.RewriteDuration += time.Since(t)
	r.fill(&s)
	if s.FilesAdded == 0 && removes == 0 && r.c.AppID == "" && !r.c.AllowEmptyCommit {
		s.Version = r.snap.Version()
		return s, r.snap, nil
	}

	t = time.Now()
	post, v, err := r.commit(ctx, &s)
	s.CommitDuration += time.Since(t)
	if err != nil {
		return s, nil, err
	}
	s.Version = v
	return s, post, nil
}

// deleteWritten deletes what the attempt's partitions wrote when it
// failed in another partition.
func (r *run) deleteWritten(ctx context.Context) {
	for _, p := range r.parts {
		op.Commit{Removes: p.written.Removes, Adds: p.written.Adds, CDC: p.written.CDC}.DeleteWritten(ctx, r.snap.Store())
	}
}

// fill counts the attempt's outcome.
func (r *run) fill(s *Stats) {
	s.FilesAdded, s.FilesRemoved, s.FilesCarriedOver, s.FilesProbed, s.DeletionVectorsAdded = 0, 0, 0, 0, 0
	s.RowsUpdated, s.RowsDeleted, s.RowsCopied, s.RowsInserted = 0, 0, 0, 0
	for _, p := range r.parts {
		s.FilesAdded += p.written.FilesAdded
		s.FilesRemoved += p.written.FilesRemoved
		s.DeletionVectorsAdded += p.written.DeletionVectors
		for _, f := range p.files {
			if !f.rewrite {
				s.FilesCarriedOver++
			}
			if f.probed {
				s.FilesProbed++
			}
		}
		s.RowsUpdated += p.updated.Load()
		s.RowsDeleted += p.deleted.Load()
		s.RowsCopied += p.copied.Load()
		s.RowsInserted += p.keys.inserted()
	}
}

// errorKind labels an error for metrics: its kind in snake_case.
func errorKind(err error) string {
	if err == nil {
		return ""
	}
	var e *errs.Error
	if !errors.As(err, &e) {
		return "internal"
	}
	return strings.ReplaceAll(e.Kind.String(), " ", "_")
}
