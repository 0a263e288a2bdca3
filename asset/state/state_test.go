package state

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func stores(t *testing.T) map[string]Store {
	f, err := OpenFile(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Store{"file": f, "memory": NewMemory()}
}

func TestRoundTripAndClear(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			recs := []Record{
				{Asset: "orders", Key: "2024-01-02", Version: 3, Metadata: map[string]any{"delta/num_rows": 5.0}, MaterializedAt: at},
				{Asset: "orders", Key: "2024-01-01", Version: 2, MaterializedAt: at},
				{Asset: "flat", Version: 7, MaterializedAt: at},
			}
			if err := s.Put(ctx, recs...); err != nil {
				t.Fatal(err)
			}
			got, ok, err := s.Get(ctx, "orders", "2024-01-02")
			if err != nil || !ok || got.Version != 3 || got.Metadata["delta/num_rows"] != 5.0 || !got.MaterializedAt.Equal(at) {
				t.Fatalf("Get = %+v, %v, %v", got, ok, err)
			}
			// A newer materialization replaces the record of its key.
			if err := s.Put(ctx, Record{Asset: "orders", Key: "2024-01-01", Version: 4, MaterializedAt: at}); err != nil {
				t.Fatal(err)
			}
			list, err := s.List(ctx, "orders")
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 2 || list[0].Key != "2024-01-01" || list[0].Version != 4 || list[1].Key != "2024-01-02" {
				t.Fatalf("List = %+v", list)
			}
			if err := s.Clear(ctx, "orders", "2024-01-02"); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := s.Get(ctx, "orders", "2024-01-02"); ok {
				t.Fatal("cleared key still recorded")
			}
			if err := s.Clear(ctx, "orders"); err != nil {
				t.Fatal(err)
			}
			if list, _ := s.List(ctx, "orders"); len(list) != 0 {
				t.Fatalf("after clearing the asset: %+v", list)
			}
			if r, ok, _ := s.Get(ctx, "flat", ""); !ok || r.Version != 7 {
				t.Fatalf("another asset's record was touched: %+v %v", r, ok)
			}
		})
	}
}

// Reading and clearing a state never written create nothing.
func TestFileCreatesNothingUntilPut(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a", "state")
	f, err := OpenFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := f.Get(ctx, "x", ""); ok || err != nil {
		t.Fatal(ok, err)
	}
	if l, err := f.List(ctx, "x"); len(l) != 0 || err != nil {
		t.Fatal(l, err)
	}
	if err := f.Clear(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Fatalf("the state directory was created: %v", err)
	}
	if err := f.Put(ctx, Record{Asset: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := f.Get(ctx, "x", ""); !ok {
		t.Fatal("not recorded")
	}
	file := filepath.Join(t.TempDir(), "file")
	_ = os.WriteFile(file, nil, 0o644)
	if _, err := OpenFile(file); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Fatalf("OpenFile on a file: %v", err)
	}
}

// The file store survives reopening: the state is the file.
func TestFilePersists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, _ := OpenFile(dir)
	if err := a.Put(ctx, Record{Asset: "x", Key: "k", Version: 1}); err != nil {
		t.Fatal(err)
	}
	b, _ := OpenFile(dir)
	if r, ok, err := b.Get(ctx, "x", "k"); err != nil || !ok || r.Version != 1 {
		t.Fatalf("reopened: %+v %v %v", r, ok, err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "state.json,state.lock" {
		t.Fatalf("directory holds %v; want the state and lock files only (no temporary left)", names)
	}
}

func TestCorruptFileNamesPosition(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("{\n  \"records\": [\n    {\"asset\": 1}\n  ]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := OpenFile(dir)
	_, err := f.List(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 3, column") ||
		!strings.Contains(err.Error(), "move the file aside") {
		t.Fatalf("err = %v", err)
	}
	// A failed update leaves the file as it was.
	before, _ := os.ReadFile(path)
	if err := f.Put(context.Background(), Record{Asset: "y"}); err == nil {
		t.Fatal("Put over a corrupt file succeeded")
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("the corrupt file was changed")
	}
}

func TestUnencodableMetadataChangesNothing(t *testing.T) {
	ctx := context.Background()
	f, _ := OpenFile(t.TempDir())
	if err := f.Put(ctx, Record{Asset: "a", Version: 1}); err != nil {
		t.Fatal(err)
	}
	err := f.Put(ctx, Record{Asset: "a", Version: 2, Metadata: map[string]any{"x": math.NaN()}})
	if err == nil || !strings.Contains(err.Error(), "JSON") {
		t.Fatalf("err = %v", err)
	}
	if r, _, _ := f.Get(ctx, "a", ""); r.Version != 1 {
		t.Fatalf("state changed to %+v", r)
	}
}

// Writers in several processes (and goroutines) never lose each other's
// records: each read-modify-write holds the lock.
func TestConcurrentProcesses(t *testing.T) {
	if dir := os.Getenv("DELTALITE_STATE_CHILD"); dir != "" {
		f, _ := OpenFile(dir)
		id := os.Getenv("DELTALITE_STATE_ID")
		for i := range 20 {
			if err := f.Put(context.Background(), Record{Asset: "a", Key: fmt.Sprintf("%s-%02d", id, i)}); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errc := make(chan error, 6)
	for p := range 3 {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentProcesses$")
			cmd.Env = append(os.Environ(), "DELTALITE_STATE_CHILD="+dir, fmt.Sprintf("DELTALITE_STATE_ID=p%d", p))
			if out, err := cmd.CombinedOutput(); err != nil {
				errc <- fmt.Errorf("child %d: %v\n%s", p, err, out)
			}
		})
	}
	f, _ := OpenFile(dir)
	for g := range 3 {
		wg.Go(func() {
			for i := range 20 {
				if err := f.Put(context.Background(), Record{Asset: "a", Key: fmt.Sprintf("g%d-%02d", g, i)}); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	list, err := f.List(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 120 {
		t.Fatalf("%d records, want 120", len(list))
	}
}
