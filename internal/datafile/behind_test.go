package datafile

import (
	"context"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// gatedStore holds every upload until gate is closed.
type gatedStore struct {
	storage.Store
	gate chan struct{}
}

func (g *gatedStore) Put(ctx context.Context, key string, r io.Reader) error {
	<-g.gate
	return g.Store.Put(ctx, key, r)
}

// TestWriteBehind checks that a Writer encoding columns in parallel takes
// the next rows while a row group is still being written (here: held by
// the store), that the rows in flight stay within MaxUnwrittenBytes, and
// that the files hold every row, through buffers the pool poisons once
// freed.
func TestWriteBehind(t *testing.T) {
	mem := arrowmem.Poisoned()
	sc := mustSchema(t, rollSchema)
	st := &gatedStore{Store: storage.NewMemory(), gate: make(chan struct{})}
	const limit = 256 << 10
	w, err := NewWriter(context.Background(), st, Options{Schema: sc, MaxUnwrittenBytes: limit, EncodeWorkers: 2, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(3, 3))
	var recs []arrow.RecordBatch
	flushed := make(chan error, 1)
	go func() { // until the first row group is on its way
		for k := 0; w.inflight == nil; k++ {
			rec := rollBatch(mem, sc, k*500, 500, 1, rnd)
			recs = append(recs, rec)
			if err := w.Write(rec); err != nil {
				flushed <- err
				return
			}
			if w.buffered > limit {
				t.Errorf("%d bytes held after batch %d, the bound is %d", w.buffered, k, limit)
			}
		}
		flushed <- nil
	}()
	select {
	case err := <-flushed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Write waited for the row group it flushed to be stored")
	}
	close(st.gate)
	for k, end := len(recs), len(recs)+20; k < end; k++ {
		rec := rollBatch(mem, sc, k*500, 500, 1, rnd)
		recs = append(recs, rec)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	adds, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range recs {
		want = append(want, arrowrows.Rows(r)...)
		r.Release()
	}
	arrowrows.Diff(t, readRows(t, &addsSource{st: st, sc: sc, files: adds}), sorted(want))
}
