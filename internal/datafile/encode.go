package datafile

import (
	"cmp"
	"context"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// columnFile writes row groups of a schema of flat columns (one Parquet
// leaf per Arrow field). With several workers it encodes and compresses
// the column chunks of a row group in parallel: pqarrow's FileWriter
// encodes one column after another on the caller's goroutine, which left
// all but one core idle. Such a row group is buffered whole by arrow-go
// until it is complete, then written out, so the file holds no encoded
// data between row groups. With one worker the row group streams to the
// file. The bytes are those pqarrow writes for the same rows.
type columnFile struct {
	pw      *file.Writer
	workers int // columns encoded at once; 1 streams the row group
}

// flatSchema reports whether every field of s is one Parquet leaf that
// pqarrow.WriteArrowToColumn writes without repetition levels.
func flatSchema(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		id := f.Type.ID()
		switch {
		case arrow.IsPrimitive(id), arrow.IsBaseBinary(id):
		case id == arrow.FIXED_SIZE_BINARY, id == arrow.DECIMAL128, id == arrow.DECIMAL256:
		default:
			return false
		}
	}
	return true
}

func newColumnFile(s *arrow.Schema, sink io.Writer, props *parquet.WriterProperties, workers int) (*columnFile, error) {
	ps, err := pqarrow.ToParquet(s, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	pw, err := file.NewParquetWriterWithError(sink, ps.Root(), file.WithWriterProps(props),
		file.WithWriteMetadata(metadata.KeyValueMetadata{}))
	if err != nil {
		return nil, err
	}
	return &columnFile{pw: pw, workers: workers}, nil
}

// write writes rows of recs as row groups of at most the row cap, and
// hands each column's rows to each (on the goroutine that encodes the
// column; different columns at once).
func (c *columnFile) write(recs []arrow.RecordBatch, rows int64, each func(col int, pieces []arrow.Array)) error {
	limit := c.pw.Properties().MaxRowGroupLength()
	for lo := int64(0); lo < rows; lo += limit {
		if err := c.writeRowGroup(recs, lo, min(lo+limit, rows), each); err != nil {
			return err
		}
	}
	return nil
}

// writeRowGroup writes rows [lo, hi) of recs as one row group.
func (c *columnFile) writeRowGroup(recs []arrow.RecordBatch, lo, hi int64, each func(int, []arrow.Array)) error {
	ncols := len(recs[0].Columns())
	cols := make([][]arrow.Array, ncols)
	size := make([]int64, ncols)
	for i := range cols {
		cols[i] = rowRange(recs, i, lo, hi)
		for _, a := range cols[i] {
			size[i] += viewBytes(a)
		}
	}
	defer func() {
		for _, pieces := range cols {
			releaseAll(pieces)
		}
	}()
	if c.workers <= 1 {
		return c.writeSerial(cols, each)
	}
	return c.writeParallel(cols, size, each)
}

// writeSerial streams the columns one after another, page by page, to the
// file: nothing of the row group is held encoded.
func (c *columnFile) writeSerial(cols [][]arrow.Array, each func(int, []arrow.Array)) error {
	rgw, err := c.pw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	var levels []int16
	for i, pieces := range cols {
		cw, err := rgw.NextColumn()
		if err != nil {
			return err
		}
		if err := writeColumn(pqarrow.NewArrowWriteContext(context.Background(), nil), cw, pieces, &levels); err != nil {
			return err
		}
		each(i, pieces)
	}
	return rgw.Close()
}

// writeParallel encodes the column chunks on up to c.workers goroutines,
// each into memory, and writes the row group when the last is done.
// Workers take columns largest first, so that the last to finish is a
// small one.
func (c *columnFile) writeParallel(cols [][]arrow.Array, size []int64, each func(int, []arrow.Array)) error {
	rgw, err := c.pw.AppendBufferedRowGroupChecked()
	if err != nil {
		return err
	}
	order := make([]int, len(cols))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })

	if err := forEach(len(cols), c.workers, func(k int) error {
		i := order[k]
		cw, err := rgw.Column(i)
		if err != nil {
			return err
		}
		var levels []int16
		if err := writeColumn(pqarrow.NewArrowWriteContext(context.Background(), nil), cw, cols[i], &levels); err != nil {
			return err
		}
		each(i, cols[i])
		return flushPage(cw)
	}); err != nil {
		return err
	}
	return rgw.Close()
}

// forEach calls fn(0) to fn(n-1) on up to workers goroutines and returns
// the error of the lowest k that failed; a panic in fn is an error of its k.
func forEach(n, workers int, fn func(k int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				errs[k] = func() (err error) {
					defer guard(&err)
					return fn(k)
				}()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeColumn writes the pieces of one column to its chunk writer.
func writeColumn(ctx context.Context, cw file.ColumnChunkWriter, pieces []arrow.Array, levels *[]int16) error {
	nullable := cw.Descr().MaxDefinitionLevel() > 0
	for _, a := range pieces {
		var def []int16
		if nullable {
			def = definitionLevels(a, levels)
		}
		if err := pqarrow.WriteArrowToColumn(ctx, cw, a, def, nil, nullable); err != nil {
			return err
		}
	}
	return nil
}

// flushPage encodes a buffered column's last page on the worker that wrote
// it: the row group's Close would flush it too, but on one goroutine for
// all columns, leaving only the dictionary page, if any, to Close. The page
// statistics tell whether there are values since the last page; a page of
// none must not be flushed (arrow-go panics).
func flushPage(cw file.ColumnChunkWriter) error {
	p, ok := cw.(pageFlusher)
	if st := cw.PageStatistics(); ok && st != nil && st.NumValues()+st.NullCount() > 0 {
		return p.FlushCurrentPage()
	}
	return nil
}

// pageFlusher is what arrow-go's column writers offer beyond
// file.ColumnChunkWriter to end the current page.
type pageFlusher interface{ FlushCurrentPage() error }

// definitionLevels are a nullable flat column's levels: 1 for a value, 0
// for a null. They are built in *buf, reused from column to column.
func definitionLevels(a arrow.Array, buf *[]int16) []int16 {
	n := a.Len()
	if cap(*buf) < n {
		*buf = make([]int16, n)
	}
	def := (*buf)[:n]
	if a.NullN() == 0 {
		for j := range def {
			def[j] = 1
		}
		return def
	}
	for j := range def {
		def[j] = 0
		if a.IsValid(j) {
			def[j] = 1
		}
	}
	return def
}

// rowRange returns column i of rows [lo, hi) of recs, as arrays the caller
// releases.
func rowRange(recs []arrow.RecordBatch, i int, lo, hi int64) []arrow.Array {
	var out []arrow.Array
	var at int64
	for _, r := range recs {
		n := r.NumRows()
		from, to := max(lo-at, 0), min(hi-at, n)
		at += n
		if from >= to {
			continue
		}
		out = append(out, array.NewSlice(r.Column(i), from, to))
	}
	return out
}

func (c *columnFile) close() error { return c.pw.Close() }
