package storage

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// syncedDirs opens a local store at a table root that does not exist yet
// and records the directories it fsyncs, relative to the root's parent.
func syncedDirs(t *testing.T, o LocalOptions) (*Local, func() []string) {
	t.Helper()
	parent := t.TempDir()
	l, err := NewLocalWith(filepath.Join(parent, "t"), o)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	l.syncDir = func(dir string) error {
		rel, err := filepath.Rel(parent, dir)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		got = append(got, filepath.ToSlash(rel))
		mu.Unlock()
		return syncFile(dir)
	}
	return l, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(got)
		got = nil
		slices.Sort(out)
		return out
	}
}

// TestLocalSyncsNewDirectories: a power loss must not drop a committed
// partition's directory, so each directory the store created for a file is
// synced in its parent, up to the table root and above it when the root
// was new, before the commit; the commit's own directories always are.
func TestLocalSyncsNewDirectories(t *testing.T) {
	ctx := t.Context()
	put := func(t *testing.T, l *Local, key string) {
		t.Helper()
		if err := l.Put(ctx, key, strings.NewReader("data")); err != nil {
			t.Fatal(err)
		}
	}
	want := func(t *testing.T, what string, got []string, want ...string) {
		t.Helper()
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s synced directories %q, want %q", what, got, want)
		}
	}

	t.Run("all", func(t *testing.T) {
		l, synced := syncedDirs(t, LocalOptions{})
		put(t, l, "a=1/b=2/f1.parquet")
		put(t, l, "a=1/b=2/f2.parquet")
		put(t, l, "a=1/b=3/f3.parquet")
		want(t, "Put", synced())
		if err := l.Sync(ctx, "a=1/b=2/f1.parquet", "a=1/b=2/f2.parquet"); err != nil {
			t.Fatal(err)
		}
		// b=2 holds the files, a=1 holds b=2, t holds a=1, and the
		// temporary directory holds the new root t.
		want(t, "Sync", synced(), "t/a=1/b=2", "t/a=1", "t", ".")
		if err := l.Sync(ctx, "a=1/b=3/f3.parquet"); err != nil {
			t.Fatal(err)
		}
		want(t, "Sync of a second partition", synced(), "t/a=1/b=3", "t/a=1")
		if err := l.Sync(ctx, "a=1/b=2/f1.parquet"); err != nil {
			t.Fatal(err)
		}
		want(t, "a second Sync of a file", synced(), "t/a=1/b=2")
		if err := l.PutIfAbsent(ctx, "_delta_log/00000000000000000000.json", []byte("{}")); err != nil {
			t.Fatal(err)
		}
		want(t, "the first commit", synced(), "t/_delta_log", "t")
	})

	t.Run("log", func(t *testing.T) {
		l, synced := syncedDirs(t, LocalOptions{SyncLogOnly: true})
		put(t, l, "a=1/f1.parquet")
		if err := l.Sync(ctx, "a=1/f1.parquet"); err != nil {
			t.Fatal(err)
		}
		want(t, "Sync under local_fsync=log", synced())
		// The data Put created the root: the commit makes its entry durable
		// with the log directory's, leaving the data directory to the OS.
		if err := l.PutIfAbsent(ctx, "_delta_log/00000000000000000000.json", []byte("{}")); err != nil {
			t.Fatal(err)
		}
		want(t, "the first commit under local_fsync=log", synced(), "t/_delta_log", "t", ".")
	})
}
