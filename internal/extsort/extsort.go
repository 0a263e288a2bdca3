// Package extsort sorts a stream of Arrow record batches by a byte key per
// row within a bounded number of bytes, spilling sorted runs to local
// temporary files and merging them. OPTIMIZE ZORDER BY sorts a partition's
// rows by their z-order keys with it, whatever the partition's size.
//
// # Use
//
// New, then Add each batch with its rows' keys, then Emit, which calls a
// function with the rows in ascending key order (rows of equal keys in the
// order they were added), then Close, which removes every temporary file
// whether Emit ran, failed or was canceled. Close must always be called.
//
// # Memory
//
// Options.MaxBytes bounds what the sorter holds by its own accounting:
// the rows added and not yet spilled with their keys and sort entries,
// the chunks of runs read back while merging and the batches being built.
// Added rows fill a run of at most half of MaxBytes less room for the
// copies a spill makes (three chunks, a chunk being MaxBytes/(2*FanIn+4));
// then a goroutine of its own sorts the run and writes it to a run file in
// chunks while Add fills the next run. Add waits when the next run is full
// before the spill is done, so at most two runs are held. Merging reads
// one chunk of each of at most FanIn runs at once (less than half of
// MaxBytes), keeps the chunks its output batch still refers to up to an
// eighth of MaxBytes and builds output batches of up to an eighth; with
// more than FanIn runs, it first merges the fewest consecutive runs into
// one that leave FanIn. The batches passed to Add are the caller's until
// Add returns and count against MaxBytes while held; a batch larger than
// a run's room is spilled alone, so a caller keeps its batches well below
// MaxBytes.
// Options.Budget, when set, is charged MaxBytes from New to Close so that
// the process-wide limits see the sort.
//
// Runs are Arrow IPC streams of the batch's columns plus the key, written
// to local disk, never the table's store: into a directory of the sorter's
// own in Options.TempDir (default os.TempDir()), made at the first spill
// and locked while the sorter is open. New removes the directories of
// sorts whose process died (killed, say), whose locks ended with it.
package extsort

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/limits"
)

// Defaults of the options.
const (
	DefaultMaxBytes = 64 << 20
	// DefaultFanIn merges the runs of a partition 32 times the budget in
	// one pass, with chunks of a 132nd of the budget (512 KiB of 64 MiB).
	DefaultFanIn = 64
	// rowOverhead is what the sorter holds per buffered row besides the
	// batch's and the key's bytes: the key's slice header and a sort entry.
	rowOverhead = 24 + 16
)

// Options configure a Sorter.
type Options struct {
	// MaxBytes bounds the bytes the sorter holds (default 64 MiB).
	MaxBytes int64
	// TempDir is where runs spill (default os.TempDir()).
	TempDir string
	// FanIn is the most runs merged at once (default 64, at least 2).
	FanIn int
	// Budget, when set, is charged MaxBytes while the sorter is open.
	Budget *limits.Budget
	// Allocator allocates the Arrow buffers of runs read back and of
	// output batches (default the Go allocator).
	Allocator memory.Allocator
}

// Stats are what a sort did.
type Stats struct {
	Rows         int64 // rows added
	Runs         int   // run files written, merge passes included
	SpilledBytes int64 // bytes written to run files
	PeakBytes    int64 // most bytes held at once by the sorter's accounting
}

// ref is one row: its batch (or run) and its row in it.
type ref struct{ b, r int32 }

// Sorter sorts the rows added to it. It is not safe for concurrent use:
// its own spilling goroutine is the only one that runs beside the caller.
type Sorter struct {
	opt        Options
	ctx        context.Context
	in         *arrow.Schema // what Add takes and Emit gives
	spill      *arrow.Schema // in, plus the key as the last column
	res        *limits.Reservation
	chunkBytes int64
	rowBytes   int64 // bytes per row (batch and key) measured so far, for chunk rows

	cur     runRows    // the run being filled
	spilled chan error // the background spill's result; nil when none runs
	done    bool

	mu    sync.Mutex // guards what the spilling goroutine shares: below
	held  int64      // bytes held by the accounting
	dir   *spillDir  // nil until the first spill
	files []string
	stats Stats
}

// runRows are rows added and not yet spilled.
type runRows struct {
	recs  []arrow.RecordBatch
	keys  [][][]byte
	rows  int
	bytes int64 // their accounted bytes
}

// New returns a Sorter of batches of schema sc.
func New(ctx context.Context, sc *arrow.Schema, opt Options) (*Sorter, error) {
	if opt.MaxBytes < 0 || opt.FanIn < 0 {
		return nil, errs.New(errs.InvalidArgument, "", "sort: MaxBytes and FanIn must not be negative")
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.FanIn == 0 {
		opt.FanIn = DefaultFanIn
	}
	opt.FanIn = max(opt.FanIn, 2)
	if opt.TempDir == "" {
		opt.TempDir = os.TempDir()
	}
	sweepSpillDirs(opt.TempDir)
	if opt.Allocator == nil {
		opt.Allocator = memory.DefaultAllocator
	}
	s := &Sorter{opt: opt, ctx: ctx, in: sc, chunkBytes: max(opt.MaxBytes/int64(2*opt.FanIn+4), 1)}
	fields := append(slices.Clone(sc.Fields()), arrow.Field{Name: "zorder_key", Type: arrow.BinaryTypes.Binary})
	s.spill = arrow.NewSchema(fields, nil)
	if opt.Budget != nil {
		r, err := opt.Budget.AcquireBytes(ctx, opt.MaxBytes)
		if err != nil {
			return nil, errs.Wrap(errs.Canceled, "", err, "sort: waiting for memory")
		}
		s.res = r
	}
	return s, nil
}

// recordBytes is what a batch's buffers take (arrow's own measure).
func recordBytes(rec arrow.RecordBatch) int64 {
	var n uint64
	for _, c := range rec.Columns() {
		n += c.Data().SizeInBytes()
	}
	return int64(n)
}

// Stats reports what the sort did so far.
func (s *Sorter) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Sorter) use(n int64) {
	s.mu.Lock()
	s.held += n
	s.stats.PeakBytes = max(s.stats.PeakBytes, s.held)
	s.mu.Unlock()
}

func (s *Sorter) free(n int64) {
	s.mu.Lock()
	s.held -= n
	s.mu.Unlock()
}

// heldBytes is what the accounting holds.
func (s *Sorter) heldBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// room is what one run's added rows may take: half of MaxBytes less the
// transient copies of one chunk while a run is written (see gather), so
// that a run filling and a run spilling fit together.
func (s *Sorter) room() int64 { return max((s.opt.MaxBytes-3*s.chunkBytes)/2, 1) }

// Add adds the rows of rec with their keys (one per row). The sorter
// retains rec and keeps keys; the caller must not modify them.
func (s *Sorter) Add(rec arrow.RecordBatch, keys [][]byte) error {
	if s.done {
		return errs.New(errs.InvalidArgument, "", "sort: Add after Emit or Close")
	}
	if len(keys) != int(rec.NumRows()) {
		return errs.New(errs.InvalidArgument, "", "sort: %d keys for %d rows", len(keys), rec.NumRows())
	}
	if !rec.Schema().Equal(s.in) {
		return errs.New(errs.InvalidArgument, "", "sort: batch schema %s is not the sort's %s", rec.Schema(), s.in)
	}
	if err := s.ctx.Err(); err != nil {
		return errs.Wrap(errs.Canceled, "", err, "sort")
	}
	if len(keys) == 0 {
		return nil
	}
	cost := recordBytes(rec) + int64(len(keys))*rowOverhead
	for _, k := range keys {
		cost += int64(len(k))
	}
	if s.cur.rows > 0 && s.cur.bytes+cost > s.room() {
		if err := s.startSpill(); err != nil {
			return err
		}
	}
	rec.Retain()
	s.cur.recs = append(s.cur.recs, rec)
	s.cur.keys = append(s.cur.keys, keys)
	s.cur.rows += len(keys)
	s.cur.bytes += cost
	s.use(cost)
	s.mu.Lock()
	s.stats.Rows += int64(len(keys))
	s.mu.Unlock()
	s.rowBytes = max(s.rowBytes, (cost+int64(len(keys))-1)/int64(len(keys)))
	if s.cur.bytes > s.room() {
		return s.startSpill()
	}
	return nil
}

// startSpill hands the run being filled to a goroutine that sorts and
// spills it, once the previous spill is done.
func (s *Sorter) startSpill() error {
	if err := s.waitSpill(); err != nil {
		return err
	}
	r, step := s.cur, s.chunkRows()
	s.cur = runRows{}
	s.spilled = make(chan error, 1)
	go func() { s.spilled <- s.spillRun(r, step) }()
	return nil
}

// waitSpill waits for the background spill, if any, and returns its error.
func (s *Sorter) waitSpill() error {
	if s.spilled == nil {
		return nil
	}
	err := <-s.spilled
	s.spilled = nil
	return err
}

// chunkRows is how many rows a chunk of a run holds.
func (s *Sorter) chunkRows() int {
	return int(max(1, min(s.chunkBytes/max(s.rowBytes, 1), 1<<20)))
}

// sortRef is a buffered row with the first 8 bytes of its key, which
// decide most comparisons without touching the key.
type sortRef struct {
	p uint64
	ref
}

// prefix is the 8 bytes of k from at, big endian, zero padded: ordering
// keys that share their first at bytes by it, and then by the rest, is
// ordering them by the key.
func prefix(k []byte, at int) uint64 {
	k = k[min(at, len(k)):]
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// commonPrefix is how many leading bytes all keys share: z-order keys
// start with their columns' null bytes and the high bytes of values of a
// narrow range, which say nothing about the order.
func commonPrefix(keys [][][]byte) int {
	var first []byte
	n := -1
	for _, ks := range keys {
		for _, k := range ks {
			if n < 0 {
				first, n = k, len(k)
				continue
			}
			m := min(n, len(k))
			i := 0
			for i < m && k[i] == first[i] {
				i++
			}
			n = i
			if n == 0 {
				return 0
			}
		}
	}
	return max(n, 0)
}

// sortKeys returns the rows of keys (per batch) in key order, rows of
// equal keys in the order added: (batch, row) breaks ties, so an unstable
// sort is stable, and much faster than slices.SortStableFunc's
// insertion-and-rotation merges. The bytes every key shares are skipped.
func sortKeys(keys [][][]byte, rows int) []sortRef {
	at := commonPrefix(keys)
	refs := make([]sortRef, 0, rows)
	for b, ks := range keys {
		for r, k := range ks {
			refs = append(refs, sortRef{prefix(k, at), ref{int32(b), int32(r)}})
		}
	}
	slices.SortFunc(refs, func(x, y sortRef) int {
		if x.p != y.p {
			return cmp.Compare(x.p, y.p)
		}
		kx, ky := keys[x.b][x.r], keys[y.b][y.r]
		if c := bytes.Compare(kx[min(at, len(kx)):], ky[min(at, len(ky)):]); c != 0 {
			return c
		}
		if x.b != y.b {
			return cmp.Compare(x.b, y.b)
		}
		return cmp.Compare(x.r, y.r)
	})
	return refs
}

// refsOf is the rows of sorted, without their prefixes.
func refsOf(sorted []sortRef) []ref {
	out := make([]ref, len(sorted))
	for i, r := range sorted {
		out[i] = r.ref
	}
	return out
}

// release drops a run's rows.
func (s *Sorter) release(r *runRows) {
	for _, rec := range r.recs {
		rec.Release()
	}
	s.free(r.bytes)
	*r = runRows{}
}

// spillRun sorts a run's rows and writes them to a new run file in chunks
// of step rows; it releases the rows whatever happens.
func (s *Sorter) spillRun(r runRows, step int) error {
	defer s.release(&r)
	sorted := sortKeys(r.keys, r.rows)
	w, err := s.create()
	if err != nil {
		return err
	}
	keys := make([][]byte, 0, step)
	for lo := 0; lo < len(sorted); lo += step {
		part := refsOf(sorted[lo:min(lo+step, len(sorted))])
		rec, err := s.gather(r.recs, part)
		if err != nil {
			w.abort()
			return err
		}
		keys = keys[:0]
		for _, ref := range part {
			keys = append(keys, r.keys[ref.b][ref.r])
		}
		ka := binaryOf(s.opt.Allocator, keys)
		cols := append(slices.Clone(rec.Columns()), ka)
		out := array.NewRecordBatch(s.spill, cols, int64(len(part)))
		ka.Release()
		err = w.write(out)
		out.Release()
		s.drop(rec)
		if err != nil {
			w.abort()
			return err
		}
	}
	return w.close()
}

// batch is a batch the sorter built and the bytes it counted for it.
type batch struct {
	arrow.RecordBatch
	n int64
}

// drop releases a batch the sorter built.
func (s *Sorter) drop(b batch) {
	s.free(b.n)
	b.Release()
}

// built counts a batch the sorter built.
func (s *Sorter) built(rec arrow.RecordBatch) batch {
	b := batch{rec, recordBytes(rec)}
	s.use(b.n)
	return b
}

// gather copies the rows refs names out of recs, in refs' order, into a
// batch it counts as held (drop releases it). Flat columns are copied in
// one pass (gatherFlat); others take each batch's rows, concatenate
// those pieces and put the rows in order: at most three copies of one
// chunk's column at once, within the room room leaves.
func (s *Sorter) gather(recs []arrow.RecordBatch, refs []ref) (batch, error) {
	first, single, contiguous := refs[0].b, true, true
	for i, r := range refs {
		single = single && r.b == first
		contiguous = contiguous && single && r.r == refs[0].r+int32(i)
	}
	if contiguous {
		// A slice shares recs' buffers: nothing to copy or count.
		rec := recs[first].NewSlice(int64(refs[0].r), int64(refs[0].r)+int64(len(refs)))
		return batch{rec, 0}, nil
	}
	sc := recs[first].Schema()
	cols := make([]arrow.Array, sc.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	srcs := make([]arrow.Array, len(recs))
	for c := range cols {
		for i, rec := range recs {
			srcs[i] = nil
			if rec != nil {
				srcs[i] = rec.Column(c)
			}
		}
		a, ok := gatherFlat(s.opt.Allocator, srcs, refs)
		if !ok {
			var err error
			if a, err = s.gatherTaken(srcs, refs, single); err != nil {
				return batch{}, err
			}
		}
		cols[c] = a
	}
	return s.built(array.NewRecordBatch(sc, cols, int64(len(refs)))), nil
}

// gatherTaken gathers a column of a type gatherFlat does not copy with
// arrow's take and concatenate kernels.
func (s *Sorter) gatherTaken(srcs []arrow.Array, refs []ref, single bool) (arrow.Array, error) {
	ctx := compute.WithAllocator(s.ctx, s.opt.Allocator)
	take := func(col arrow.Array, rows []int32) (arrow.Array, error) {
		ib := array.NewInt32Builder(s.opt.Allocator)
		ib.AppendValues(rows, nil)
		idx := ib.NewArray()
		ib.Release()
		defer idx.Release()
		c, err := compute.TakeArray(ctx, col, idx)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, "", err, "sort: gathering rows")
		}
		return c, nil
	}
	if single {
		rows := make([]int32, len(refs))
		for i, r := range refs {
			rows[i] = r.r
		}
		return take(srcs[refs[0].b], rows)
	}
	// The rows of each batch, and where each row lands in their concatenation.
	rowsOf := map[int32][]int32{}
	var order []int32
	for _, r := range refs {
		if _, ok := rowsOf[r.b]; !ok {
			order = append(order, r.b)
		}
		rowsOf[r.b] = append(rowsOf[r.b], r.r)
	}
	start := map[int32]int32{}
	var n int32
	for _, b := range order {
		start[b] = n
		n += int32(len(rowsOf[b]))
	}
	perm := make([]int32, len(refs))
	for i, r := range refs {
		perm[i] = start[r.b]
		start[r.b]++
	}
	pieces := make([]arrow.Array, 0, len(order))
	defer func() {
		for _, p := range pieces {
			p.Release()
		}
	}()
	for _, b := range order {
		p, err := take(srcs[b], rowsOf[b])
		if err != nil {
			return nil, err
		}
		pieces = append(pieces, p)
	}
	all, err := array.Concatenate(pieces, s.opt.Allocator)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "sort: gathering rows")
	}
	defer all.Release()
	return take(all, perm)
}

// Emit calls fn with the rows added, in key order, in batches of the
// schema given to New; a batch is released when fn returns (fn retains
// what it keeps). Emit may be called once; fn's error is returned as is.
func (s *Sorter) Emit(fn func(arrow.RecordBatch) error) error {
	if s.done {
		return errs.New(errs.InvalidArgument, "", "sort: Emit after Emit or Close")
	}
	s.done = true
	if err := s.waitSpill(); err != nil {
		return err
	}
	if len(s.fileList()) == 0 {
		// Everything fit: sort in memory, write nothing.
		defer s.release(&s.cur)
		sorted := sortKeys(s.cur.keys, s.cur.rows)
		step := s.outRows()
		for lo := 0; lo < len(sorted); lo += step {
			if err := s.ctx.Err(); err != nil {
				return errs.Wrap(errs.Canceled, "", err, "sort")
			}
			rec, err := s.gather(s.cur.recs, refsOf(sorted[lo:min(lo+step, len(sorted))]))
			if err != nil {
				return err
			}
			err = fn(rec.RecordBatch)
			s.drop(rec)
			if err != nil {
				return err
			}
		}
		return nil
	}
	if s.cur.rows > 0 {
		r := s.cur
		s.cur = runRows{}
		if err := s.spillRun(r, s.chunkRows()); err != nil {
			return err
		}
	}
	// With more runs than FanIn, merge the fewest consecutive runs that
	// leave FanIn (FanIn at a time while more are needed, each group after
	// the last one merged, so that no rows are merged twice before every
	// run was once). Consecutive runs keep the rows' order, for stability.
	runs := s.fileList()
	for pos := 0; len(runs) > s.opt.FanIn; pos++ {
		k := min(s.opt.FanIn, len(runs)-s.opt.FanIn+1)
		if pos+k > len(runs) {
			pos = 0
		}
		group := runs[pos : pos+k]
		w, err := s.create()
		if err != nil {
			return err
		}
		if err := s.merge(group, w.writeChunks); err != nil {
			w.abort()
			return err
		}
		if err := w.close(); err != nil {
			return err
		}
		s.remove(group)
		runs = slices.Concat(runs[:pos], []string{w.f.Name()}, runs[pos+k:])
	}
	err := s.merge(runs, func(rec arrow.RecordBatch) error {
		out := array.NewRecordBatch(s.in, rec.Columns()[:s.in.NumFields()], rec.NumRows())
		defer out.Release()
		return fn(out)
	})
	if err != nil {
		return err
	}
	s.remove(runs)
	return nil
}

// outRows is how many rows an output batch holds: an eighth of MaxBytes.
func (s *Sorter) outRows() int {
	return int(max(1, min(s.opt.MaxBytes/8/max(s.rowBytes, 1), 1<<20)))
}

// Close releases what the sorter holds and removes its temporary files,
// after the background spill, if any, stopped. It may be called more
// than once.
func (s *Sorter) Close() error {
	s.done = true
	_ = s.waitSpill() // its error went to Add or Emit, or the caller gave up
	s.release(&s.cur)
	var err error
	for _, f := range s.fileList() {
		if e := os.Remove(f); e != nil && !errors.Is(e, os.ErrNotExist) {
			err = errs.Wrap(errs.Internal, "", e, "sort: removing a temporary file")
		}
	}
	s.mu.Lock()
	s.files = nil
	if s.dir != nil {
		if e := s.dir.remove(); e != nil && err == nil {
			err = errs.Wrap(errs.Internal, s.dir.path, e, "sort: removing the temporary directory")
		}
		s.dir = nil
	}
	s.mu.Unlock()
	s.res.Release()
	return err
}

// fileList is the run files written and not removed.
func (s *Sorter) fileList() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.files)
}

// remove deletes run files that were merged.
func (s *Sorter) remove(files []string) {
	for _, f := range files {
		_ = os.Remove(f)
	}
	s.mu.Lock()
	s.files = slices.DeleteFunc(s.files, func(f string) bool { return slices.Contains(files, f) })
	s.mu.Unlock()
}

// runWriter writes one run file.
type runWriter struct {
	s  *Sorter
	f  *os.File
	bw *bufio.Writer
	w  *ipc.Writer
}

// create starts a run file; it is in s.files from here on, so Close
// removes it whatever happens.
func (s *Sorter) create() (*runWriter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.dir == nil {
		s.dir, err = newSpillDir(s.opt.TempDir)
	}
	var f *os.File
	if err == nil {
		f, err = os.CreateTemp(s.dir.path, "run-*.arrow")
	}
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "sort: creating a temporary file in %s (set the sort's temporary directory to a writable local one)", s.opt.TempDir)
	}
	s.files = append(s.files, f.Name())
	s.stats.Runs++
	bw := bufio.NewWriterSize(f, 1<<16)
	return &runWriter{s: s, f: f, bw: bw, w: ipc.NewWriter(bw, ipc.WithSchema(s.spill), ipc.WithAllocator(s.opt.Allocator))}, nil
}

func (w *runWriter) write(rec arrow.RecordBatch) error {
	if err := w.s.ctx.Err(); err != nil {
		return errs.Wrap(errs.Canceled, "", err, "sort")
	}
	if err := w.w.Write(rec); err != nil {
		return errs.Wrap(errs.Internal, "", err, "sort: writing a temporary file")
	}
	return nil
}

// writeChunks writes rec in chunks of the sorter's chunk rows, the
// pieces a merge reads back one at a time.
func (w *runWriter) writeChunks(rec arrow.RecordBatch) error {
	step := int64(w.s.chunkRows())
	for lo := int64(0); lo < rec.NumRows(); lo += step {
		part := rec.NewSlice(lo, min(lo+step, rec.NumRows()))
		err := w.write(part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *runWriter) close() error {
	err := w.w.Close()
	if err == nil {
		err = w.bw.Flush()
	}
	if st, e := w.f.Stat(); e == nil {
		w.s.mu.Lock()
		w.s.stats.SpilledBytes += st.Size()
		w.s.mu.Unlock()
	}
	if e := w.f.Close(); err == nil {
		err = e
	}
	if err != nil {
		return errs.Wrap(errs.Internal, "", err, "sort: writing a temporary file")
	}
	return nil
}

// abort closes the file; Close removes it.
func (w *runWriter) abort() {
	_ = w.w.Close()
	_ = w.f.Close()
}

// runReader reads one run back chunk by chunk.
type runReader struct {
	f    *os.File
	r    *ipc.Reader
	cur  arrow.RecordBatch // the current chunk, owned by the merge's sources; nil when the run is done
	src  int32             // cur's index in the merge's sources
	keys *array.Binary
	pos  int
	key  []byte // keys.Value(pos), which the heap compares
}

func (s *Sorter) open(name string) (*runReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "sort: reading a temporary file")
	}
	r, err := ipc.NewReader(bufio.NewReaderSize(f, 1<<16), ipc.WithAllocator(s.opt.Allocator), ipc.WithSchema(s.spill))
	if err != nil {
		_ = f.Close()
		return nil, errs.Wrap(errs.Internal, "", err, "sort: reading a temporary file")
	}
	return &runReader{f: f, r: r}, nil
}

// next reads the run's next chunk, retained and counted; nil at the end.
func (s *Sorter) next(rr *runReader) (arrow.RecordBatch, error) {
	for rr.r.Next() {
		rec := rr.r.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		rec.Retain()
		return rec, nil
	}
	if err := rr.r.Err(); err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "sort: reading a temporary file")
	}
	return nil, nil
}

// mergeHeap orders runs by their current row's key, then by run (earlier
// runs hold earlier rows, which keeps the sort stable).
type mergeHeap struct {
	rs  []*runReader
	idx []int // run indices in heap order
}

func (h *mergeHeap) Len() int { return len(h.idx) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := h.rs[h.idx[i]], h.rs[h.idx[j]]
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return h.idx[i] < h.idx[j]
}
func (h *mergeHeap) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *mergeHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *mergeHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// source is a chunk an output batch may take rows from: a run's current
// chunk (live) or one the run has moved past while rows of it wait.
type source struct {
	rec  arrow.RecordBatch
	n    int64 // its accounted bytes
	live bool
}

// merge k-way merges the run files into batches of the spill schema
// handed to out, of outRows rows but the last. The chunks a run moved
// past stay until the batch built from them is out, up to an eighth of
// MaxBytes, so that batches are not cut where a chunk ends.
func (s *Sorter) merge(files []string, out func(arrow.RecordBatch) error) (err error) {
	h := &mergeHeap{}
	var srcs []source
	defer func() {
		for _, src := range srcs {
			src.rec.Release()
			s.free(src.n)
		}
		for _, rr := range h.rs {
			rr.r.Release()
			_ = rr.f.Close()
		}
	}()
	load := func(i int) error {
		rr := h.rs[i]
		rec, err := s.next(rr)
		rr.cur = rec
		if rec == nil {
			return err
		}
		n := recordBytes(rec)
		s.use(n)
		rr.src, rr.pos = int32(len(srcs)), 0
		rr.keys = rec.Column(int(rec.NumCols()) - 1).(*array.Binary)
		rr.key = rr.keys.Value(0)
		srcs = append(srcs, source{rec, n, true})
		return nil
	}
	for i, name := range files {
		rr, err := s.open(name)
		if err != nil {
			return err
		}
		h.rs = append(h.rs, rr)
		if err := load(i); err != nil {
			return err
		}
		if rr.cur != nil {
			h.idx = append(h.idx, i)
		}
	}
	heap.Init(h)
	step, retireMax := s.outRows(), s.opt.MaxBytes/8
	var retired int64
	var pending []ref
	recs := make([]arrow.RecordBatch, 0, 2*len(files))
	moved := make([]int32, 0, 2*len(files))
	flush := func() error {
		if len(pending) > 0 {
			if err := s.ctx.Err(); err != nil {
				return errs.Wrap(errs.Canceled, "", err, "sort")
			}
			recs = recs[:0]
			for _, src := range srcs {
				recs = append(recs, src.rec)
			}
			rec, err := s.gather(recs, pending)
			pending = pending[:0]
			if err != nil {
				return err
			}
			err = out(rec.RecordBatch)
			s.drop(rec)
			if err != nil {
				return err
			}
		}
		// Drop the chunks runs moved past; the current ones move down.
		moved = moved[:0]
		kept := 0
		for _, src := range srcs {
			moved = append(moved, int32(kept))
			if src.live {
				srcs[kept] = src
				kept++
			} else {
				src.rec.Release()
				s.free(src.n)
			}
		}
		srcs = srcs[:kept]
		for _, rr := range h.rs {
			if rr.cur != nil {
				rr.src = moved[rr.src]
			}
		}
		retired = 0
		return nil
	}
	for h.Len() > 0 {
		i := h.idx[0]
		rr := h.rs[i]
		pending = append(pending, ref{rr.src, int32(rr.pos)})
		rr.pos++
		if rr.pos == int(rr.cur.NumRows()) {
			srcs[rr.src].live = false
			retired += srcs[rr.src].n
			if retired >= retireMax || len(pending) >= step {
				if err := flush(); err != nil {
					return err
				}
			}
			if err := load(i); err != nil {
				return err
			}
			if rr.cur == nil {
				heap.Pop(h)
				continue
			}
		} else {
			rr.key = rr.keys.Value(rr.pos)
			if len(pending) >= step {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		heap.Fix(h, 0)
	}
	return flush()
}
