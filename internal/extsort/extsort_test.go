package extsort

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/limits"
)

// peakAllocator records the most bytes allocated through it at once.
type peakAllocator struct {
	*memory.CheckedAllocator
	mu   sync.Mutex
	peak int
}

func newPeakAllocator() *peakAllocator {
	return &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.DefaultAllocator)}
}

func (p *peakAllocator) note() {
	p.mu.Lock()
	p.peak = max(p.peak, p.CurrentAlloc())
	p.mu.Unlock()
}

func (p *peakAllocator) Allocate(n int) []byte {
	b := p.CheckedAllocator.Allocate(n)
	p.note()
	return b
}

func (p *peakAllocator) Reallocate(n int, b []byte) []byte {
	b = p.CheckedAllocator.Reallocate(n, b)
	p.note()
	return b
}

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "tags", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
}, nil)

// keyOf is a row's key: few distinct values, so that equal keys show
// whether the sort is stable.
func keyOf(id int64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, uint64(id*7919%1009))
	return k
}

func payloadOf(id int64) string { return fmt.Sprintf("row %08d %032x", id, id*id) }

// batchOf returns rows [from, from+n) and their keys.
func batchOf(mem memory.Allocator, from, n int64) (arrow.RecordBatch, [][]byte) {
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	ids := b.Field(0).(*array.Int64Builder)
	ps := b.Field(1).(*array.StringBuilder)
	ls := b.Field(2).(*array.ListBuilder)
	vs := ls.ValueBuilder().(*array.Int32Builder)
	keys := make([][]byte, n)
	for i := range n {
		id := from + i
		ids.Append(id)
		if id%10 == 3 {
			ps.AppendNull()
			ls.AppendNull()
		} else {
			ps.Append(payloadOf(id))
			ls.Append(true)
			vs.AppendValues([]int32{int32(id), int32(-id)}, nil)
		}
		keys[i] = keyOf(id)
	}
	return b.NewRecordBatch(), keys
}

// checker asserts that the batches it is given hold rows [0, total) each
// once, in key order, rows of equal keys in id order, with their contents.
type checker struct {
	seen    []bool
	prevKey []byte
	prevID  int64
	n       int64
}

func newChecker(total int64) *checker { return &checker{seen: make([]bool, total), prevID: -1} }

func (ck *checker) add(t *testing.T, rec arrow.RecordBatch) {
	t.Helper()
	ids := rec.Column(0).(*array.Int64)
	ps := rec.Column(1).(*array.String)
	ls := rec.Column(2).(*array.List)
	vs := ls.ListValues().(*array.Int32)
	for i := range ids.Len() {
		id := ids.Value(i)
		if id < 0 || id >= int64(len(ck.seen)) || ck.seen[id] {
			t.Fatalf("row id %d out of range or repeated", id)
		}
		ck.seen[id] = true
		k := keyOf(id)
		if c := string(k); ck.prevKey != nil && (c < string(ck.prevKey) || (c == string(ck.prevKey) && id < ck.prevID)) {
			t.Fatalf("row %d (key %x) after row %d (key %x)", id, k, ck.prevID, ck.prevKey)
		}
		ck.prevKey, ck.prevID = k, id
		if id%10 == 3 {
			if ps.IsValid(i) || ls.IsValid(i) {
				t.Fatalf("row %d: want nulls", id)
			}
		} else {
			lo, hi := ls.ValueOffsets(i)
			if ps.Value(i) != payloadOf(id) || hi-lo != 2 || vs.Value(int(lo)) != int32(id) || vs.Value(int(lo)+1) != int32(-id) {
				t.Fatalf("row %d: payload %q, list %d..%d", id, ps.Value(i), lo, hi)
			}
		}
		ck.n++
	}
}

func (ck *checker) done(t *testing.T) {
	t.Helper()
	if ck.n != int64(len(ck.seen)) {
		t.Fatalf("%d rows out, want %d", ck.n, len(ck.seen))
	}
}

// run sorts total rows in batches of batchRows, checks the output as it
// streams and returns the stats.
func run(t *testing.T, opt Options, total, batchRows int64) Stats {
	t.Helper()
	ctx := context.Background()
	s, err := New(ctx, testSchema, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for from := int64(0); from < total; from += batchRows {
		rec, keys := batchOf(memory.DefaultAllocator, from, min(batchRows, total-from))
		err := s.Add(rec, keys)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	ck := newChecker(total)
	if err := s.Emit(func(rec arrow.RecordBatch) error {
		ck.add(t, rec)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ck.done(t)
	if n := s.heldBytes(); n != 0 {
		t.Errorf("the accounting holds %d bytes after Emit", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Stats()
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("temporary file left: %s", e.Name())
	}
}

// TestSortTenTimesTheBudget sorts about ten times MaxBytes of rows: it
// spills, merges, keeps its accounting and its allocations under the
// budget, and leaves no file.
func TestSortTenTimesTheBudget(t *testing.T) {
	const budget = 1 << 20
	dir := t.TempDir()
	mem := newPeakAllocator()
	// ~64 bytes a row: 170k rows are ~10 MiB.
	const total, batchRows = 170_000, 1000
	in, _ := batchOf(memory.DefaultAllocator, 0, total)
	inBytes := recordBytes(in)
	in.Release()
	if inBytes < 10*budget {
		t.Fatalf("input of %d bytes is not ten times the budget", inBytes)
	}
	st := run(t, Options{MaxBytes: budget, TempDir: dir, Allocator: mem}, total, batchRows)
	assertEmptyDir(t, dir)
	if st.Runs < 10 || st.SpilledBytes < inBytes {
		t.Errorf("%d runs, %d bytes spilled for %d bytes of input: want ten runs and all of it", st.Runs, st.SpilledBytes, inBytes)
	}
	if st.PeakBytes > budget {
		t.Errorf("the accounting peaked at %d bytes, over the budget of %d", st.PeakBytes, budget)
	}
	if mem.peak > budget {
		t.Errorf("the sorter's allocations peaked at %d bytes, over the budget of %d", mem.peak, budget)
	}
	t.Logf("input %d bytes, budget %d: %d runs, %d spilled, accounted peak %d, allocated peak %d",
		inBytes, budget, st.Runs, st.SpilledBytes, st.PeakBytes, mem.peak)
}

// TestMergePasses merges more runs than FanIn in several passes.
func TestMergePasses(t *testing.T) {
	dir := t.TempDir()
	st := run(t, Options{MaxBytes: 256 << 10, FanIn: 2, TempDir: dir}, 20_000, 500)
	assertEmptyDir(t, dir)
	if st.Runs <= 8 {
		t.Errorf("%d run files: want the spilled runs plus merge passes", st.Runs)
	}
}

func TestSortInMemoryWritesNothing(t *testing.T) {
	dir := t.TempDir()
	st := run(t, Options{MaxBytes: 64 << 20, TempDir: dir}, 5000, 700)
	assertEmptyDir(t, dir)
	if st.Runs != 0 || st.SpilledBytes != 0 {
		t.Errorf("%d runs, %d bytes spilled for input that fits", st.Runs, st.SpilledBytes)
	}
}

// TestBudgetCharged: the sort holds MaxBytes of the call's budget while
// open and gives it back on Close.
func TestBudgetCharged(t *testing.T) {
	b := limits.New(limits.Config{MaxDecodedBytes: 64 << 20}).NewBudget(limits.CallConfig{MaxDecodedBytes: 8 << 20})
	s, err := New(context.Background(), testSchema, Options{MaxBytes: 3 << 20, Budget: b, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, n := b.InUse(); n != 3<<20 {
		t.Errorf("budget holds %d bytes while sorting, want %d", n, 3<<20)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, n := b.InUse(); n != 0 {
		t.Errorf("budget holds %d bytes after Close", n)
	}
}

// TestAccountingFollowsRows: added rows count their batch, keys and
// sort entries, and a run is handed to the spill before its room is
// passed.
func TestAccountingFollowsRows(t *testing.T) {
	s, err := New(context.Background(), testSchema, Options{MaxBytes: 1 << 20, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, keys := batchOf(memory.DefaultAllocator, 0, 100)
	defer rec.Release()
	if err := s.Add(rec, keys); err != nil {
		t.Fatal(err)
	}
	if want := recordBytes(rec) + 100*(8+rowOverhead); s.heldBytes() != want || s.cur.bytes != want {
		t.Errorf("holds %d bytes (the run %d) for one batch, want %d", s.heldBytes(), s.cur.bytes, want)
	}
	for i := int64(1); s.spilled == nil; i++ {
		r, k := batchOf(memory.DefaultAllocator, i*100, 100)
		err := s.Add(r, k)
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
		if s.cur.bytes > s.room() {
			t.Fatalf("the run holds %d bytes, over its room of %d", s.cur.bytes, s.room())
		}
	}
	if s.cur.bytes >= recordBytes(rec)*2 {
		t.Errorf("once a spill started the run holds %d bytes: want only the batch added since", s.cur.bytes)
	}
	if err := s.waitSpill(); err != nil {
		t.Fatal(err)
	}
	if s.heldBytes() != s.cur.bytes || s.Stats().Runs != 1 {
		t.Errorf("after the spill the sorter holds %d bytes, the run %d, %d runs written: want the run's only, one run",
			s.heldBytes(), s.cur.bytes, s.Stats().Runs)
	}
}

// TestConcurrentSpillStaysInBudget: while one run is sorted and spilled
// in the background, Add fills the next one (at most one of each), and
// together with the spill's copies they never pass MaxBytes, by the
// accounting and by what was allocated (the batches handed to Add are
// allocated by the sorter's allocator too here).
func TestConcurrentSpillStaysInBudget(t *testing.T) {
	const budget = 1 << 20
	dir := t.TempDir()
	mem := newPeakAllocator()
	s, err := New(context.Background(), testSchema, Options{MaxBytes: budget, TempDir: dir, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const total, batchRows = 100_000, 500
	overlapped := 0
	for from := int64(0); from < total; from += batchRows {
		rec, keys := batchOf(mem, from, batchRows)
		if s.spilled != nil {
			overlapped++ // a spill runs while this batch is added
		}
		err := s.Add(rec, keys)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if s.cur.bytes > s.room() || 2*s.room() > budget {
			t.Fatalf("a run holds %d bytes, room %d of a budget of %d", s.cur.bytes, s.room(), budget)
		}
	}
	ck := newChecker(total)
	if err := s.Emit(func(rec arrow.RecordBatch) error { ck.add(t, rec); return nil }); err != nil {
		t.Fatal(err)
	}
	ck.done(t)
	st := s.Stats()
	if overlapped == 0 || st.Runs < 2 {
		t.Fatalf("%d runs, %d batches added while a spill ran: the test does not test concurrency", st.Runs, overlapped)
	}
	if st.PeakBytes > budget {
		t.Errorf("the accounting peaked at %d bytes, over the budget of %d", st.PeakBytes, budget)
	}
	// The batch being built by the test is allocated on top of the sort.
	if mem.peak > budget+int(batchBytes(batchRows)) {
		t.Errorf("allocations peaked at %d bytes, over the budget of %d", mem.peak, budget)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	assertEmptyDir(t, dir)
	t.Logf("%d runs, %d of %d batches added while a spill ran, accounted peak %d, allocated peak %d",
		st.Runs, overlapped, total/batchRows, st.PeakBytes, mem.peak)
}

func batchBytes(rows int64) int64 {
	rec, _ := batchOf(memory.DefaultAllocator, 0, rows)
	defer rec.Release()
	return recordBytes(rec)
}

// TestTempFilesRemovedOnFailure: an error of fn and a cancellation leave
// no file behind.
func TestTempFilesRemovedOnFailure(t *testing.T) {
	for _, tc := range []string{"fn error", "canceled while adding", "canceled while merging"} {
		t.Run(tc, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := New(ctx, testSchema, Options{MaxBytes: 256 << 10, TempDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			var addErr error
			for from := int64(0); from < 20_000 && addErr == nil; from += 1000 {
				if tc == "canceled while adding" && from == 10_000 {
					cancel()
				}
				rec, keys := batchOf(memory.DefaultAllocator, from, 1000)
				addErr = s.Add(rec, keys)
				rec.Release()
			}
			boom := errors.New("boom")
			var emitErr error
			if addErr == nil {
				emitErr = s.Emit(func(arrow.RecordBatch) error {
					if tc == "canceled while merging" {
						cancel()
						return nil
					}
					return boom
				})
			}
			switch tc {
			case "fn error":
				if !errors.Is(emitErr, boom) {
					t.Fatalf("Emit: %v, want fn's error", emitErr)
				}
			case "canceled while adding":
				if !errors.Is(addErr, errs.ErrCanceled) {
					t.Fatalf("Add: %v, want canceled", addErr)
				}
			default:
				if !errors.Is(emitErr, errs.ErrCanceled) {
					t.Fatalf("Emit: %v, want canceled", emitErr)
				}
			}
			if s.Stats().Runs == 0 {
				t.Fatal("nothing spilled: the test does not test removal")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			assertEmptyDir(t, dir)
		})
	}
}

func TestAddRejectsBadInput(t *testing.T) {
	s, err := New(context.Background(), testSchema, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, keys := batchOf(memory.DefaultAllocator, 0, 10)
	defer rec.Release()
	if err := s.Add(rec, keys[:9]); err == nil {
		t.Error("9 keys for 10 rows accepted")
	}
	other := array.NewRecordBatch(arrow.NewSchema(testSchema.Fields()[:1], nil), rec.Columns()[:1], 10)
	defer other.Release()
	if err := s.Add(other, keys); err == nil {
		t.Error("a batch of another schema accepted")
	}
}

// TestSortKeysIsStableByteOrder: the prefix sort orders as a stable sort
// by bytes.Compare would, with keys sharing leading bytes, keys of other
// lengths (shorter than the shared bytes plus the prefix) and equal keys.
func TestSortKeysIsStableByteOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var keys [][][]byte
	type row struct {
		k    []byte
		b, r int
	}
	var rows []row
	for b := range 5 {
		var ks [][]byte
		for r := range 200 {
			k := []byte("zzzzz")
			for range rng.IntN(12) {
				k = append(k, byte(rng.IntN(3)))
			}
			if b == 4 && r == 0 {
				k = []byte("zz") // shares less: the shared prefix shrinks
			}
			ks = append(ks, k)
			rows = append(rows, row{k, b, r})
		}
		keys = append(keys, ks)
	}
	slices.SortStableFunc(rows, func(x, y row) int { return bytes.Compare(x.k, y.k) })
	got := sortKeys(keys, len(rows))
	for i, g := range got {
		if int(g.b) != rows[i].b || int(g.r) != rows[i].r {
			t.Fatalf("row %d: got (%d, %d) key %x, want (%d, %d) key %x", i, g.b, g.r, keys[g.b][g.r], rows[i].b, rows[i].r, rows[i].k)
		}
	}
	if n := commonPrefix(keys[:4]); n != 5 {
		t.Errorf("common prefix of keys starting zzzzz: %d bytes", n)
	}
}
