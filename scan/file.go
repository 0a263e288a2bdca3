package scan

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/gather"
	"github.com/deltalite-go/deltalite/storage"
)

// fileReader turns one data file into output batches.
type fileReader struct {
	b    *bound
	ctx  context.Context // with the compute allocator
	task FileTask
	conv conformer
	emit func(arrow.RecordBatch) bool

	deleted *dv.Bitmap
	only    *dv.Bitmap // with rowsOnly: the positions to read, instead of deleted
	recCol  []int      // per bound.read: column of the file batch, -1 if not read by pqarrow
	direct  []directColumn
	dirCol  []int         // per bound.read: index in direct, -1 if read by pqarrow or not at all
	values  []any         // per output column: the constant's value (nil: null)
	consts  []arrow.Array // per output column: a constant (partition or missing column), grown on demand
	capRows int           // length to build constants with
	keep    []bool        // selection scratch, reused across batches
	idx     []int32

	dictCols              []bool        // per bound.read: stays a dictionary in this file (nil: none does)
	evalSchema, outSchema *arrow.Schema // of this file's batches (fileSchemas)
}

// readFile streams the batches of one file to emit, stopping early when
// emit returns false. emit owns the batches it is given.
func (b *bound) readFile(ctx context.Context, task FileTask, emit func(arrow.RecordBatch) bool) error {
	cctx := compute.WithAllocator(ctx, b.mem)
	fr := &fileReader{b: b, ctx: cctx, task: task, emit: emit,
		conv: conformer{ctx: cctx, mem: b.mem, mode: b.mode}}
	defer fr.release()
	if err := fr.partitionValues(); err != nil {
		return err
	}
	if only, ok := b.rowsOnly[task.Add]; ok {
		fr.only = only
	} else if d := task.Add.DeletionVector; d != nil {
		bm, err := dv.Load(ctx, b.src.Store(), d)
		if err != nil {
			key, _ := dv.FileKey(b.src.Store(), d)
			return missingFile(b.src, key, "deletion vector file", err)
		}
		fr.deleted = bm
	}
	r, err := b.src.Store().Open(ctx, task.Key)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return missingFile(b.src, task.Key, "data file", err)
		}
		return errs.Wrap(errs.Internal, task.Key, err, "opening data file")
	}
	defer r.Close()
	props := parquet.NewReaderProperties(b.mem)
	props.BufferedStreamEnabled = true // read column chunks in bounded pieces, not whole
	pf, err := file.NewParquetReader(io.NewSectionReader(r, 0, r.Size()), file.WithReadProps(props))
	if err != nil {
		return errs.Wrap(errs.CorruptTable, task.Key, err, "data file is not a readable Parquet file")
	}
	defer pf.Close()
	defer func() { // before the file closes
		for _, c := range fr.direct {
			c.close()
		}
	}()
	arrowProps := pqarrow.ArrowReadProperties{BatchSize: int64(b.batchSize), PreAllocBinaryData: true, Parallel: b.columnsAtOnce}
	pr, err := pqarrow.NewFileReader(pf, arrowProps, b.mem)
	if err != nil {
		return errs.Wrap(errs.CorruptTable, task.Key, err, "data file schema cannot be read as Arrow")
	}
	leafCols := fr.matchColumns(pr)
	if dict := fr.dictionaryLeaves(pr); len(dict) > 0 {
		// The same file and leaves, those read as dictionaries now.
		for _, c := range dict {
			arrowProps.SetReadDict(c, true)
		}
		if pr, err = pqarrow.NewFileReader(pf, arrowProps, b.mem); err != nil {
			return errs.Wrap(errs.CorruptTable, task.Key, err, "data file schema cannot be read as Arrow")
		}
	}
	fr.fileSchemas()
	fr.capRows = int(min(int64(b.batchSize), max(pf.NumRows(), 1)))
	var base int64
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		n := pf.MetaData().RowGroup(rg).NumRows()
		for _, c := range fr.direct {
			if err := c.openRowGroup(pf, rg); err != nil {
				return errs.Wrap(errs.CorruptTable, task.Key, err, "reading row group %d", rg)
			}
		}
		var more bool
		if len(leafCols) == 0 {
			more, err = fr.countOnly(base, n)
		} else {
			more, err = fr.rowGroup(pr, leafCols, rg, base)
		}
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		base += n
	}
	return nil
}

func (fr *fileReader) release() {
	for _, c := range fr.consts {
		if c != nil {
			c.Release()
		}
	}
}

// partitionValues parses the log's partition values of the file.
func (fr *fileReader) partitionValues() error {
	fr.values = make([]any, len(fr.b.out))
	fr.consts = make([]arrow.Array, len(fr.b.out))
	for i, oc := range fr.b.out {
		if !oc.partition {
			continue
		}
		v, err := oc.partitionValue(fr.b.sess, fr.task.Add)
		if err != nil {
			return err
		}
		fr.values[i] = v
	}
	return nil
}

// matchColumns finds the file column of every data column to read and
// returns the Parquet leaves to decode, grouped by top-level field in read
// order so that pqarrow's batch columns follow that order.
func (fr *fileReader) matchColumns(pr *pqarrow.FileReader) []int {
	top := manifestFields(pr.Manifest.Fields)
	descr := pr.ParquetReader().MetaData().Schema
	fr.recCol = make([]int, len(fr.b.read))
	fr.dirCol = make([]int, len(fr.b.read))
	var cols []int
	fieldCol := map[int]int{} // manifest field → batch column
	for i, f := range fr.b.read {
		fr.recCol[i], fr.dirCol[i] = -1, -1
		j := MatchField(top, f, fr.b.mode)
		if j < 0 {
			continue
		}
		if sf := &pr.Manifest.Fields[j]; sf.IsLeaf() {
			var dc directColumn
			switch cd := descr.Column(sf.ColIndex); {
			case cd.PhysicalType() == parquet.Types.Int96:
				dc = &int96Column{chunk: chunk{col: sf.ColIndex, maxDef: cd.MaxDefinitionLevel()}}
			case directBytes(cd, sf.Field.Type) && (fr.b.dictRead == nil || !fr.b.dictRead[i]):
				dc = &bytesColumn{chunk: chunk{col: sf.ColIndex, maxDef: cd.MaxDefinitionLevel()}, typ: sf.Field.Type}
			}
			if dc != nil {
				fr.dirCol[i] = len(fr.direct)
				fr.direct = append(fr.direct, dc)
				continue
			}
		}
		if c, ok := fieldCol[j]; ok {
			fr.recCol[i] = c
			continue
		}
		n := len(cols)
		cols = leaves(cols, &pr.Manifest.Fields[j], f.Type, fr.b.mode)
		if len(cols) == n {
			continue
		}
		fieldCol[j] = len(fieldCol)
		fr.recCol[i] = fieldCol[j]
	}
	return cols
}

// rowGroup reads one row group batch by batch.
func (fr *fileReader) rowGroup(pr *pqarrow.FileReader, leafCols []int, rg int, base int64) (bool, error) {
	rr, err := pr.GetRecordReader(fr.ctx, leafCols, []int{rg})
	if err != nil {
		return false, errs.Wrap(errs.CorruptTable, fr.task.Key, err, "reading row group %d", rg)
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		more, err := fr.batch(rec, base)
		if err != nil || !more {
			return false, err
		}
		base += rec.NumRows()
	}
	if err := rr.Err(); err != nil {
		return false, errs.Wrap(errs.CorruptTable, fr.task.Key, err, "reading row group %d", rg)
	}
	return true, nil
}

// countOnly serves a scan that needs no column of the file through pqarrow
// (only partition columns, columns the file lacks or columns read
// directly): batches of rows are counted out, and direct columns read.
func (fr *fileReader) countOnly(base, n int64) (bool, error) {
	for n > 0 {
		if err := fr.ctx.Err(); err != nil {
			return false, errs.Wrap(errs.Canceled, fr.task.Key, err, "reading data file")
		}
		m := min(n, int64(fr.b.batchSize))
		empty := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, m)
		more, err := fr.batch(empty, base)
		empty.Release()
		if err != nil || !more {
			return false, err
		}
		base, n = base+m, n-m
	}
	return true, nil
}

// batch turns one file batch (rows base.. of the file) into an output batch.
func (fr *fileReader) batch(rec arrow.RecordBatch, base int64) (bool, error) {
	n := int(rec.NumRows())
	sel, count := fr.selection(base, n)
	want := sel
	if count == 0 {
		want = []int32{} // none, but the rows are consumed
	}
	direct, selected, err := fr.readDirect(n, want)
	defer releaseAll(direct)
	if err != nil {
		return false, err
	}
	read := make([]arrow.Array, len(fr.b.read))
	defer releaseAll(read)
	for i, f := range fr.b.read {
		var src arrow.Array
		switch c, k := fr.recCol[i], fr.dirCol[i]; {
		case c >= 0:
			if count == 0 {
				continue
			}
			src = rec.Column(c)
			src.Retain()
		case k >= 0 && count > 0:
			src, direct[k] = direct[k], nil
		default:
			continue
		}
		if kept, err := fr.keptDictionary(i, src); kept || err != nil {
			if err != nil {
				src.Release()
				return false, errs.Wrap(errs.Internal, fr.task.Key, err, "column %q", f.Name)
			}
			read[i] = src
			continue
		}
		a, err := fr.conv.conform(src, f.Type, fr.b.readTypes[i])
		src.Release()
		if err != nil {
			return false, errs.Wrap(errs.CorruptTable, fr.task.Key, err, "column %q", f.Name)
		}
		read[i] = a
	}
	if count == 0 {
		return true, nil
	}
	cols := make([]arrow.Array, len(fr.b.out))
	defer releaseAll(cols)
	var idxArr arrow.Array
	if sel != nil && !contiguous(sel) {
		idxArr = int32Array(sel)
		defer idxArr.Release()
	}
	for j, oc := range fr.b.out {
		var src arrow.Array
		if oc.read >= 0 {
			src = read[oc.read]
		}
		if oc.meta != notMeta {
			c, err := fr.metaValues(oc, src, base, sel, count)
			if err != nil {
				return false, err
			}
			cols[j] = c
			continue
		}
		if src == nil { // partition column, or a column this file lacks
			c, err := fr.constant(j, count)
			if err != nil {
				return false, err
			}
			cols[j] = c
			continue
		}
		switch {
		case sel == nil || (fr.dirCol[oc.read] >= 0 && selected[fr.dirCol[oc.read]]):
			src.Retain()
			cols[j] = src
		case idxArr == nil:
			cols[j] = array.NewSlice(src, int64(sel[0]), int64(sel[0])+int64(count))
		default:
			if out, ok := gather.Rows(fr.b.mem, src, sel); ok {
				cols[j] = out
				continue
			}
			out, err := compute.TakeArray(fr.ctx, src, idxArr)
			if err != nil {
				return false, errs.Wrap(errs.Internal, fr.task.Key, err, "dropping deleted rows of column %q", oc.field.Name)
			}
			cols[j] = out
		}
	}
	out := array.NewRecordBatch(fr.evalSchema, cols, int64(count))
	if len(fr.b.preds) > 0 && !fr.task.allMatch {
		var err error
		if out, err = fr.filter(out); err != nil {
			return false, err
		}
	}
	if out.NumRows() == 0 {
		out.Release()
		return true, nil
	}
	if len(fr.b.out) > fr.b.visible { // drop the columns only predicates read
		sel := array.NewRecordBatch(fr.outSchema, out.Columns()[:fr.b.visible], out.NumRows())
		out.Release()
		out = sel
	}
	return fr.emit(out), nil
}

// readDirect reads the next n rows of every direct column, only the rows
// of sel where a column can (selected), concurrently when the scan decodes
// a file's columns at once.
func (fr *fileReader) readDirect(n int, sel []int32) ([]arrow.Array, []bool, error) {
	out := make([]arrow.Array, len(fr.direct))
	selected := make([]bool, len(fr.direct))
	failed := make([]error, len(fr.direct))
	read := func(k int) {
		out[k], selected[k], failed[k] = fr.direct[k].read(fr.b.mem, n, sel)
	}
	if fr.b.columnsAtOnce && len(fr.direct) > 1 {
		var wg sync.WaitGroup
		for k := range fr.direct[1:] {
			wg.Go(func() { read(k + 1) })
		}
		read(0)
		wg.Wait()
	} else {
		for k := range fr.direct {
			read(k)
		}
	}
	for i, f := range fr.b.read {
		if k := fr.dirCol[i]; k >= 0 && failed[k] != nil {
			return out, nil, errs.Wrap(errs.CorruptTable, fr.task.Key, failed[k], "column %q", f.Name)
		}
	}
	return out, selected, nil
}

// filter keeps the rows of rec for which every predicate IS TRUE. It
// consumes rec.
func (fr *fileReader) filter(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	for _, p := range fr.b.preds {
		out, err := expr.Filter(fr.ctx, rec, p)
		rec.Release()
		if err != nil {
			// Name the file: the predicate's own errors do not know it.
			kind := errs.InvalidArgument
			if e := (*errs.Error)(nil); errors.As(err, &e) {
				kind = e.Kind
			}
			return nil, &errs.Error{Kind: kind, Path: fr.task.Key, Msg: "evaluating the predicate " + p.String(), Err: err}
		}
		rec = out
		if rec.NumRows() == 0 {
			break
		}
	}
	return rec, nil
}

// selection returns the rows of the batch to keep: nil and n when all are;
// otherwise the indexes of the rows not deleted.
func (fr *fileReader) selection(base int64, n int) ([]int32, int) {
	if fr.only != nil {
		return fr.onlyRows(base, n)
	}
	hasDeleted := false
	if fr.deleted != nil {
		for range fr.deleted.Range(uint64(base), uint64(base)+uint64(n)) {
			hasDeleted = true
			break
		}
	}
	if !hasDeleted {
		return nil, n
	}
	if cap(fr.keep) < n {
		fr.keep = make([]bool, n)
		fr.idx = make([]int32, 0, n)
	}
	keep := fr.keep[:n]
	for i := range keep {
		keep[i] = true
	}
	for pos := range fr.deleted.Range(uint64(base), uint64(base)+uint64(n)) {
		keep[pos-uint64(base)] = false
	}
	idx := fr.idx[:0]
	for i, k := range keep {
		if k {
			idx = append(idx, int32(i))
		}
	}
	fr.idx = idx
	if len(idx) == n {
		return nil, n
	}
	return idx, len(idx)
}

// onlyRows is selection for a file read at chosen positions (rowsOnly).
func (fr *fileReader) onlyRows(base int64, n int) ([]int32, int) {
	idx := fr.idx[:0]
	for pos := range fr.only.Range(uint64(base), uint64(base)+uint64(n)) {
		idx = append(idx, int32(pos-uint64(base)))
	}
	fr.idx = idx
	if len(idx) == n {
		return nil, n
	}
	return idx, len(idx)
}

func contiguous(sel []int32) bool {
	return int(sel[len(sel)-1]-sel[0])+1 == len(sel)
}

// int32Array wraps indexes as an Arrow array without copying; it must not
// outlive the next call that reuses the slice.
func int32Array(v []int32) arrow.Array {
	buf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(v))
	data := array.NewData(arrow.PrimitiveTypes.Int32, len(v), []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// constant returns n rows of output column j's constant: its partition
// value, or nulls for a column the file lacks.
func (fr *fileReader) constant(j, n int) (arrow.Array, error) {
	c := fr.consts[j]
	if c == nil || c.Len() < n {
		if c != nil {
			c.Release()
			fr.consts[j] = nil
		}
		oc := fr.b.out[j]
		nc, err := constantArray(fr.b.mem, oc.arrow.Type, fr.values[j], max(n, fr.capRows))
		if err != nil {
			return nil, errs.Wrap(errs.UnsupportedTable, fr.task.Add.Path, err, "column %q", oc.field.Name)
		}
		fr.consts[j], c = nc, nc
	}
	if c.Len() == n {
		c.Retain()
		return c, nil
	}
	return array.NewSlice(c, 0, int64(n)), nil
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}
