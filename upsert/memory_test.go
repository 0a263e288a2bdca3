package upsert

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/metrics"
)

// peakAllocator counts the Arrow and Parquet bytes live at once.
type peakAllocator struct {
	mem        memory.Allocator
	live, peak atomic.Int64
}

func (a *peakAllocator) add(n int64) {
	v := a.live.Add(n)
	for {
		p := a.peak.Load()
		if v <= p || a.peak.CompareAndSwap(p, v) {
			return
		}
	}
}

func (a *peakAllocator) Allocate(n int) []byte { a.add(int64(n)); return a.mem.Allocate(n) }

func (a *peakAllocator) Reallocate(n int, b []byte) []byte {
	a.add(int64(n - len(b)))
	return a.mem.Reallocate(n, b)
}

func (a *peakAllocator) Free(b []byte) { a.add(-int64(len(b))); a.mem.Free(b) }

// wideTable builds a table of files rows × payload bytes per row, in
// files files, and returns the keys of each file.
func wideTable(t *testing.T, files, rowsPerFile, payload int) (*table, [][]int64) {
	tb := newTable(t, fields("id long", "payload string", "n long"), nil, nil)
	as := tb.arrowSchema()
	pad := strings.Repeat("p", payload)
	keys := make([][]int64, files)
	for f := range files {
		var recs []arrow.RecordBatch
		for lo := 0; lo < rowsPerFile; lo += 1000 {
			ib := array.NewInt64Builder(memory.DefaultAllocator)
			pb := array.NewStringBuilder(memory.DefaultAllocator)
			nb := array.NewInt64Builder(memory.DefaultAllocator)
			for i := lo; i < min(lo+1000, rowsPerFile); i++ {
				id := int64(i*files + f) // interleaved: every file spans every range
				keys[f] = append(keys[f], id)
				ib.Append(id)
				pb.Append(fmt.Sprintf("%08d", id) + pad)
				nb.Append(id % 4) // low cardinality: a few bytes on disk, 8 a row decoded
			}
			cols := []arrow.Array{ib.NewArray(), pb.NewArray(), nb.NewArray()}
			recs = append(recs, array.NewRecordBatch(as, cols, int64(cols[0].Len())))
			for _, c := range cols {
				c.Release()
			}
			ib.Release()
			pb.Release()
			nb.Release()
		}
		tb.appendBatches(nil, recs...)
		for _, r := range recs {
			r.Release()
		}
	}
	return tb, keys
}

// TestMemoryBounded: an upsert that rewrites a table many times larger
// than MaxBufferedBytes holds at most the budget's capacity in reserved
// bytes (sampled from the call's budget), its readers never outgrow their
// reservations, it releases all of it (here and in the process limits),
// and keeps the Arrow and Parquet bytes live at once to a small multiple
// of the knob, far below the decoded table.
func TestMemoryBounded(t *testing.T) {
	const files, rows, payload = 4, 10000, 500
	tb, keys := wideTable(t, files, rows, payload)
	var tableBytes int64
	for _, a := range tb.snap.Files() {
		tableBytes += a.Size
	}
	const buffered = 2 << 20
	lim := limits.New(limits.DefaultConfig())
	alloc := &peakAllocator{mem: memory.NewGoAllocator()}
	// One key of every file: every file is rewritten.
	var src []string
	for f := range files {
		src = append(src, fmt.Sprintf(`{"id":%d,"payload":"new","n":-1}`, keys[f][rows/2]))
	}
	rec := batchOf(t, tb.arrowSchema(), "["+strings.Join(src, ",")+"]")
	defer rec.Release()
	rr, _ := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	defer rr.Release()

	var peak atomic.Int64
	tr := &trace{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if b := tr.budget.Load(); b != nil {
				if _, _, n := b.InUse(); n > peak.Load() {
					peak.Store(n)
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Microsecond):
			}
		}
	}()
	s, _, err := Run(context.Background(), tb.snap, rr, Options{PrimaryKeys: []string{"id"}, MaxBufferedBytes: buffered,
		Limits: lim, Metrics: metrics.New(), mem: alloc, trace: tr})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if s.FilesRemoved != files || s.RowsUpdated != files || s.RowsCopied != files*rows-files {
		t.Errorf("stats %v", s)
	}
	capacity := int64(buffered / 2)
	if p := peak.Load(); p == 0 || p > capacity {
		t.Errorf("budget peak %d bytes, capacity %d", p, capacity)
	}
	if _, _, b := lim.InUse(); b != 0 {
		t.Errorf("%d bytes still reserved after the upsert", b)
	}
	if alloc.live.Load() != 0 {
		t.Errorf("%d Arrow bytes leaked", alloc.live.Load())
	}
	// Decoded data is ~5 times the compressed table here; what is live at
	// once must stay a small multiple of the knob.
	t.Logf("table %d bytes on disk, budget peak %d, Arrow/Parquet peak %d", tableBytes, peak.Load(), alloc.peak.Load())
	if p := alloc.peak.Load(); p > 3*buffered {
		t.Errorf("Arrow/Parquet peak %d bytes with MaxBufferedBytes %d", p, buffered)
	}
}
