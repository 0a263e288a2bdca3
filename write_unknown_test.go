package deltalite_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// lostResponseStore lands commit 1 but reports a transport error, and then
// cannot read it back, as a store whose response and next request were
// lost would: the writer cannot tell whether its commit landed.
type lostResponseStore struct {
	storage.Store
	landed atomic.Bool
}

func (s *lostResponseStore) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if err := s.Store.PutIfAbsent(ctx, key, data); err != nil || key != protocol.CommitKey(1) {
		return err
	}
	s.landed.Store(true)
	return errors.New("connection reset")
}

func (s *lostResponseStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if s.landed.Load() && key == protocol.CommitKey(1) {
		return nil, errors.New("connection reset")
	}
	return s.Store.Get(ctx, key)
}

// A write whose commit may have landed keeps its data files: deleting
// them would leave a committed version naming missing files.
func TestWriteKeepsFilesWhenTheCommitOutcomeIsUnknown(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, dir, people(t, []int64{1}, []string{"a"}, []string{"d1"}), deltalite.WriteOptions{})
	st, err := storage.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	lost := &lostResponseStore{Store: st}
	_, err = deltalite.Write(context.Background(), dir, people(t, []int64{2}, []string{"b"}, []string{"d2"}),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, Store: lost})
	if err == nil || !lost.landed.Load() {
		t.Fatalf("the write reported %v with the commit landed %v: the fixture did not lose the response", err, lost.landed.Load())
	}
	got := readRows(t, dir)
	want := []string{row(1, "a", "d1"), row(2, "b", "d2")}
	if !slices.Equal(got, want) {
		t.Fatalf("table after a commit of unknown outcome that landed: %v, want %v", got, want)
	}
}
