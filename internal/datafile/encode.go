package datafile

import (
	"cmp"
	"context"
	"io"
	"runtime"
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
// leaf per Arrow field), encoding and compressing the column chunks of a
// row group in parallel: pqarrow's FileWriter encodes one column after
// another on the caller's goroutine, which left all but one core idle.
// Each row group is buffered whole by arrow-go until it is complete, then
// written out, so the file holds no encoded data between row groups. The
// bytes are those pqarrow writes for the same rows.
type columnFile struct {
	pw *file.Writer
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

func newColumnFile(s *arrow.Schema, sink io.Writer, props *parquet.WriterProperties) (*columnFile, error) {
	ps, err := pqarrow.ToParquet(s, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	pw, err := file.NewParquetWriterWithError(sink, ps.Root(), file.WithWriterProps(props),
		file.WithWriteMetadata(metadata.KeyValueMetadata{}))
	if err != nil {
		return nil, err
	}
	return &columnFile{pw: pw}, nil
}

// write writes rows of recs as row groups of at most the row cap.
func (c *columnFile) write(recs []arrow.RecordBatch, rows int64) error {
	limit := c.pw.Properties().MaxRowGroupLength()
	for lo := int64(0); lo < rows; lo += limit {
		if err := c.writeRowGroup(recs, lo, min(lo+limit, rows)); err != nil {
			return err
		}
	}
	return nil
}

// writeRowGroup writes rows [lo, hi) of recs as one row group. Workers
// take columns largest first, so that the last to finish is a small one.
func (c *columnFile) writeRowGroup(recs []arrow.RecordBatch, lo, hi int64) error {
	rgw, err := c.pw.AppendBufferedRowGroupChecked()
	if err != nil {
		return err
	}
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
	order := make([]int, ncols)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })

	if err := forEach(ncols, func(k int) error {
		i := order[k]
		var levels []int16
		return writeColumn(pqarrow.NewArrowWriteContext(context.Background(), nil), rgw, i, cols[i], &levels)
	}); err != nil {
		return err
	}
	return rgw.Close()
}

// forEach calls fn(0) to fn(n-1) on one worker per core and returns the
// error of the lowest k that failed; a panic in fn is an error of its k.
func forEach(n int, fn func(k int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
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

// writeColumn writes the pieces of column i and encodes its last page;
// only the dictionary page, if any, is left for the row group's Close,
// which runs on one goroutine.
func writeColumn(ctx context.Context, rgw file.BufferedRowGroupWriter, i int, pieces []arrow.Array, levels *[]int16) error {
	cw, err := rgw.Column(i)
	if err != nil {
		return err
	}
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
	// Close would flush the page of the last values: the same page, but
	// encoded and compressed on one goroutine for all columns. The page
	// statistics tell whether there are values since the last page; a
	// page of none must not be flushed (arrow-go panics).
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
