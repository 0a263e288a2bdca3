package upsert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// runOn upserts JSON rows into the table snap shows, without adopting the
// result into tb.
func runOn(t *testing.T, tb *table, snap *snapshot.Snapshot, rows string, opt Options) (Stats, error) {
	t.Helper()
	rec := batchOf(t, tb.arrowSchema(), rows)
	defer rec.Release()
	rr, _ := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	defer rr.Release()
	s, _, err := Run(context.Background(), snap, rr, quiet(opt))
	return s, err
}

func (tb *table) reload() {
	tb.t.Helper()
	s, err := snapshot.Load(context.Background(), tb.st)
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.snap = s
}

// TestDisjointPartitionsBothLand: upserts planned on one snapshot into
// different partitions both commit, the second on top of the first.
func TestDisjointPartitionsBothLand(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"a","val":"x"},{"id":1,"day":"b","val":"x"}]`)
	snap := tb.snap
	s1, err := runOn(t, tb, snap, `[{"id":1,"day":"a","val":"A"}]`, byID)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := runOn(t, tb, snap, `[{"id":1,"day":"b","val":"B"},{"id":2,"day":"c","val":"C"}]`, byID)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Version != snap.Version()+1 || s2.Version != snap.Version()+2 {
		t.Errorf("versions %d, %d", s1.Version, s2.Version)
	}
	tb.reload()
	tb.checkRows(`[{"id":1,"day":"a","val":"A"},{"id":1,"day":"b","val":"B"},{"id":2,"day":"c","val":"C"}]`)
}

// TestSamePartitionReplans: the later of two upserts into one partition
// conflicts, plans again on the newer table and lands; the content is
// both applied in commit order, with no duplicate key and no orphan.
func TestSamePartitionReplans(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"a","val":"x"},{"id":2,"day":"a","val":"y"}]`)
	snap := tb.snap
	if _, err := runOn(t, tb, snap, `[{"id":1,"day":"a","val":"first"},{"id":3,"day":"a","val":"first"}]`, byID); err != nil {
		t.Fatal(err)
	}
	s, err := runOn(t, tb, snap, `[{"id":1,"day":"a","val":"second"},{"id":3,"day":"a","val":"second"}]`, byID)
	if err != nil {
		t.Fatal(err)
	}
	// Planned again on the first one's result: both keys exist by then.
	if s.RowsUpdated != 2 || s.RowsInserted != 0 || s.Version != snap.Version()+2 {
		t.Errorf("stats %v", s)
	}
	tb.reload()
	tb.checkRows(`[{"id":1,"day":"a","val":"second"},{"id":2,"day":"a","val":"y"},{"id":3,"day":"a","val":"second"}]`)
	tb.assertNoOrphans()
	// With no replan left the conflict surfaces as a commit conflict.
	stale := snap
	v := tb.snap.Version()
	_, err = runOn(t, tb, stale, `[{"id":2,"day":"a","val":"z"}]`, Options{PrimaryKeys: []string{"id"}, CommitMaxRetries: -1})
	if !errors.Is(err, errs.ErrCommitConflict) {
		t.Fatalf("stale snapshot without retries: %v", err)
	}
	tb.reload()
	if tb.snap.Version() != v {
		t.Fatal("the conflicting upsert committed")
	}
	tb.assertNoOrphans()
}

// TestConcurrentUpserts: goroutines upserting from one snapshot, half into
// their own partitions and half into a shared one, all land; versions are
// contiguous and every row is there once.
func TestConcurrentUpserts(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":0,"day":"shared","val":"init"}]`)
	snap := tb.snap
	const n = 6
	var wg sync.WaitGroup
	errsOut := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			day := fmt.Sprintf("own%d", i)
			if i%2 == 0 {
				day = "shared"
			}
			_, errsOut[i] = runOn(t, tb, snap, fmt.Sprintf(`[{"id":%d,"day":%q,"val":"w%d"},{"id":0,"day":"shared","val":"w%d"}]`, i+1, day, i, i),
				Options{PrimaryKeys: []string{"id"}, CommitMaxRetries: 50})
		}()
	}
	wg.Wait()
	for i, err := range errsOut {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	tb.reload()
	if tb.snap.Version() != snap.Version()+n {
		t.Errorf("version %d after %d upserts from %d", tb.snap.Version(), n, snap.Version())
	}
	rows := tb.rows()
	if len(rows) != n+1 {
		t.Fatalf("rows %q", rows)
	}
	zero := 0
	for _, r := range rows {
		if strings.HasPrefix(r, "day=\"shared\", id=0,") {
			zero++
		}
	}
	if zero != 1 {
		t.Errorf("key 0 appears %d times: %q", zero, rows)
	}
	tb.assertNoOrphans()
}

// cancelStore cancels a context when the n-th data file starts to be
// stored.
type cancelStore struct {
	storage.Store
	after  int32
	puts   atomic.Int32
	cancel context.CancelFunc
}

func (s *cancelStore) Put(ctx context.Context, key string, r io.Reader) error {
	if s.puts.Add(1) == s.after {
		s.cancel()
	}
	return s.Store.Put(ctx, key, r)
}

// TestCancellation: cancelling while files are being written leaves the
// table unchanged and deletes what the upsert wrote.
func TestCancellation(t *testing.T) {
	for _, after := range []int32{1, 2, 3} {
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			tb, keys := wideTable(t, 3, 3000, 100)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cs := &cancelStore{Store: tb.st, after: after, cancel: cancel}
			snap, err := snapshot.Load(ctx, cs)
			if err != nil {
				t.Fatal(err)
			}
			var src []string
			for f := range keys {
				src = append(src, fmt.Sprintf(`{"id":%d,"payload":"new","n":-1}`, keys[f][7]))
			}
			for p := range 3 {
				src = append(src, fmt.Sprintf(`{"id":%d,"payload":"new","n":-1}`, 1_000_000+p))
			}
			rec := batchOf(t, tb.arrowSchema(), "["+strings.Join(src, ",")+"]")
			defer rec.Release()
			rr, _ := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
			defer rr.Release()
			// Small files: several puts per upsert, whatever the codec makes
			// of the payload.
			_, _, err = Run(ctx, snap, rr, quiet(Options{PrimaryKeys: []string{"id"}, TargetFileSize: 16 << 10, MaxParallelFiles: 1}))
			if !errors.Is(err, errs.ErrCanceled) {
				t.Fatalf("err = %v (after %d puts)", err, cs.puts.Load())
			}
			v := tb.snap.Version()
			tb.reload()
			if tb.snap.Version() != v {
				t.Fatal("a cancelled upsert committed")
			}
			tb.assertNoOrphans()
		})
	}
}
