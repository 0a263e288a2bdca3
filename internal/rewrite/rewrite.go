package rewrite

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/scanhook"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Batch is one decoded batch of a file being rewritten: the file's live
// rows (deletion vectors applied) in the table's logical Arrow schema,
// partition columns included. Rec is valid during the call only; Retain
// what outlives it.
type Batch struct {
	File *protocol.Add
	Rec  arrow.RecordBatch
	// ids and versions are the rows' stable row ids and commit versions
	// with Options.RowTracking (WithIdentity), else nil.
	ids, versions *array.Int64
	rt            *rowTracking
}

// Output is what to write for a Batch: the batch's part of a row change,
// row by row. Row i of the batch leaves when Keep[i] is false; otherwise
// it is written again, with Replace's row i in its place when Replace is
// given, and Updated[i] says that this is an update of the row (new
// values), not a copy. Inserted rows come through Options.Append.
type Output struct {
	// Keep marks the rows to write, one entry per row; nil keeps every row.
	// The others leave.
	Keep []bool
	// Replace, when set, is written instead of Rec: the same rows, in the
	// same order, with new values where they changed (Keep applies to it).
	// It may also only change the rows' shape (Options.Schema). The engine
	// releases it.
	Replace arrow.RecordBatch
	// Updated marks the kept rows whose values Replace changed, one entry
	// per row; nil: none.
	Updated []bool
	// Superseded marks rows that leave because their new values come in
	// through Options.Append (the upsert's updates), one entry per row;
	// nil: none. Their change rows are update pre-images, not deletes.
	Superseded []bool
}

// Func decides a batch. It is called from several goroutines at once (one
// per file being read), never twice at once for one file, and in file
// order within a file.
type Func func(ctx context.Context, b Batch) (Output, error)

// Counts are what a rewrite read and wrote.
type Counts struct {
	FilesRead    int // files read
	FilesRemoved int // files removed whole (every file read, but with Options.DeletionVectors)
	FilesAdded   int // files written
	// DeletionVectors are the files re-added with a new deletion vector
	// (Options.DeletionVectors).
	DeletionVectors int
	RowsRead        int64 // live rows of the files read
	RowsKept        int64 // rows written again, changed or not
	RowsChanged     int64 // kept rows with new values
	RowsDropped     int64 // rows not written again
	RowsAppended    int64 // rows written through Options.Append
	BytesRemoved    int64 // sizes of the files read
	BytesAdded      int64 // sizes of the files written
	Batches         int64 // decoded batches of the files read
}

// RowsCopied are the rows written again unchanged (the write
// amplification).
func (c Counts) RowsCopied() int64 { return c.RowsKept - c.RowsChanged }

// Result is a rewrite's actions for the caller's commit, and its counts.
type Result struct {
	// Removes remove every file read, in the order given (with
	// Options.DeletionVectors: every file a row left).
	Removes []*protocol.Remove
	// Adds are the written files (with Options.DeletionVectors, first the
	// files re-added with their new deletion vectors).
	Adds []*protocol.Add
	// CDC are the change data files written with Options.ChangeData.
	CDC []*protocol.CDC
	Counts
}

// item is a batch on its way to the writer.
type item struct {
	rec    arrow.RecordBatch
	keep   []bool // nil: every row
	change bool   // change rows, for the change data writer
}

// Run rewrites files of snap through fn (see the package doc) and returns
// the actions to commit. On error nothing it wrote is left behind.
func Run(ctx context.Context, snap *snapshot.Snapshot, files []*protocol.Add, fn Func, opt Options) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = Result{}, errs.Recovered(errs.Internal, "", "rewrite", v)
		}
	}()
	c, err := resolve(snap, opt)
	if err != nil {
		return Result{}, err
	}
	if fn == nil && len(files) > 0 {
		return Result{}, errs.New(errs.InvalidArgument, "", "a rewrite of files needs a batch function")
	}
	if len(files) == 0 && c.Append == nil {
		return Result{}, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	writerBuf := c.writerBuf
	var ch *Changes
	var cw *datafile.Writer
	if c.ChangeData {
		// The change rows share the writers' half of the buffer.
		writerBuf = max(c.writerBuf*3/4, 256<<10)
		if ch, err = NewChanges(c.Schema, c.Allocator); err != nil {
			return Result{}, err
		}
		cw, err = datafile.NewWriter(ctx, c.Store, datafile.Options{
			Schema: ch.Schema(), PartitionColumns: snap.PartitionColumns(), ColumnMapping: snap.ColumnMapping(),
			Properties: propertiesOf(snap), TargetFileSize: c.TargetFileSize, Compression: c.Compression,
			MaxUnwrittenBytes: max(c.writerBuf/4, 256<<10), ChangeData: true, Allocator: c.Allocator, EncodeWorkers: 1,
		})
		if err != nil {
			return Result{}, err
		}
		defer func() {
			if err != nil {
				_ = cw.Abort(context.WithoutCancel(ctx))
			}
		}()
	}
	rt, written, err := newRowTracking(snap, c)
	if err != nil {
		return Result{}, err
	}
	w, err := datafile.NewWriter(ctx, c.Store, datafile.Options{
		Schema:            written,
		Hidden:            len(written.Fields) - len(c.Schema.Fields),
		PartitionColumns:  snap.PartitionColumns(),
		ColumnMapping:     snap.ColumnMapping(),
		Properties:        propertiesOf(snap),
		TargetFileSize:    c.TargetFileSize,
		Compression:       c.Compression,
		MaxUnwrittenBytes: writerBuf,
		DataChange:        !c.Rearrange,
		Expected:          c.Expected,
		Allocator:         c.Allocator,
		// Readers decode on goroutines of their own, so one encoder streams
		// row groups to the file unless the caller says otherwise:
		// arrow-go's parallel encoders buffer each column chunk in memory
		// and regrow it page by page, which cost a MERGE of 4.5 KB rows
		// more CPU than the parallelism saved.
		EncodeWorkers: max(c.EncodeWorkers, 1),
	})
	if err != nil {
		return Result{}, err
	}
	defer func() {
		if err != nil {
			_ = w.Abort(context.WithoutCancel(ctx))
		}
	}()
	items := make(chan item)
	werr := make(chan error, 1)
	go func() { werr <- drain(w, cw, items, cancel) }()

	n := counters{schema: c.Schema}
	r := &reader{c: c, snap: snap, rt: rt}
	var ms []Marks // with DeletionVectors: per file, the rows that leave
	var extra []scan.Option
	if c.DeletionVectors {
		ms = make([]Marks, len(files))
		extra = []scan.Option{scan.WithRowIndex()}
		if c.Decide != nil && !c.ChangeData {
			// The rows that stay are not written again: the deciding
			// columns are all the function reads.
			extra = append(extra, scan.WithColumns(c.Decide...))
		}
	}
	ferr := r.forEach(ctx, files, func(ctx context.Context, i int, a *protocol.Add) error {
		var m *Marks
		if ms != nil {
			m = &ms[i]
			if c.Where != nil || c.Selected != nil {
				return r.markWhere(ctx, a, m, func(rec arrow.RecordBatch) error { return apply(ctx, fn, a, rec, items, &n, ch, m, rt) }, &n)
			}
		}
		return r.read(ctx, a, func(rec arrow.RecordBatch) error { return apply(ctx, fn, a, rec, items, &n, ch, m, rt) },
			append(extra, rt.readOptions()...)...)
	})
	if ferr == nil && c.Append != nil {
		ferr = callAppend(ctx, c.Append, c.AppendUpdates, items, &n, ch, rt)
	}
	if ferr == nil && n.nulls.Any() {
		ferr = errs.New(errs.SchemaMismatch, "", "null values in non-nullable columns: %s (over every row the operation would write); "+
			"nothing was changed: give these columns a value in every row", &n.nulls)
	}
	close(items)
	if err := <-werr; err != nil {
		return Result{}, err
	}
	if ferr != nil {
		return Result{}, ferr
	}
	var cdc []*protocol.Add
	if cw != nil {
		if cdc, err = cw.Close(); err != nil {
			return Result{}, err
		}
	}
	adds, err := w.Close()
	if err != nil {
		datafile.DeleteAdded(context.WithoutCancel(ctx), c.Store, cdc)
		return Result{}, err
	}
	now := c.Now().UnixMilli()
	if ms != nil {
		res, _, err = DeletionVectorActions(ctx, c.Store, files, ms, now)
		if err != nil {
			datafile.DeleteAdded(context.WithoutCancel(ctx), c.Store, append(adds, cdc...))
			return Result{}, err
		}
	} else {
		for _, a := range files {
			r := protocol.RemoveOf(a, now)
			r.DataChange = !c.Rearrange
			res.Removes = append(res.Removes, r)
			res.BytesRemoved += a.Size
		}
		res.FilesRemoved = len(files)
	}
	res.Adds, res.CDC = append(res.Adds, adds...), CDCActions(cdc)
	res.FilesRead, res.FilesAdded = len(files), len(adds)
	res.RowsRead, res.RowsKept, res.RowsChanged = n.read.Load(), n.kept.Load(), n.changed.Load()
	res.RowsDropped, res.RowsAppended, res.Batches = n.dropped.Load(), n.appended.Load(), n.batches.Load()
	for _, a := range adds {
		res.BytesAdded += a.Size
	}
	return res, nil
}

type counters struct {
	read, kept, changed, dropped, appended, batches atomic.Int64
	// nulls counts the rows to write that hold a null where schema (the
	// written rows') forbids one. The check is the engine's, before the
	// writer's, so that the error counts every file, not the first batch;
	// once it found one, nothing more is written.
	schema *schema.Struct
	nulls  datafile.NullCounts
}

// refused reports whether rec's rows that keep marks (nil: all) may not
// be written: they, or rows before them, hold a forbidden null.
func (n *counters) refused(rec arrow.RecordBatch, keep []bool) bool {
	return n.nulls.Add(rec, n.schema, keep) || n.nulls.Any()
}

// apply runs fn on one batch and sends what it writes to the writer: the
// rows it keeps, or with m (deletion-vector mode, rec carrying row
// positions) only its updated rows, the others marked in m; with rt
// (rec carrying row ids after them) the rows written keep their identity.
// It owns rec.
func apply(ctx context.Context, fn Func, a *protocol.Add, rec arrow.RecordBatch, items chan<- item, n *counters, ch *Changes, m *Marks, rt *rowTracking) error {
	var ids, versions *array.Int64
	if rt != nil {
		var err error
		if rec, ids, versions, err = rt.split(a, rec); err != nil {
			return err
		}
		defer ids.Release()
		defer versions.Release()
	}
	var pos *array.Int64
	if m != nil {
		var err error
		if rec, pos, err = SplitPositions(a, rec); err != nil {
			return err
		}
		defer pos.Release()
	}
	out, err := fn(ctx, Batch{File: a, Rec: rec, ids: ids, versions: versions, rt: rt})
	rows := int(rec.NumRows())
	data := rec
	if out.Replace != nil {
		data = out.Replace
		defer rec.Release() // the change rows' pre-images are its rows
	}
	if err == nil && int(data.NumRows()) != rows {
		err = errs.New(errs.Internal, a.Path, "a rewrite replaced a batch of %d rows with %d rows", rows, data.NumRows())
	}
	if err == nil && out.Keep != nil && len(out.Keep) != rows {
		err = errs.New(errs.Internal, a.Path, "a rewrite kept %d entries for a batch of %d rows", len(out.Keep), rows)
	}
	if err == nil && out.Updated != nil && (len(out.Updated) != rows || out.Replace == nil) {
		err = errs.New(errs.Internal, a.Path, "a rewrite marked %d updated rows of a batch of %d rows (replaced: %t)", len(out.Updated), rows, out.Replace != nil)
	}
	if err == nil && out.Superseded != nil && len(out.Superseded) != rows {
		err = errs.New(errs.Internal, a.Path, "a rewrite marked %d superseded rows of a batch of %d rows", len(out.Superseded), rows)
	}
	if err != nil {
		data.Release()
		return err
	}
	kept, changed := int64(rows), int64(0)
	if out.Keep != nil {
		kept = 0
		for _, k := range out.Keep {
			if k {
				kept++
			}
		}
	}
	for i, u := range out.Updated {
		if u && (out.Keep == nil || out.Keep[i]) {
			changed++
		}
	}
	n.read.Add(int64(rows))
	n.batches.Add(1)
	n.dropped.Add(int64(rows) - kept)
	n.changed.Add(changed)
	write := out.Keep
	if m != nil {
		// The file keeps its rows; those that leave, and the old rows of
		// updated ones, are marked, and only the updated rows are written.
		leave, upd := make([]bool, rows), make([]bool, rows)
		for i := range rows {
			k := out.Keep == nil || out.Keep[i]
			upd[i] = k && out.Updated != nil && out.Updated[i]
			leave[i] = !k || upd[i]
		}
		m.Mark(pos, leave)
		write, kept = upd, changed
	}
	n.kept.Add(kept)
	if ch != nil {
		// Change rows hold their own references to the columns.
		if err := sendChanges(ctx, ch, rec, data, out, rows, items); err != nil {
			data.Release()
			return err
		}
	}
	if kept == 0 || n.refused(data, write) {
		data.Release()
		return nil
	}
	if rt != nil {
		data = rt.kept(data, ids, versions, out.Updated)
	}
	it := item{rec: data}
	if kept < int64(rows) {
		it.keep = write
	}
	return send(ctx, items, it)
}

// sendChanges hands the writer the change rows of one batch: the rows that
// leave as deletes, the updated rows' old values (from rec) and new ones
// (from data).
func sendChanges(ctx context.Context, ch *Changes, rec, data arrow.RecordBatch, out Output, rows int, items chan<- item) error {
	leave := make([]bool, rows)
	updated := make([]bool, rows)
	superseded := make([]bool, rows)
	anyLeave, anyUpdated, anySuperseded := false, false, false
	for i := range rows {
		kept := out.Keep == nil || out.Keep[i]
		superseded[i] = !kept && out.Superseded != nil && out.Superseded[i]
		leave[i] = !kept && !superseded[i]
		updated[i] = kept && out.Updated != nil && out.Updated[i]
		anyLeave = anyLeave || leave[i]
		anyUpdated = anyUpdated || updated[i]
		anySuperseded = anySuperseded || superseded[i]
	}
	for _, c := range []struct {
		on   bool
		src  arrow.RecordBatch
		sel  []bool
		kind string
	}{{anyLeave, rec, leave, ChangeDelete}, {anySuperseded, rec, superseded, ChangePreimage},
		{anyUpdated, rec, updated, ChangePreimage}, {anyUpdated, data, updated, ChangePostimage}} {
		if !c.on {
			continue
		}
		cr, err := ch.Rows(c.src, c.kind)
		if err != nil {
			return err
		}
		if err := send(ctx, items, item{rec: cr, keep: c.sel, change: true}); err != nil {
			return err
		}
	}
	return nil
}

// callAppend lets the caller write more rows through the writer.
func callAppend(ctx context.Context, fn func(context.Context, func(arrow.RecordBatch) error) error, updates func(arrow.RecordBatch) ([]bool, error),
	items chan<- item, n *counters, ch *Changes, rt *rowTracking) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errs.Recovered(errs.Internal, "", "rewrite append", v)
		}
	}()
	return fn(ctx, func(rec arrow.RecordBatch) error {
		if rec == nil || rec.NumRows() == 0 {
			return nil
		}
		n.appended.Add(rec.NumRows())
		if n.refused(rec, nil) {
			return nil
		}
		if ch != nil {
			plain := rt.without(rec)
			err := sendAppendedChanges(ctx, ch, plain, updates, items)
			plain.Release()
			if err != nil {
				return err
			}
		}
		if rt != nil && !rt.carries(rec) {
			return send(ctx, items, item{rec: rt.inserted(rec)})
		}
		rec.Retain()
		return send(ctx, items, item{rec: rec})
	})
}

// sendAppendedChanges hands the writer the change rows of appended rows:
// inserts, or post-images where updates (Options.AppendUpdates) marks the
// new values of superseded rows.
func sendAppendedChanges(ctx context.Context, ch *Changes, rec arrow.RecordBatch, updates func(arrow.RecordBatch) ([]bool, error), items chan<- item) error {
	var post []bool
	if updates != nil {
		var err error
		if post, err = updates(rec); err != nil {
			return err
		}
	}
	if post == nil {
		cr, err := ch.Rows(rec, ChangeInsert)
		if err != nil {
			return err
		}
		return send(ctx, items, item{rec: cr, change: true})
	}
	if len(post) != int(rec.NumRows()) {
		return errs.New(errs.Internal, "", "%d update marks for %d appended rows", len(post), rec.NumRows())
	}
	ins := make([]bool, len(post))
	for i, p := range post {
		ins[i] = !p
	}
	for _, c := range []struct {
		sel  []bool
		kind string
	}{{ins, ChangeInsert}, {post, ChangePostimage}} {
		if !slices.Contains(c.sel, true) {
			continue
		}
		cr, err := ch.Rows(rec, c.kind)
		if err != nil {
			return err
		}
		if err := send(ctx, items, item{rec: cr, keep: c.sel, change: true}); err != nil {
			return err
		}
	}
	return nil
}

// send hands a batch to the writer, or releases it when the rewrite
// stopped.
func send(ctx context.Context, items chan<- item, it item) error {
	select {
	case items <- it:
		return nil
	case <-ctx.Done():
		it.rec.Release()
		return errs.Wrap(errs.Canceled, "", ctx.Err(), "rewriting")
	}
}

// drain writes batches until items closes. After a failure it keeps
// receiving (releasing what arrives) so that readers never block, and
// stops them.
func drain(w, cw *datafile.Writer, items <-chan item, stop func()) (err error) {
	for it := range items {
		if err == nil {
			if it.change {
				err = writeItem(cw, it)
			} else {
				err = writeItem(w, it)
			}
			if err != nil {
				stop()
			}
		}
		it.rec.Release()
	}
	return err
}

func writeItem(w *datafile.Writer, it item) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errs.Recovered(errs.Internal, "", "writing", v)
		}
	}()
	if it.keep != nil {
		return w.WriteSelected(it.rec, it.keep)
	}
	return w.Write(it.rec)
}

// Matching returns the files among files that hold a row for which pred
// IS TRUE, in the given order. It reads only pred's columns of each file
// and stops at the file's first matching row (the first pass of the
// package doc); files that partition values and statistics rule out are
// not opened.
func Matching(ctx context.Context, snap *snapshot.Snapshot, files []*protocol.Add, pred *expr.Bound, opt Options) (_ []*protocol.Add, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errs.Recovered(errs.Internal, "", "matching", v)
		}
	}()
	c, err := resolve(snap, opt)
	if err != nil {
		return nil, err
	}
	if pred == nil {
		return files, nil
	}
	hit := make([]bool, len(files))
	r := &reader{c: c, snap: snap}
	err = r.forEach(ctx, files, func(ctx context.Context, i int, a *protocol.Add) error {
		return r.read(ctx, a, func(rec arrow.RecordBatch) error {
			hit[i] = hit[i] || rec.NumRows() > 0
			rec.Release()
			return nil
		}, scan.WithColumns(), scanhook.WithBound(pred).(scan.Option), scan.WithLimit(1))
	})
	if err != nil {
		return nil, err
	}
	var out []*protocol.Add
	for i, a := range files {
		if hit[i] {
			out = append(out, a)
		}
	}
	return out, nil
}
