package upsert

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// part is one touched partition: its source rows and keys, and per attempt
// its files and outcome.
type part struct {
	pv   partValues
	sels []rowSel
	rows int64
	keys *keys

	bloomMu    sync.Mutex
	bloomCache map[string]bloomEntry

	files   []*fileWork // every live file of the partition
	written op.Written  // the partition's change as op.Write wrote it
	updated atomic.Int64
	deleted atomic.Int64
	copied  atomic.Int64
}

// reset forgets what one attempt planned and wrote.
func (p *part) reset() {
	p.files, p.written = nil, op.Written{}
	p.updated.Store(0)
	p.deleted.Store(0)
	p.copied.Store(0)
	p.keys.resetMatches()
}

// rewriteFiles are the files the partition rewrites.
func (p *part) rewriteFiles() []*fileWork {
	var out []*fileWork
	for _, f := range p.files {
		if f.rewrite {
			out = append(out, f)
		}
	}
	return out
}

// run is one upsert call: the source and its keys, shared by attempts.
type run struct {
	c     *config
	src   *source
	parts []*part
	// keyBytes are the key sets and row selections built from the source.
	keyBytes int64
	// encodeWorkers is each partition writer's share of the cores.
	encodeWorkers int
	budget        *limits.Budget
	snap          *snapshot.Snapshot // the snapshot the current attempt reads
	out           storage.Store      // the table's store, with the call's upload sizes
	// dvs says the attempt's files keep their rows, the rows that leave
	// marked in deletion vectors (op.WritesDeletionVectors, the decision
	// op.Write takes).
	dvs bool
	// fullProbe says the probe reads every key of a file, not up to the
	// first source key, recording the positions of the rows that leave
	// (fileWork.hits): with deletion vectors, and neither change data nor
	// row tracking needing the leaving rows' values, those positions are
	// the whole change to the file, and the rewrite reads nothing again.
	fullProbe bool
	// identity are the table's materialized row tracking columns, which
	// the source rows written carry (withIdentity); nil without row
	// tracking.
	identity []arrow.Field
	// rewrites says a partition of the attempt rewrites a file (so every
	// partition writes change data, on a table with the feed on).
	rewrites bool
	// rules number the attempt's inserted rows from the high watermark of
	// the table it plans against.
	rules *colrules.Rules
}

// listFiles gives every touched partition its live files, in one pass over
// the snapshot's files.
func (r *run) listFiles(ctx context.Context) error {
	byKey := make(map[string]*part, len(r.parts))
	for _, p := range r.parts {
		byKey[p.pv.key] = p
	}
	ix := newPartitionIndex(r.c)
	texts := make([]string, len(r.c.parts))
	st := r.snap.Store()
	for i, add := range r.snap.Files() {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return errs.Wrap(errs.Canceled, "", err, "planning the upsert")
			}
		}
		id, ok := ix.identity(add, texts)
		if !ok {
			continue
		}
		p := byKey[id]
		if p == nil {
			continue
		}
		key, _ := objectKey(st, add.Path)
		p.files = append(p.files, &fileWork{add: add, key: key})
	}
	return nil
}

// prune decides, per file, whether statistics rule it out (strategies
// probe and stats) and whether it is rewritten without a probe.
func (r *run) prune() {
	for _, p := range r.parts {
		for _, f := range p.files {
			if r.c.strategy == PruneNone {
				f.rewrite = true
				continue
			}
			if why := r.c.pruneByStats(f.add, p.keys); why != "" {
				f.why = why
				continue
			}
			// Without key columns beyond the partition, every live row
			// matches: no probe can say more.
			if r.c.strategy == PruneStats || len(r.c.keyFields) == 0 {
				f.rewrite = true
			}
		}
	}
}

// probe reads the key columns of every file statistics left, with
// ProbeConcurrency files at once across all partitions.
func (r *run) probe(ctx context.Context) error {
	if r.c.strategy != PruneProbe {
		return nil
	}
	type job struct {
		p *part
		f *fileWork
	}
	var jobs []job
	for _, p := range r.parts {
		for _, f := range p.files {
			if f.why == "" && !f.rewrite {
				jobs = append(jobs, job{p, f})
			}
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	// Largest files first: they take longest.
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].f.add.Size > jobs[j].f.add.Size })
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		first error
		once  sync.Once
	)
	workers := min(r.c.ProbeConcurrency, len(jobs))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					once.Do(func() { first = errs.Recovered(errs.Internal, "", "probe", v); cancel() })
				}
			}()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				if err := r.probeFile(ctx, jobs[i].p, jobs[i].f); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctxErr(ctx, "probing")
}

// ctxErr reports a cancelled context as a deltalite.ErrCanceled error.
func ctxErr(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Canceled, "", err, "%s", what)
	}
	return nil
}
