package datafile

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// faultyStore reports names as taken, or fails uploads part way.
type faultyStore struct {
	storage.Store
	taken   atomic.Int32 // Head calls left that report an existing object
	failPut bool
}

func (f *faultyStore) Head(ctx context.Context, key string) (storage.ObjectInfo, error) {
	if f.taken.Add(-1) >= 0 {
		return storage.ObjectInfo{Key: key}, nil
	}
	return f.Store.Head(ctx, key)
}

func (f *faultyStore) Put(ctx context.Context, key string, r io.Reader) error {
	if f.failPut {
		_, _ = io.CopyN(io.Discard, r, 100)
		return errors.New("disk on fire")
	}
	return f.Store.Put(ctx, key, r)
}

func TestTakenNamesAreNeverOverwritten(t *testing.T) {
	mem := memory.NewGoAllocator()
	sc := mustSchema(t, rollSchema)
	st := &faultyStore{Store: storage.NewMemory()}
	st.taken.Store(2)
	rec := rollBatch(mem, sc, 0, 10, 1, rand.New(rand.NewPCG(1, 1)))
	adds := writeAll(t, st, Options{Schema: sc}, rec)
	if len(adds) != 1 || !strings.HasPrefix(adds[0].Path, "part-00002-") {
		t.Fatalf("adds %v: want one file named after two taken names", adds)
	}
	arrowrows.Diff(t, readRows(t, &addsSource{st: st, sc: sc, files: adds}), arrowrows.Rows(rec))

	st.taken.Store(100)
	w, _ := NewWriter(context.Background(), st, Options{Schema: sc})
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err == nil || !strings.Contains(err.Error(), "colliding") {
		t.Fatalf("Close with every name taken: %v", err)
	}
}

func TestStorageFailureIsReportedAndSticky(t *testing.T) {
	mem := memory.NewGoAllocator()
	sc := mustSchema(t, rollSchema)
	st := &faultyStore{Store: storage.NewMemory(), failPut: true}
	rnd := rand.New(rand.NewPCG(2, 2))
	w, err := NewWriter(context.Background(), st, Options{Schema: sc, MaxUnwrittenBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for k := 0; k < 20 && werr == nil; k++ {
		werr = w.Write(rollBatch(mem, sc, k*1000, 1000, 1, rnd))
	}
	if werr == nil || !strings.Contains(werr.Error(), "disk on fire") {
		t.Fatalf("Write over a failing store: %v", werr)
	}
	if err := w.Write(rollBatch(mem, sc, 0, 1, 1, rnd)); err != werr {
		t.Errorf("next Write: %v, want the same error", err)
	}
	if _, err := w.Close(); err != werr {
		t.Errorf("Close: %v, want the same error", err)
	}
	if err := w.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	if objs, _ := storage.Collect(context.Background(), st, "", ""); len(objs) != 0 {
		t.Errorf("%d objects after a failed write", len(objs))
	}
}
