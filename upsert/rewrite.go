package upsert

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/protocol"
)

// scanInFlight is how many decoded batches of one file a scan holds at
// most: two queued, one being decoded, one with its consumer.
const scanInFlight = 4

// rewrite writes every touched partition, MaxParallelPartitions at once,
// largest first.
func (r *run) rewrite(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancel()
	}
	order := r.order()
	// Partitions rewritten side by side share the cores: a writer alone
	// encodes a row group's columns in parallel, writers that already keep
	// every core busy stream theirs (datafile.Options.EncodeWorkers).
	r.encodeWorkers = max(1, runtime.GOMAXPROCS(0)/max(1, min(r.c.MaxParallelPartitions, len(order))))
	for _, p := range order {
		release, err := r.budget.AcquirePartition(ctx)
		if err != nil {
			fail(errs.Wrap(errs.Canceled, "", err, "rewriting"))
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer release()
			defer func() {
				if v := recover(); v != nil {
					fail(errs.Recovered(errs.Internal, "", "rewrite", v))
				}
			}()
			if err := r.rewritePartition(ctx, p); err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctxErr(ctx, "rewriting")
}

// order sorts partitions by the work they carry, largest first, so the
// longest ones do not start last.
func (r *run) order() []*part {
	out := append([]*part(nil), r.parts...)
	work := func(p *part) int64 {
		var n int64
		for _, f := range p.files {
			if f.rewrite {
				n += f.add.Size
			}
		}
		return n + p.rows
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && work(out[j]) > work(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// rewritePartition writes the partition's change through op.Write: its
// files that hold a source key lose the rows whose key the source
// replaces or deletes (Rows), and the source rows that are not deletes
// come in after them (Insert), into the partition's own files. How (copy-
// on-write, deletion vectors, change data) is op.Write's decision. On
// failure nothing it wrote is left.
func (r *run) rewritePartition(ctx context.Context, p *part) error {
	c := r.c
	files := p.rewriteFiles()
	if len(files) == 0 && p.keys.upserts == 0 {
		return nil // only deletes, and nothing to delete from
	}
	// The partition reads within its share of the batch budget, so that
	// its writer is fed even while other partitions' readers wait.
	share, held, err := r.budget.Share(ctx, c.budget.MaxDecodedBytes/int64(c.MaxParallelPartitions))
	if err != nil {
		return errs.Wrap(errs.Canceled, "", err, "rewriting")
	}
	defer held.Release()
	out := r.expectOutput(p, files)
	byAdd := make(map[*protocol.Add]*fileWork, len(files))
	adds := make([]*protocol.Add, len(files))
	for i, f := range files {
		byAdd[f.add], adds[i] = f, f.add
	}
	keys := make([]string, len(c.keyIdx))
	for j, idx := range c.keyIdx {
		keys[j] = c.table.Fields[idx].Name
	}
	ch := op.Change{Files: adds, Rows: r.leaving(p, byAdd), Decide: keys, CopyOnWrite: c.CopyOnWrite, InCommitWithRewrites: r.rewrites,
		Insert: func(ctx context.Context, write func(arrow.RecordBatch) error) error {
			out.read.Store(true) // the files are read: the survivors are counted
			return r.sourceRows(ctx, share, p, write)
		},
		InsertUpdates: func(rec arrow.RecordBatch) ([]bool, error) { return r.postimages(p, rec) },
	}
	if sel := fullProbeHits(files); r.fullProbe && sel != nil {
		// The probe found every row that leaves: the files are not read
		// again (their rows' values are not needed), only marked.
		ch.Selected, ch.WhereDeletes = sel, true
		c.count(func(tr *trace) { tr.markedByProbe.Add(1) })
		for _, f := range files {
			p.updated.Add(f.hitUpdates)
			p.deleted.Add(f.hitDeletes)
		}
	}
	p.written, err = op.Write(ctx, r.snap, ch, rewrite.Options{
		Schema: c.table, Store: r.out, TargetFileSize: c.TargetFileSize, MaxParallelFiles: c.MaxParallelFiles,
		MaxBufferedBytes: 2 * c.writerBuf, ReadBatchSize: c.ReadBatchSize, Budget: share, Allocator: c.mem,
		Expected: out.expectation, EncodeWorkers: r.encodeWorkers,
		ReadCost: func(a *protocol.Add) (float64, int64) {
			if f := byAdd[a]; f != nil {
				return f.bytesPerRow, f.overhead
			}
			return 0, 0
		},
	})
	return err
}

// fullProbeHits are the probe's hits of files by add, or nil when a file
// has none (the narrow probe could not read it, or no probe ran).
func fullProbeHits(files []*fileWork) map[*protocol.Add]*dv.Bitmap {
	sel := make(map[*protocol.Add]*dv.Bitmap, len(files))
	for _, f := range files {
		if f.hits == nil {
			return nil
		}
		sel[f.add] = f.hits
	}
	return sel
}

// leaving decides a batch of a rewritten file: the rows whose key the
// source holds leave it, as deletes when the source row deletes, else
// superseded by the source row (an update). Batches of a file come in
// order, so that rows before the file's checkFrom (in row groups the
// probe cleared) are kept without a key check.
func (r *run) leaving(p *part, files map[*protocol.Add]*fileWork) rewrite.Func {
	return func(ctx context.Context, b rewrite.Batch) (rewrite.Output, error) {
		f := files[b.File]
		rec := b.Rec
		n := int(rec.NumRows())
		cols := make([]arrow.Array, len(r.c.keyFields))
		for j, kf := range r.c.keyFields {
			idx := rec.Schema().FieldIndices(kf.Name)
			if len(idx) != 1 {
				return rewrite.Output{}, errs.New(errs.Internal, b.File.Path, "key column %q is not in the batch read", kf.Name)
			}
			cols[j] = rec.Column(idx[0])
		}
		// Without a deletion vector batch rows are file positions.
		from := 0
		if b.File.DeletionVector == nil && f.next < f.checkFrom {
			from = int(min(f.checkFrom-f.next, int64(n)))
		}
		f.next += int64(n)
		kb, err := p.keys.set.Bind(cols)
		if err != nil {
			return rewrite.Output{}, errs.Wrap(errs.Internal, b.File.Path, err, "binding key columns")
		}
		keep, sup := make([]bool, n), make([]bool, n)
		var updated, deleted int64
		for i := range keep {
			keep[i] = true
			if i < from {
				continue
			}
			e := kb.Find(i)
			if e < 0 {
				continue
			}
			keep[i] = false
			p.keys.markMatched(e)
			if p.keys.isDelete(e) {
				deleted++
			} else {
				updated++
				sup[i] = true
				if id, ok := b.RowID(i); ok {
					p.keys.setRowID(e, id)
				}
			}
		}
		p.updated.Add(updated)
		p.deleted.Add(deleted)
		if !r.dvs {
			p.copied.Add(int64(n) - updated - deleted)
		}
		return rewrite.Output{Keep: keep, Superseded: sup}, nil
	}
}

// sourceRows writes the partition's source rows that are not deletes,
// ReadBatchSize at a time, as compact copies so that the writer neither
// holds nor accounts the whole source batch behind a slice.
func (r *run) sourceRows(ctx context.Context, share *limits.Budget, p *part, write func(arrow.RecordBatch) error) error {
	c := r.c
	cctx := compute.WithAllocator(ctx, c.mem)
	var res *limits.Reservation
	defer func() { res.Release() }()
	idx := make([]int32, 0, min(int64(c.ReadBatchSize), p.rows))
	flush := func(b int) error {
		if len(idx) == 0 {
			return nil
		}
		rec := r.src.batches[b]
		est := recordBytes(rec) * int64(len(idx)) / max(rec.NumRows(), 1)
		// Held from the copy until the writer took it, and for the next one.
		var err error
		if res == nil {
			res, err = share.AcquireBytes(ctx, est*2)
		} else if est*2 > res.Bytes() {
			err = res.Resize(ctx, est*2)
		}
		if err != nil {
			return errs.Wrap(errs.Canceled, "", err, "writing source rows")
		}
		taken, err := takeRows(cctx, c.mem, rec, idx)
		idx = idx[:0]
		if err != nil {
			return errs.Wrap(errs.Internal, "", err, "selecting source rows")
		}
		out, err := r.rules.Number(ctx, taken, r.src.given)
		taken.Release()
		if err != nil {
			return err
		}
		if r.identity != nil {
			if out, err = r.withIdentity(p, out); err != nil {
				return err
			}
		}
		defer out.Release()
		return write(out)
	}
	for _, sel := range p.sels {
		for i := 0; i < sel.len(); i++ {
			row := sel.row(i)
			if r.src.isDelete(sel.batch, row) {
				continue
			}
			idx = append(idx, int32(row))
			if len(idx) == c.ReadBatchSize {
				if err := flush(sel.batch); err != nil {
					return err
				}
			}
		}
		if err := flush(sel.batch); err != nil {
			return err
		}
	}
	return nil
}

// takeRows copies the given rows of a batch.
func takeRows(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, rows []int32) (arrow.RecordBatch, error) {
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.AppendValues(rows, nil)
	idx := b.NewInt32Array()
	defer idx.Release()
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i := range cols {
		a, err := compute.TakeArray(ctx, rec.Column(i), idx)
		if err != nil {
			return nil, err
		}
		cols[i] = a
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(len(rows))), nil
}

// postimages marks the source rows of out whose key matched a table row:
// their change rows are update post-images, the others' inserts. The files
// are read by now, so the matches are final.
func (r *run) postimages(p *part, out arrow.RecordBatch) ([]bool, error) {
	cols := make([]arrow.Array, len(r.c.keyIdx))
	for j, idx := range r.c.keyIdx {
		cols[j] = out.Column(idx)
	}
	b, err := p.keys.set.Bind(cols)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "binding source key columns")
	}
	post := make([]bool, out.NumRows())
	for i := range post {
		e := b.Find(i)
		post[i] = e >= 0 && bit(p.keys.matched, e)
	}
	return post, nil
}

// outputEstimate is what a partition's rewrite is expected to write, so
// that its writer cuts files of about equal size rather than full files
// and a small tail (datafile.Options.Expected): the survivors of the
// rewritten files and the source rows that are not deletes. Until the
// files are read, every source key is taken to replace a row (the files
// hold the keys, so an upsert is mostly updates); once they are read, the
// survivors are counted, and the source rows, written last, are known
// exactly. Rows take the Parquet bytes a live row takes in the partition's
// files until the writer has measured its own.
type outputEstimate struct {
	p           *part
	bytesPerRow float64
	live        int64       // live rows of the rewritten files; -1 unknown
	read        atomic.Bool // the rewritten files are read: p.copied is final
	dvs         bool        // the files keep their rows (deletion vectors)
}

// expectOutput estimates a partition's output from its files' log
// statistics: the rewritten files', else (an insert into a partition whose
// files all stay) every live file's.
func (r *run) expectOutput(p *part, rewritten []*fileWork) *outputEstimate {
	e := &outputEstimate{p: p, live: -1, dvs: r.dvs}
	rows, bytes, ok := r.liveSize(rewritten)
	if !ok {
		return e
	}
	e.live = rows
	if rows == 0 {
		rows, bytes, _ = r.liveSize(p.files)
	}
	if rows > 0 {
		e.bytesPerRow = bytes / float64(rows)
	}
	return e
}

// liveSize is the live rows of files and their share of the files' bytes;
// ok is false when a file's statistics have no row count.
func (r *run) liveSize(files []*fileWork) (rows int64, bytes float64, ok bool) {
	for _, f := range files {
		n := stats.Parse(f.add.Stats, r.c.table, r.c.mode).NumRecords
		if n < 0 {
			return 0, 0, false
		}
		live := n
		if dv := f.add.DeletionVector; dv != nil {
			live -= dv.Cardinality
		}
		if live > 0 {
			rows += live
			bytes += float64(f.add.Size) * float64(live) / float64(n)
		}
	}
	return rows, bytes, true
}

// expectation is the estimate, for the writer.
func (e *outputEstimate) expectation(map[string]string) datafile.Expectation {
	var survivors int64
	switch {
	case e.dvs:
		// The files keep their rows: only the source rows are written.
	case e.read.Load():
		survivors = e.p.copied.Load()
	case e.live < 0:
		return datafile.Expectation{} // unknown until the files are read
	default:
		survivors = e.live - min(int64(e.p.keys.set.Len()), e.live)
	}
	return datafile.Expectation{Rows: survivors + e.p.keys.upserts, BytesPerRow: e.bytesPerRow}
}

// withIdentity gives the source rows out (owned) the table's materialized
// row tracking columns: the row id of the row each updates (its key
// matched one, rewrite.Batch.RowID), null for inserts, and a null commit
// version (the new file's, the commit's): an updated row keeps its id.
func (r *run) withIdentity(p *part, out arrow.RecordBatch) (arrow.RecordBatch, error) {
	defer out.Release()
	cols := make([]arrow.Array, len(r.c.keyIdx))
	for j, idx := range r.c.keyIdx {
		cols[j] = out.Column(idx)
	}
	kb, err := p.keys.set.Bind(cols)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "binding source key columns")
	}
	ids := array.NewInt64Builder(r.c.mem)
	defer ids.Release()
	for i := range int(out.NumRows()) {
		if id, ok := p.keys.rowID(kb.Find(i)); ok {
			ids.Append(id)
		} else {
			ids.AppendNull()
		}
	}
	idArr := ids.NewArray()
	defer idArr.Release()
	versions := array.MakeArrayOfNull(r.c.mem, arrow.PrimitiveTypes.Int64, int(out.NumRows()))
	defer versions.Release()
	fields := append(append([]arrow.Field(nil), out.Schema().Fields()...), r.identity...)
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), append(append([]arrow.Array(nil), out.Columns()...), idArr, versions), out.NumRows()), nil
}
