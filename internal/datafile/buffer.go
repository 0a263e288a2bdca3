package datafile

import (
	"maps"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// partition is the state of one partition value set: the rows waiting to
// be written and the data file they go to, once one is open.
type partition struct {
	values  map[string]string // partitionValues of its add actions
	dir     string            // key prefix of its files, "" or ending in "/"
	chunks  []chunk
	rows    int64
	bytes   int64
	file    *dataFile
	done    int64 // Parquet bytes of its finished files
	written int64 // rows written to its files
}

// chunk is a buffered batch of the file schema and its accounted size.
type chunk struct {
	rec   arrow.RecordBatch
	bytes int64
}

// partition finds or creates the partition of a value set (nil for an
// unpartitioned table).
func (w *Writer) partition(values []string, ok []bool) *partition {
	key := partitionKey(values, ok)
	if p := w.partitions[key]; p != nil {
		return p
	}
	p := &partition{values: map[string]string{}}
	for k, pc := range w.parts {
		p.values[pc.key] = values[k] // "" is null in the log
		if w.ColumnMapping == schema.MappingNone {
			p.dir += partitionSegment(pc.field.Name, values[k], ok[k]) + "/"
		}
	}
	if len(w.parts) > 0 && w.ColumnMapping != schema.MappingNone {
		p.dir = randomPrefix() + "/"
	}
	w.partitions[key] = p
	w.order = append(w.order, p)
	return p
}

// buffer keeps a file batch for p, writing p's rows as a row group when
// they make a full one: DefaultMaxRowGroupRows rows or half the buffer
// bound, leaving the other half for the pages the encoder holds.
func (w *Writer) buffer(p *partition, rec arrow.RecordBatch) error {
	return w.bufferSized(p, rec, recordBytes(rec))
}

// bufferRuns buffers the rows of rec that sel keeps (all of rec when sel
// is nil), kept of them in all: as slices, each run accounted its share of
// rec's bytes, when most rows stay; else as one compact copy. A slice
// keeps its parent's buffers alive, so a sparse selection (the change
// data feed's images, the updated rows of a deletion-vector rewrite)
// held as slices would be accounted, and hold, whole batches for a few
// rows: the buffer bound would then cut row groups of a few hundred rows.
func (w *Writer) bufferRuns(p *partition, rec arrow.RecordBatch, sel []bool, kept int64) error {
	if sel == nil {
		return w.buffer(p, rec)
	}
	if kept*2 <= int64(len(sel)) {
		rows := make([]int32, 0, kept)
		for i, k := range sel {
			if k {
				rows = append(rows, int32(i))
			}
		}
		chunks, err := w.split(rec, []group{{p: p, rows: rows}}, nil)
		if err != nil || chunks[0] == nil {
			return err
		}
		defer chunks[0].Release()
		return w.buffer(p, chunks[0])
	}
	total := recordBytes(rec)
	for lo := 0; lo < len(sel); {
		if !sel[lo] {
			lo++
			continue
		}
		hi := lo + 1
		for hi < len(sel) && sel[hi] {
			hi++
		}
		run := rec.NewSlice(int64(lo), int64(hi))
		err := w.bufferSized(p, run, total*int64(hi-lo)/kept)
		run.Release()
		if err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// bufferSized is buffer with the bytes rec is accounted for given.
func (w *Writer) bufferSized(p *partition, rec arrow.RecordBatch, b int64) error {
	rec.Retain()
	p.chunks = append(p.chunks, chunk{rec: rec, bytes: b})
	p.rows += rec.NumRows()
	p.bytes += b
	w.buffered += b
	if p.rows >= DefaultMaxRowGroupRows || p.bytes >= w.MaxUnwrittenBytes/2 {
		return w.flush(p)
	}
	return nil
}

// relieve writes the largest buffers until the total is within the bound.
func (w *Writer) relieve() error {
	for w.buffered > w.MaxUnwrittenBytes {
		var big *partition
		for _, p := range w.order {
			if p.rows > 0 && (big == nil || p.bytes > big.bytes) {
				big = p
			}
		}
		if big == nil {
			return nil
		}
		if err := w.flush(big); err != nil {
			return err
		}
	}
	return nil
}

// flush writes all of p's buffered rows, rolling files at the target size,
// or at the aim an expected size gives (see aim): the rows that fit in the
// current file are estimated from the Parquet bytes per Arrow byte learned
// so far.
func (w *Writer) flush(p *partition) error {
	// Parquet bytes per Arrow byte of the rows this flush wrote last. Rows
	// of one kind are accounted alike, rows of another (slices of large
	// decoded batches, compact copies) maybe not: a file cut to balance
	// takes its measure from the rows it cuts.
	var ratio float64
	for p.rows > 0 {
		if err := w.ctx.Err(); err != nil {
			return errs.Wrap(errs.Canceled, "", err, "write")
		}
		if p.file == nil {
			if err := w.open(p); err != nil {
				return err
			}
		}
		f := p.file
		aim, balanced := w.aim(p)
		room := aim - f.length()
		if f.stats.rows > 0 && room < w.target/slack(balanced) {
			if err := w.finish(p); err != nil {
				return err
			}
			continue
		}
		n := p.rows
		est := w.estimate(p.bytes)
		if balanced && ratio > 0 {
			est = int64(float64(p.bytes) * ratio)
		}
		if est > room {
			n = max(1, int64(float64(p.rows)*float64(max(room, 0))/float64(est)))
			if balanced && ratio == 0 {
				n = max(1, n/2) // measure these rows before cutting the rest
			}
		}
		recs, bytes := p.take(n, w)
		before := f.length()
		w.uses++
		f.lastUse = w.uses
		w.rowsFlushed += n
		p.written += n
		if w.background(balanced) {
			if err := w.writeBehind(f, recs, bytes, before); err != nil {
				return err
			}
			continue // a file over its aim is finished by the next flush or Close
		}
		if err := f.writeRows(recs, w.fileSchema); err != nil {
			return err
		}
		w.arrowFlushed += bytes
		w.parquetFlushed += f.length() - before
		if bytes > 0 {
			ratio = float64(f.length()-before) / float64(bytes)
		}
		if !balanced && f.length() >= aim {
			if err := w.finish(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// background reports whether a flush hands its rows to writeBehind: when
// the columns of a row group are encoded in parallel (the one-writer case),
// and the file's cut does not wait on the measure of these rows (balanced).
func (w *Writer) background(balanced bool) bool {
	return w.flat && w.EncodeWorkers > 1 && !balanced
}

// writeBehind writes rows to f in the background, so that the caller buffers
// the next row group while this one is encoded: the encoders stop taking
// the cores only between row groups, instead of leaving one idle while the
// input is read. One row group at a time is in flight per Writer, and its
// bytes stay counted in w.buffered until written, so MaxUnwrittenBytes
// still bounds the rows held (the flush threshold is half of it).
func (w *Writer) writeBehind(f *dataFile, recs []arrow.RecordBatch, bytes, before int64) error {
	if w.inflight != nil {
		if err := w.inflight.wait(); err != nil {
			releaseAll(recs)
			return err
		}
	}
	w.buffered += bytes
	w.inflight = f
	return f.writeRowsAsync(recs, w.fileSchema, func() {
		w.buffered -= bytes
		w.arrowFlushed += bytes
		w.parquetFlushed += f.length() - before
	})
}

// estimate guesses the Parquet size of Arrow data: as the bytes so far,
// or as large until something was written.
func (w *Writer) estimate(arrowBytes int64) int64 {
	if w.arrowFlushed == 0 {
		return arrowBytes
	}
	return int64(float64(arrowBytes) * float64(w.parquetFlushed) / float64(w.arrowFlushed))
}

// take removes the first n buffered rows of p and returns them with their
// accounted size. A chunk cut in two is shared by both parts and accounted
// in proportion.
func (p *partition) take(n int64, w *Writer) ([]arrow.RecordBatch, int64) {
	var out []arrow.RecordBatch
	var bytes int64
	for n > 0 {
		c := &p.chunks[0]
		rows := c.rec.NumRows()
		if rows <= n {
			out = append(out, c.rec) // ownership moves to out
			bytes += c.bytes
			n -= rows
			p.chunks[0] = chunk{}
			p.chunks = p.chunks[1:]
			continue
		}
		head := c.rec.NewSlice(0, n)
		tail := c.rec.NewSlice(n, rows)
		hb := c.bytes * n / rows
		c.rec.Release()
		*c = chunk{rec: tail, bytes: c.bytes - hb}
		out = append(out, head)
		bytes += hb
		n = 0
	}
	if len(p.chunks) == 0 {
		p.chunks = nil
	}
	for _, r := range out {
		p.rows -= r.NumRows()
	}
	p.bytes -= bytes
	w.buffered -= bytes
	return out, bytes
}

// open starts a file for p, first finishing the least recently written file
// when too many are open.
func (w *Writer) open(p *partition) error {
	if w.openFiles >= w.MaxOpenFiles {
		var lru *partition
		for _, q := range w.order {
			if q.file != nil && q != p && (lru == nil || q.file.lastUse < lru.file.lastUse) {
				lru = q
			}
		}
		if lru != nil {
			if err := w.finish(lru); err != nil {
				return err
			}
		}
	}
	f, err := w.createFile(p)
	if err != nil {
		return err
	}
	p.file = f
	w.openFiles++
	return nil
}

// finish completes p's open file and records its add action.
func (w *Writer) finish(p *partition) error {
	f := p.file
	p.file = nil
	w.openFiles--
	if err := f.finish(); err != nil {
		return err
	}
	size := f.size.Load()
	p.done += size
	w.stored = append(w.stored, f.key)
	w.syncs.start(f.key)
	a := &protocol.Add{
		Path:             protocol.EncodePath(f.key),
		PartitionValues:  maps.Clone(p.values),
		Size:             size,
		ModificationTime: w.Now().UnixMilli(),
		DataChange:       w.DataChange,
	}
	if !w.ChangeData {
		a.Stats = f.stats.JSON()
	}
	w.adds = append(w.adds, a)
	return nil
}

// drop releases p's buffered rows.
func (p *partition) drop(w *Writer) {
	for _, c := range p.chunks {
		c.rec.Release()
	}
	w.buffered -= p.bytes
	p.chunks, p.rows, p.bytes = nil, 0, 0
}

// recordBytes is the memory a batch holds: every buffer at its allocated
// capacity, whole (a slice keeps its parent's buffers alive), plus the Go
// objects behind each array, which dominate small batches.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

// arrayOverhead estimates the Go objects of one array (its Data, buffer
// headers and typed wrapper).
const arrayOverhead = 400

func dataBytes(d arrow.ArrayData) int64 {
	n := int64(arrayOverhead)
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(max(b.Cap(), b.Len()))
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(d.Dictionary())
	}
	return n
}
