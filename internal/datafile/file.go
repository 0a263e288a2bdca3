package datafile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
)

// dataFile is one Parquet file being written: the Parquet writer streams
// into a storage.ObjectWriter, so nothing but the row group being encoded
// is held.
type dataFile struct {
	key     string
	obj     storage.ObjectWriter
	bw      *bufio.Writer // gathers the encoder's small writes (page headers)
	size    atomic.Int64  // bytes handed to the store so far
	open    int64         // Arrow bytes of the column the encoder holds (see writeRows)
	cf      *columnFile   // the encoder of a flat schema, else fw
	fw      *pqarrow.FileWriter
	stats   *fileStats
	lastUse uint64

	// A row group being written in the background (writeRowsAsync): busy
	// is closed once it is written, with its failure in bgErr; settle is
	// the Writer's accounting of it, run by wait on the Writer's goroutine.
	busy   chan struct{}
	bgErr  error
	settle func()
}

// gatherSize is what a data file gathers before handing bytes to the
// store; pages larger than it go through whole.
const gatherSize = 64 << 10

// createFile starts a data file of p, choosing a name no object has, with
// properties suited to p's buffered rows.
func (w *Writer) createFile(p *partition) (*dataFile, error) {
	dir, name := p.dir, "part-%05d-%s-c000%s.parquet"
	if w.ChangeData {
		dir, name = ChangeDataDir+dir, "cdc-%05d-%s.c000%s.parquet"
	}
	var key string
	for attempt := 0; ; attempt++ {
		w.counter++
		key = dir + fmt.Sprintf(name, w.counter-1, newUUID(), w.codec.ext)
		_, err := w.st.Head(w.ctx, key)
		if errors.Is(err, storage.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, errs.Wrap(errs.Internal, key, err, "checking that a new data file name is free")
		}
		if attempt == 3 {
			return nil, errs.New(errs.Internal, key, "data file names keep colliding with existing objects")
		}
	}
	obj, err := storage.Create(w.ctx, w.st, key)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, key, err, "creating data file")
	}
	f := &dataFile{key: key, obj: obj, bw: bufio.NewWriterSize(obj, gatherSize), stats: newFileStats(w.plan)}
	sink, props := &countingWriter{w: f.bw, n: &f.size}, w.fileProps(p.chunks)
	if w.flat {
		f.cf, err = newColumnFile(w.fileSchema, sink, props, w.EncodeWorkers)
	} else {
		f.fw, err = pqarrow.NewFileWriter(w.fileSchema, sink, props, pqarrow.DefaultWriterProps())
	}
	if err != nil {
		f.abort()
		return nil, errs.Wrap(errs.Internal, key, err, "starting a Parquet file")
	}
	return f, nil
}

// writeRows writes batches of the file schema as one row group (more past
// the row cap) and accumulates their statistics. It takes ownership of
// recs. The batches reach the encoder as chunks of each column, read in
// place rather than copied into one array first. A columnFile writes the
// row group out whole; pqarrow's writer keeps the row group's last column
// until the next row group or the footer: its Arrow size is recorded in
// open, so that length can count it.
func (f *dataFile) writeRows(recs []arrow.RecordBatch, schema *arrow.Schema) error {
	defer releaseAll(recs)
	var rows, last int64
	lastCol := schema.NumFields() - 1
	for _, r := range recs {
		rows += r.NumRows()
		last += viewBytes(r.Column(lastCol))
	}
	if f.cf != nil {
		// Statistics are gathered per column by the column's encoder.
		f.stats.addRows(rows)
		if err := f.cf.write(recs, rows, f.stats.addColumn); err != nil {
			return f.writeErr(err)
		}
		return nil
	}
	for _, r := range recs {
		f.stats.add(r)
	}
	tbl := array.NewTableFromRecords(schema, recs)
	defer tbl.Release()
	if err := f.fw.WriteTable(tbl, max(rows, 1)); err != nil {
		return f.writeErr(err)
	}
	f.open = last
	return nil
}

// writeRowsAsync is writeRows on a goroutine of its own, so that the
// Writer's caller goes on producing the next rows while these are encoded.
// It first waits for the file's previous row group. settle runs once the
// rows are written, on the goroutine that calls wait.
func (f *dataFile) writeRowsAsync(recs []arrow.RecordBatch, schema *arrow.Schema, settle func()) error {
	if err := f.wait(); err != nil {
		releaseAll(recs)
		return err
	}
	done := make(chan struct{})
	f.busy, f.settle = done, settle
	go func() {
		defer close(done)
		defer guard(&f.bgErr)
		f.bgErr = f.writeRows(recs, schema)
	}()
	return nil
}

// wait blocks until the row group being written in the background, if
// any, is written, settles it and returns the failure of any background
// write.
func (f *dataFile) wait() error {
	if f.busy == nil {
		return f.bgErr
	}
	<-f.busy
	f.busy = nil
	if settle := f.settle; settle != nil && f.bgErr == nil {
		f.settle = nil
		settle()
	}
	return f.bgErr
}

// length is the file's size for rolling it, once any row group being
// written is written: the bytes stored so far and, as Arrow bytes
// (compression only makes it less), the column the encoder still holds.
func (f *dataFile) length() int64 {
	_ = f.wait() // a failure is returned by the next write or finish
	return f.size.Load() + f.open
}

// viewBytes is the data an array's rows take, counting only the part of
// its buffers a slice sees.
func viewBytes(a arrow.Array) int64 {
	n := int64(a.Len())
	switch a := a.(type) {
	case interface{ ValueBytes() []byte }:
		width := int64(4)
		if _, large := a.(interface{ ValueOffsets() []int64 }); large {
			width = 8
		}
		return int64(len(a.ValueBytes())) + width*(n+1)
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok {
		return n * int64(max(fw.BitWidth(), 8)) / 8
	}
	return dataBytes(a.Data())
}

func releaseAll[T interface{ Release() }](xs []T) {
	for _, x := range xs {
		x.Release()
	}
}

// writeErr names the file of a failed write.
func (f *dataFile) writeErr(err error) error {
	return errs.Wrap(errs.Internal, f.key, err, "writing data file")
}

// closeEncoder writes the footer, or only releases the encoder's buffers
// once the object's writes fail.
func (f *dataFile) closeEncoder() error {
	switch {
	case f.cf != nil:
		return f.cf.close()
	case f.fw != nil:
		return f.fw.Close()
	}
	return nil
}

// finish writes the footer and stores the object.
func (f *dataFile) finish() error {
	if err := f.wait(); err != nil {
		f.abort()
		return err
	}
	err := f.closeEncoder()
	if err == nil {
		err = f.bw.Flush()
	}
	if err != nil {
		f.obj.Abort()
		return f.writeErr(err)
	}
	if err := f.obj.Commit(); err != nil {
		return errs.Wrap(errs.Internal, f.key, err, "storing data file")
	}
	return nil
}

// abort stops the file: no object appears.
func (f *dataFile) abort() {
	_ = f.wait()
	f.obj.Abort()
	_ = f.closeEncoder() // its writes now fail; this only releases its buffers
}

// countingWriter counts the bytes the Parquet writer emits: the size of the
// file so far, which decides when to roll it.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64 // read by Progress while a row group is written
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}
