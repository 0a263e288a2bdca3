package storage_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/storage"
)

// TestCreate: an object written through Create is invisible until Commit,
// absent after Abort or a cancelled write, on the local and memory stores.
func TestCreate(t *testing.T) {
	local, err := storage.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]storage.Store{"local": local, "memory": storage.NewMemory()} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			o, err := storage.Create(ctx, st, "d/a.bin")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Repeat("abc", 100_000)
			for i := 0; i < len(want); i += 7000 {
				if _, err := o.Write([]byte(want[i:min(i+7000, len(want))])); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := st.Head(ctx, "d/a.bin"); !errors.Is(err, storage.ErrNotExist) {
				t.Fatalf("visible before Commit: %v", err)
			}
			if err := o.Commit(); err != nil {
				t.Fatal(err)
			}
			if got, err := storage.ReadAll(ctx, st, "d/a.bin"); err != nil || string(got) != want {
				t.Fatalf("read back %d bytes, %v", len(got), err)
			}

			o, err = storage.Create(ctx, st, "d/b.bin")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := o.Write([]byte("partial")); err != nil {
				t.Fatal(err)
			}
			o.Abort()
			if _, err := st.Head(ctx, "d/b.bin"); !errors.Is(err, storage.ErrNotExist) {
				t.Fatalf("aborted object exists: %v", err)
			}
			var keys []string
			for info, err := range st.List(ctx, "d/", "") {
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, info.Key)
			}
			if len(keys) != 1 || keys[0] != "d/a.bin" {
				t.Fatalf("objects after an abort: %v", keys)
			}

			cctx, cancel := context.WithCancel(ctx)
			o, err = storage.Create(cctx, st, "d/c.bin")
			if err != nil {
				t.Fatal(err)
			}
			cancel()
			_, werr := o.Write([]byte(want))
			cerr := o.Commit()
			if werr == nil && cerr == nil {
				t.Fatal("a write after the context ended was stored")
			}
			if _, err := st.Head(ctx, "d/c.bin"); !errors.Is(err, storage.ErrNotExist) {
				t.Fatalf("object of a cancelled write exists: %v", err)
			}
		})
	}
}
