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
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/scan"
)

// scanInFlight is how many decoded batches of one file a scan holds at
// most: two queued, one being decoded, one with its consumer.
const scanInFlight = 4

// readerInFlight adds the survivors on their way to the writer.
const readerInFlight = scanInFlight + 1

// Bounds of the decoded size of one batch read for a rewrite.
const (
	minBatchBytes = 64 << 10
	maxBatchBytes = 8 << 20
)

// item is a batch on its way to a partition's writer.
type item struct {
	rec    arrow.RecordBatch
	keep   []bool              // the rows to write; nil: all
	res    *limits.Reservation // released once the writer took the batch; may be nil
	change bool                // change rows, for the change data writer
}

// batchTarget is the decoded size of one rewrite batch: the budget shared
// by every reader that may run at once, each holding readerInFlight.
func (r *run) batchTarget() int64 {
	readers := int64(r.c.MaxParallelPartitions * r.c.MaxParallelFiles)
	t := r.c.budget.MaxDecodedBytes / (readers * readerInFlight)
	return min(max(t, minBatchBytes), maxBatchBytes)
}

// batchRows is how many rows of bytesPerRow make one batch.
func (r *run) batchRows(bytesPerRow float64) int {
	if bytesPerRow <= 0 {
		return r.c.ReadBatchSize
	}
	n := int(float64(r.batchTarget()) / bytesPerRow)
	return min(max(n, 1), r.c.ReadBatchSize)
}

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

// rewritePartition streams the partition's rewritten files and then its
// source rows into one writer. On failure the writer's files are deleted.
func (r *run) rewritePartition(ctx context.Context, p *part) (err error) {
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := r.expectOutput(p, files)
	writerBuf := c.writerBuf
	if r.changes != nil {
		writerBuf = max(c.writerBuf*3/4, 256<<10) // the change writer takes the rest
	}
	w, err := datafile.NewWriter(ctx, r.out, datafile.Options{
		Schema:            c.table,
		PartitionColumns:  r.snap.PartitionColumns(),
		ColumnMapping:     c.mode,
		Properties:        properties(r.snap),
		TargetFileSize:    c.TargetFileSize,
		MaxUnwrittenBytes: writerBuf,
		Expected:          out.expectation,
		EncodeWorkers:     r.encodeWorkers,
		DataChange:        true,
		Allocator:         c.mem,
	})
	if err != nil {
		return err
	}
	var cw *datafile.Writer
	if r.changes != nil {
		cw, err = datafile.NewWriter(ctx, r.out, datafile.Options{
			Schema: r.changes.Schema(), PartitionColumns: r.snap.PartitionColumns(), ColumnMapping: c.mode,
			Properties: properties(r.snap), TargetFileSize: c.TargetFileSize, MaxUnwrittenBytes: max(c.writerBuf/4, 256<<10),
			EncodeWorkers: 1, ChangeData: true, Allocator: c.mem,
		})
		if err != nil {
			_ = w.Abort(context.WithoutCancel(ctx))
			return err
		}
		defer func() {
			if err != nil {
				_ = cw.Abort(context.WithoutCancel(ctx))
			}
		}()
	}
	items := make(chan item)
	werr := make(chan error, 1)
	go func() { werr <- writeLoop(w, cw, items, cancel) }()
	defer func() {
		if err != nil {
			_ = w.Abort(context.WithoutCancel(ctx))
		}
	}()

	ferr := r.readFiles(ctx, share, p, files, items)
	if ferr == nil {
		out.read.Store(true)
		ferr = r.sourceRows(ctx, share, p, items)
	}
	close(items)
	if err := <-werr; err != nil {
		return err
	}
	if ferr != nil {
		return ferr
	}
	if cw != nil {
		if p.cdc, err = cw.Close(); err != nil {
			return err
		}
	}
	adds, err := w.Close()
	if err != nil {
		datafile.DeleteAdded(context.WithoutCancel(ctx), r.out, p.cdc)
		p.cdc = nil
		return err
	}
	p.adds = adds
	return nil
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

// writeLoop writes batches until items closes. After a failure it keeps
// draining (releasing what arrives) so producers never block.
func writeLoop(w, cw *datafile.Writer, items <-chan item, stop func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errs.Recovered(errs.Internal, "", "writing", v)
			stop()
			for it := range items {
				it.rec.Release()
				it.res.Release()
			}
		}
	}()
	for it := range items {
		if err == nil {
			to := w
			if it.change {
				to = cw
			}
			if it.keep != nil {
				err = to.WriteSelected(it.rec, it.keep)
			} else {
				err = to.Write(it.rec)
			}
			if err != nil {
				stop()
			}
		}
		it.rec.Release()
		it.res.Release()
	}
	return err
}

// send hands a batch to the writer, or gives it back when the partition
// stopped.
func send(ctx context.Context, items chan<- item, it item) error {
	select {
	case items <- it:
		return nil
	case <-ctx.Done():
		it.rec.Release()
		it.res.Release()
		return errs.Wrap(errs.Canceled, "", ctx.Err(), "rewriting")
	}
}

// readFiles streams the partition's files to rewrite, MaxParallelFiles at
// once, each holding a file permit and bytes of the partition's share.
func (r *run) readFiles(ctx context.Context, share *limits.Budget, p *part, files []*fileWork, items chan<- item) error {
	if len(files) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, r.c.MaxParallelFiles)
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
	for _, f := range files {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		release, err := share.AcquireFile(ctx)
		if err != nil {
			<-sem
			fail(errs.Wrap(errs.Canceled, "", err, "rewriting"))
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { release(); <-sem }()
			defer func() {
				if v := recover(); v != nil {
					fail(errs.Recovered(errs.Internal, f.add.Path, "rewrite", v))
				}
			}()
			if err := r.rewriteFile(ctx, share, p, f, items); err != nil {
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

// rewriteFile reads one file through scan (deletion vectors applied,
// columns conformed to the table) and sends its rows without a source key
// to the writer. Decoded batches hold a reservation of the budget sized
// for everything the read has in flight.
func (r *run) rewriteFile(ctx context.Context, share *limits.Budget, p *part, f *fileWork, items chan<- item) error {
	c := r.c
	if f.bytesPerRow == 0 && f.key != "" {
		f.bytesPerRow, f.overhead = r.footerCost(ctx, f.key)
	}
	rows := r.batchRows(f.bytesPerRow)
	// An eighth of headroom over the estimate: a reader that must grow its
	// reservation when the share has no bytes free gives it back and waits,
	// its batches in memory and unaccounted meanwhile.
	per := max(int64(float64(rows)*f.bytesPerRow)*9/8, minBatchBytes)
	// The reservation covers the batches in flight and the reader's pages,
	// so that wide files run fewer at once rather than more memory.
	res, err := share.AcquireBytes(ctx, per*readerInFlight+f.overhead)
	if err != nil {
		return errs.Wrap(errs.Canceled, "", err, "rewriting")
	}
	defer res.Release()
	opts := []scan.Option{scan.WithFiles(f.add), scan.WithBatchSize(rows), scan.WithParallelism(1), scan.WithAllocator(c.mem)}
	keyIdx := c.keyIdx
	if r.dvs {
		// The rows that stay are not written again: the keys decide, and
		// whole rows are read only for the change data feed's images.
		opts = append(opts, scan.WithRowIndex())
		if r.changes == nil {
			names := make([]string, len(c.keyIdx))
			keyIdx = make([]int, len(c.keyIdx))
			for j, idx := range c.keyIdx {
				names[j], keyIdx[j] = c.table.Fields[idx].Name, j
			}
			opts = append(opts, scan.WithColumns(names...))
		}
	}
	_, seq, err := scan.New(r.snap, opts...).Records(ctx)
	if err != nil {
		return err
	}
	cols := make([]arrow.Array, len(keyIdx))
	// Without a deletion vector batch rows are file positions, and rows
	// before checkFrom need no key check.
	pos, positional := int64(0), f.add.DeletionVector == nil
	for rec, err := range seq {
		if err != nil {
			return err
		}
		var positions *array.Int64
		if r.dvs {
			rec.Retain() // the scan releases rec; SplitPositions consumes its reference
			if rec, positions, err = rewrite.SplitPositions(f.add, rec); err != nil {
				return err
			}
		}
		n := int(rec.NumRows())
		if got := recordBytes(rec); got > per {
			per = got * 5 / 4 // headroom: growing may wait for the budget
			c.count(func(tr *trace) { tr.readerGrowths.Add(1) })
			if err := res.Resize(ctx, per*readerInFlight+f.overhead); err != nil {
				return errs.Wrap(errs.Canceled, "", err, "rewriting")
			}
		}
		from := 0
		if positional && pos < f.checkFrom {
			from = int(min(f.checkFrom-pos, int64(n)))
		}
		pos += int64(n)
		for j, idx := range keyIdx {
			cols[j] = rec.Column(idx)
		}
		b, err := p.keys.set.Bind(cols)
		if err != nil {
			releaseSplit(rec, positions)
			return errs.Wrap(errs.Internal, f.add.Path, err, "binding key columns")
		}
		keep := make([]bool, n) // the writer's from the send on
		var updated, deleted int64
		var gone []string // with the change data feed: each row's change
		if r.changes != nil {
			gone = make([]string, n)
		}
		for i := range keep {
			keep[i] = true
			if i < from {
				continue
			}
			e := b.Find(i)
			if e < 0 {
				continue
			}
			keep[i] = false
			p.keys.markMatched(e)
			kind := rewrite.ChangePreimage
			if p.keys.isDelete(e) {
				deleted++
				kind = rewrite.ChangeDelete
			} else {
				updated++
			}
			if gone != nil {
				gone[i] = kind
			}
		}
		if updated+deleted > 0 && gone != nil {
			if err := r.sendChanges(ctx, rec, gone, items, rewrite.ChangeDelete, rewrite.ChangePreimage); err != nil {
				releaseSplit(rec, positions)
				return err
			}
		}
		p.updated.Add(updated)
		p.deleted.Add(deleted)
		if positions != nil {
			// Deletion vectors: the rows that leave are marked, the others
			// stay where they are.
			for i := range keep {
				keep[i] = !keep[i]
			}
			f.marks.Mark(positions, keep)
			releaseSplit(rec, positions)
			continue
		}
		survivors := int64(n) - updated - deleted
		p.copied.Add(survivors)
		if survivors == 0 {
			continue
		}
		// The writer keeps the survivors as slices of rec: no copy.
		it := item{rec: rec}
		if survivors < int64(n) {
			it.keep = keep
		}
		rec.Retain()
		if err := send(ctx, items, it); err != nil {
			return err
		}
	}
	return nil
}

// releaseSplit releases a batch SplitPositions gave and its positions.
func releaseSplit(rec arrow.RecordBatch, positions *array.Int64) {
	if positions != nil {
		rec.Release()
		positions.Release()
	}
}

// sourceRows sends the partition's source rows that are not deletes,
// ReadBatchSize at a time, as compact copies so that the writer neither
// holds nor accounts the whole source batch behind a slice.
func (r *run) sourceRows(ctx context.Context, share *limits.Budget, p *part, items chan<- item) error {
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
		out, err := takeRows(cctx, c.mem, rec, idx)
		idx = idx[:0]
		if err != nil {
			return errs.Wrap(errs.Internal, "", err, "selecting source rows")
		}
		if r.changes != nil {
			if err := r.sourceChanges(ctx, p, out, items); err != nil {
				out.Release()
				return err
			}
		}
		return send(ctx, items, item{rec: out})
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

// sendChanges hands the change writer the rows of rec whose kind of
// change kinds gives, kind by kind in the order listed ("" is no change).
func (r *run) sendChanges(ctx context.Context, rec arrow.RecordBatch, kinds []string, items chan<- item, order ...string) error {
	for _, kind := range order {
		sel := make([]bool, len(kinds))
		some := false
		for i, k := range kinds {
			sel[i] = k == kind
			some = some || sel[i]
		}
		if !some {
			continue
		}
		cr, err := r.changes.Rows(rec, kind)
		if err != nil {
			return err
		}
		if err := send(ctx, items, item{rec: cr, keep: sel, change: true}); err != nil {
			return err
		}
	}
	return nil
}

// sourceChanges hands the change writer the partition's source rows of
// out (none of them deletes): a row whose key matched a table row is its
// update's post-image, any other an insert. The files are read by now, so
// the matches are final.
func (r *run) sourceChanges(ctx context.Context, p *part, out arrow.RecordBatch, items chan<- item) error {
	cols := make([]arrow.Array, len(r.c.keyIdx))
	for j, idx := range r.c.keyIdx {
		cols[j] = out.Column(idx)
	}
	b, err := p.keys.set.Bind(cols)
	if err != nil {
		return errs.Wrap(errs.Internal, "", err, "binding source key columns")
	}
	kinds := make([]string, out.NumRows())
	for i := range kinds {
		kinds[i] = rewrite.ChangeInsert
		if e := b.Find(i); e >= 0 && bit(p.keys.matched, e) {
			kinds[i] = rewrite.ChangePostimage
		}
	}
	return r.sendChanges(ctx, out, kinds, items, rewrite.ChangeInsert, rewrite.ChangePostimage)
}
