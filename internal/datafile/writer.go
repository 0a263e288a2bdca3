package datafile

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/gather"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// Writer writes batches of one table into data files. It is not safe for
// concurrent use. After an error other than a rejected batch, the Writer
// only returns that error; call Abort to delete what it wrote.
type Writer struct {
	*settings
	ctx      context.Context
	cctx     context.Context // ctx with the allocator, for compute kernels
	st       storage.Store
	props    *parquet.WriterProperties // for a file of no particular rows; see fileProps
	propOpts []parquet.WriterProperty  // what props was built from

	logical    *arrow.Schema // what Write takes
	fileSchema *arrow.Schema // what the files hold
	flat       bool          // fileSchema suits a columnFile
	dataCols   []int         // columns of the logical batch stored in files
	parts      []partCol
	plan       *statsPlan

	partitions map[string]*partition
	order      []*partition // in order of first row, for a stable Close
	buffered   int64        // Arrow bytes waiting over all partitions
	openFiles  int
	uses       uint64    // clock for least recently written files
	inflight   *dataFile // the file whose row group is written in the background, if any

	// Learned Parquet bytes per Arrow byte, to cut files near the target.
	arrowFlushed, parquetFlushed int64
	rowsFlushed                  int64

	counter int
	rows    int64 // rows accepted by Write
	adds    []*protocol.Add
	stored  []string // keys of finished files, for Abort
	syncs   syncer   // makes finished files durable in the background
	err     error
	closing bool // Close is writing what is left: the rest is known
	closed  bool
}

// NewWriter prepares a write into the table rooted at st. Nothing is
// stored before the first row group is due.
func NewWriter(ctx context.Context, st storage.Store, opt Options) (_ *Writer, err error) {
	defer guard(&err)
	s, err := resolve(opt)
	if err != nil {
		return nil, err
	}
	logical, err := schema.ToArrow(s.Schema, schema.ArrowOptions{})
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "table schema")
	}
	w := &Writer{settings: s, ctx: ctx, cctx: compute.WithAllocator(ctx, s.Allocator), st: st, logical: logical,
		partitions: map[string]*partition{}, syncs: newSyncer(ctx, st)}
	isPart := map[*schema.Field]bool{}
	for _, f := range s.parts {
		isPart[f] = true
		w.parts = append(w.parts, partCol{field: f, index: s.Schema.Index(f.Name), key: f.PhysicalName(s.ColumnMapping)})
	}
	var fields []arrow.Field
	var data []*schema.Field
	for i, f := range s.Schema.Fields {
		if isPart[f] {
			continue
		}
		data = append(data, f)
		if isVoid(f.Type) {
			continue
		}
		af, err := fileField(f, s.ColumnMapping)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "table schema")
		}
		fields = append(fields, af)
		w.dataCols = append(w.dataCols, i)
	}
	if len(fields) == 0 {
		return nil, errs.New(errs.InvalidArgument, "", "the table has no column to store in data files besides partition and void columns")
	}
	w.fileSchema = arrow.NewSchema(fields, nil)
	w.flat = flatSchema(w.fileSchema)
	if s.Hidden < 0 || s.Hidden >= len(data) {
		return nil, errs.New(errs.InvalidArgument, "", "%d hidden columns of %d data columns", s.Hidden, len(data))
	}
	if s.ChangeData {
		// A cdc action carries no statistics: gather none, only the row
		// count files roll by.
		w.plan = &statsPlan{}
	} else {
		w.plan = newStatsPlan(data[:len(data)-s.Hidden], s.ColumnMapping, s.statsConfig)
	}
	w.propOpts = []parquet.WriterProperty{
		parquet.WithAllocator(s.Allocator),
		parquet.WithCompression(s.codec.c),
		parquet.WithMaxRowGroupLength(DefaultMaxRowGroupRows),
		parquet.WithDictionaryDefault(true),
		parquet.WithStats(true),
	}
	w.props = parquet.NewWriterProperties(w.propOpts...)
	return w, nil
}

// Write adds a batch of the table's logical Arrow schema (see Conform). A
// batch of the wrong shape, with nulls where the schema forbids them, or
// with partition values the log cannot hold is refused (ErrSchemaMismatch,
// ErrInvalidArgument) before anything is kept, and the Writer stays usable.
// Write does not keep rec; it copies or retains what it needs.
func (w *Writer) Write(rec arrow.RecordBatch) error { return w.write(rec, nil) }

// WriteSelected is Write of the rows of rec that keep marks (one entry per
// row). Runs of kept rows are buffered as slices sharing rec's buffers and
// accounted as rec's bytes in proportion to their rows, so that a batch
// with a few rows removed is neither copied nor counted more than once.
func (w *Writer) WriteSelected(rec arrow.RecordBatch, keep []bool) error {
	if len(keep) != int(rec.NumRows()) {
		return errs.New(errs.InvalidArgument, "", "WriteSelected: %d selection entries for %d rows", len(keep), rec.NumRows())
	}
	return w.write(rec, keep)
}

func (w *Writer) write(rec arrow.RecordBatch, sel []bool) (err error) {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errs.New(errs.InvalidArgument, "", "Write after Close or Abort")
	}
	defer guard(&err)
	if err := w.ctx.Err(); err != nil {
		return errs.Wrap(errs.Canceled, "", err, "write")
	}
	if err := checkBatch(rec, w.Schema, w.logical, sel); err != nil {
		return err
	}
	if rec.NumRows() == 0 {
		return nil
	}
	var groups []group
	if len(w.parts) > 0 {
		if groups, err = w.groups(rec); err != nil {
			return err
		}
	}
	kept := keptRows(sel, int(rec.NumRows()))
	if kept == 0 {
		return nil
	}
	if err := w.keep(rec, groups, sel, kept); err != nil {
		return err
	}
	w.rows += kept
	return nil
}

// keptRows counts the rows sel keeps of n (all when sel is nil).
func keptRows(sel []bool, n int) int64 {
	if sel == nil {
		return int64(n)
	}
	var k int64
	for _, b := range sel {
		if b {
			k++
		}
	}
	return k
}

// Progress is what a Writer has done so far, for progress reports.
type Progress struct {
	Rows          int64 // rows accepted by Write
	Files         int   // data files finished
	BytesWritten  int64 // Parquet bytes stored or being stored
	BufferedBytes int64 // Arrow bytes waiting in buffers
}

// Progress reports what the Writer has done so far.
func (w *Writer) Progress() Progress {
	p := Progress{Rows: w.rows, Files: len(w.adds), BufferedBytes: w.buffered}
	for _, a := range w.adds {
		p.BytesWritten += a.Size
	}
	for _, q := range w.order {
		if q.file != nil {
			p.BytesWritten += q.file.size.Load()
		}
	}
	return p
}

// group is the rows of a batch that share one partition.
type group struct {
	p    *partition
	rows []int32
}

// groups splits a batch by partition values and finds each part's
// partition; nothing is buffered yet, so a refused value leaves no trace.
func (w *Writer) groups(rec arrow.RecordBatch) ([]group, error) {
	ids, n, err := groupRows(rec, w.parts)
	if err != nil {
		return nil, err
	}
	// Counting sort of row numbers by group; a group's values are those of
	// its first row.
	start := make([]int32, n+1)
	first := make([]int32, n)
	for i := range first {
		first[i] = -1
	}
	for row, g := range ids {
		start[g+1]++
		if first[g] < 0 {
			first[g] = int32(row)
		}
	}
	for g := 1; g <= n; g++ {
		start[g] += start[g-1]
	}
	rows := make([]int32, len(ids))
	next := append([]int32(nil), start[:n]...)
	for row, g := range ids {
		rows[next[g]] = int32(row)
		next[g]++
	}
	values := make([]string, len(w.parts))
	ok := make([]bool, len(w.parts))
	out := make([]group, n)
	for g := range out {
		for k, pc := range w.parts {
			if values[k], ok[k], err = partitionValue(pc, rec.Column(pc.index), int(first[g])); err != nil {
				return nil, err
			}
		}
		out[g] = group{p: w.partition(values, ok), rows: rows[start[g]:start[g+1]]}
	}
	return out, nil
}

// keep buffers the kept rows of a checked batch (those sel marks, all when
// it is nil), writing row groups as buffers fill; a failure here is the
// Writer's last.
func (w *Writer) keep(rec arrow.RecordBatch, groups []group, sel []bool, kept int64) (err error) {
	defer func() {
		if err != nil {
			w.err = err
		}
	}()
	defer guard(&err)
	file := w.fileBatch(rec)
	defer file.Release()
	switch len(groups) {
	case 0:
		err = w.bufferRuns(w.partition(nil, nil), file, sel, kept)
	case 1:
		err = w.bufferRuns(groups[0].p, file, sel, kept)
	default:
		var chunks []arrow.RecordBatch
		if chunks, err = w.split(file, groups, sel); err != nil {
			break
		}
		for k, g := range groups {
			if chunks[k] == nil {
				continue
			}
			if err == nil {
				err = w.buffer(g.p, chunks[k])
			}
			chunks[k].Release()
		}
	}
	if err != nil {
		return err
	}
	return w.relieve()
}

// fileBatch shares the data columns of a logical batch under the file schema.
func (w *Writer) fileBatch(rec arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, len(w.dataCols))
	for k, i := range w.dataCols {
		d := retype(rec.Column(i).Data(), w.Schema.Fields[i].Type, w.fileSchema.Field(k).Type)
		cols[k] = array.MakeFromData(d)
		d.Release()
	}
	out := array.NewRecordBatch(w.fileSchema, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// split copies out of a file batch the rows of each group that sel keeps
// (all when it is nil), one column per worker; a group with no rows kept
// gets nil.
func (w *Writer) split(file arrow.RecordBatch, groups []group, sel []bool) ([]arrow.RecordBatch, error) {
	rows := make([][]int32, len(groups))
	for k, g := range groups {
		rows[k] = g.rows
		if sel != nil {
			rows[k] = slices.DeleteFunc(slices.Clone(g.rows), func(r int32) bool { return !sel[r] })
		}
	}
	ncols := int(file.NumCols())
	cols := make([][]arrow.Array, len(groups))
	for k := range cols {
		cols[k] = make([]arrow.Array, ncols)
	}
	defer func() {
		for _, cs := range cols {
			for _, c := range cs {
				if c != nil {
					c.Release()
				}
			}
		}
	}()
	err := forEach(ncols, w.EncodeWorkers, func(i int) error {
		for k := range groups {
			if len(rows[k]) == 0 {
				continue
			}
			c, err := w.takeColumn(file.Column(i), rows[k])
			if err != nil {
				return err
			}
			cols[k][i] = c
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]arrow.RecordBatch, len(groups))
	for k := range groups {
		if len(rows[k]) > 0 {
			out[k] = array.NewRecordBatch(w.fileSchema, cols[k], int64(len(rows[k])))
		}
	}
	return out, nil
}

// takeColumn copies the given rows of a column: with gather.Rows where it can,
// else with arrow's take kernel.
func (w *Writer) takeColumn(a arrow.Array, rows []int32) (arrow.Array, error) {
	if c, ok := gather.Rows(w.Allocator, a, rows); ok {
		return c, nil
	}
	d := array.NewData(arrow.PrimitiveTypes.Int32, len(rows),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(rows))}, nil, 0, 0)
	idx := array.NewInt32Data(d)
	d.Release()
	defer idx.Release()
	c, err := compute.TakeArray(w.cctx, a, idx)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "splitting a batch by partition")
	}
	return c, nil
}

// Close writes everything still buffered and returns one add action per
// data file, in the order the files were finished. A write of no rows
// returns no action.
func (w *Writer) Close() (_ []*protocol.Add, err error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.closed {
		return nil, errs.New(errs.InvalidArgument, "", "Close after Close or Abort")
	}
	defer guard(&err)
	defer func() {
		if err != nil {
			w.err = err
		}
	}()
	w.closing = true
	for _, p := range w.order {
		if err := w.flush(p); err != nil {
			return nil, err
		}
		if p.file != nil {
			if err := w.finish(p); err != nil {
				return nil, err
			}
		}
	}
	if err := w.syncs.wait(); err != nil {
		return nil, err
	}
	w.closed = true
	return w.adds, nil
}

// Abort stops the write and deletes, best effort, every file it stored;
// files being written never appear. The Writer cannot be used afterwards.
func (w *Writer) Abort(ctx context.Context) (err error) {
	defer guard(&err)
	w.closed = true
	if w.err == nil {
		w.err = errs.New(errs.InvalidArgument, "", "the write was aborted")
	}
	for _, p := range w.order {
		p.drop(w)
		if p.file != nil {
			p.file.abort()
			p.file = nil
			w.openFiles--
		}
	}
	_ = w.syncs.wait()
	keys := w.stored
	w.stored, w.adds = nil, nil
	if len(keys) == 0 {
		return nil
	}
	if err := w.st.Delete(ctx, keys...); err != nil {
		return errs.Wrap(errs.Internal, "", err, "deleting %d data files of an aborted write", len(keys))
	}
	return nil
}

// guard turns a panic in a dependency into an error.
func guard(err *error) {
	if r := recover(); r != nil {
		*err = errs.Recovered(errs.Internal, "", "write", r)
	}
}
