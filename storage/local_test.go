package storage_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
)

func TestLocalConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) storage.Store {
			s, err := storage.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Reopen: func(t *testing.T, s storage.Store) (string, map[string]string) {
			return s.URL(), nil
		},
	})
}

func TestLocalSync(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	st, err := storage.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	data := strings.Repeat("x", 3<<20+17) // crosses the copy unit
	if err := st.Put(ctx, "a/b.parquet", strings.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := storage.Sync(ctx, st, "a/b.parquet"); err != nil {
		t.Fatal(err)
	}
	got, err := storage.ReadAll(ctx, st, "a/b.parquet")
	if err != nil || string(got) != data {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	if err := storage.Sync(ctx, st, "a/missing.parquet"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("sync of a missing object: %v", err)
	}
	// The option is case-insensitive in key and value; "log" skips data syncs.
	logOnly, err := storage.Open(ctx, dir, map[string]string{"local_fsync": "LOG"})
	if err != nil {
		t.Fatal(err)
	}
	if err := storage.Sync(ctx, logOnly, "a/missing.parquet"); err != nil {
		t.Fatalf("log-only store synced data: %v", err)
	}
	if _, err := storage.Open(ctx, dir, map[string]string{"local_direct_writes": "False", "local_fsync": "all"}); err != nil {
		t.Fatalf("both local options: %v", err)
	}
	for _, bad := range []map[string]string{{"local_fsync": "sometimes"}, {"local_direct_writes": "maybe"}, {"aws_region": "x"}} {
		if _, err := storage.Open(ctx, dir, bad); err == nil {
			t.Errorf("options %v accepted", bad)
		}
	}
	// Memory stores are durable on Put: Sync is a no-op.
	if err := storage.Sync(ctx, storage.NewMemory(), "nothing"); err != nil {
		t.Fatal(err)
	}
}

// TestOpenHidesURLCredentials: a table URL carrying credentials is refused
// (file://) or reported (a URL that does not parse, an unknown scheme)
// without showing them.
func TestOpenHidesURLCredentials(t *testing.T) {
	for _, c := range []struct{ uri, want string }{
		{"file://user-secret:pw-secret@localhost" + t.TempDir(), "carries a user part"},
		{"file://user-secret@localhost" + t.TempDir(), "carries a user part"},
		{"s3://user-secret:pw-secret/with-slash@bucket/t", "credentials go in storage options"},
		{"ftp://user-secret:pw-secret@host/t?sig=sig-secret", `unsupported URL scheme "ftp"`},
	} {
		_, err := storage.Open(t.Context(), c.uri, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "-secret") {
			t.Errorf("Open(%s) = %v; want an error saying %q without the secrets", c.uri, err, c.want)
		}
	}
}

// TestListWithTemp: the local store's List leaves out the temporary files
// of writes in flight (or killed), ListWithTemp shows them, and IsTemp
// names them and nothing else.
func TestListWithTemp(t *testing.T) {
	dir := t.TempDir()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a.parquet", "p=1/.deltalite-tmp-0011", ".deltalite-tmp-2233", "p=1/.spark-foo"} {
		if err := st.Put(t.Context(), k, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(seq func(func(storage.ObjectInfo, error) bool)) []string {
		var out []string
		for o, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o.Key)
		}
		return out
	}
	if got, want := keys(st.List(t.Context(), "", "")), []string{"a.parquet", "p=1/.spark-foo"}; !slices.Equal(got, want) {
		t.Errorf("List: %q, want %q", got, want)
	}
	want := []string{".deltalite-tmp-2233", "a.parquet", "p=1/.deltalite-tmp-0011", "p=1/.spark-foo"}
	if got := keys(storage.ListWithTemp(t.Context(), st, "", "")); !slices.Equal(got, want) {
		t.Errorf("ListWithTemp: %q, want %q", got, want)
	}
	for k, temp := range map[string]bool{"p=1/.deltalite-tmp-0011": true, ".deltalite-tmp-x": true, ".spark-foo": false,
		"_foo": false, ".deltalite-tmp/x.parquet": false, "a.parquet": false} {
		if storage.IsTemp(k) != temp {
			t.Errorf("IsTemp(%q) = %t", k, !temp)
		}
	}
}
