package merge

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// parquetFiles counts the data files under dir.
func parquetFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A merge planned on a table another merge has since rewritten plans again
// on top and lands both changes; without retries the conflict surfaces and
// its files go; a replan that finds its own app transaction committed is
// skipped.
func TestRunReplansAfterConcurrentMerge(t *testing.T) {
	dir, stale := newTable(t, partSchema, []string{"day"}, day1)
	upsert := func(rows string, opt Options) (Stats, error) {
		opt.Predicate, opt.MergeType = "t.id = s.id AND t.day = s.day", TypeUpsert
		s, _, err := Run(context.Background(), stale, reader(t, partSchema, rows), opt)
		return s, err
	}
	if _, err := upsert(`[{"id":2,"v":"B","day":"d1"}]`, Options{}); err != nil {
		t.Fatal(err)
	}
	s, err := upsert(`[{"id":3,"v":"C","day":"d1"}]`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != stale.Version()+2 || s.TargetRowsUpdated != 1 || s.Skipped {
		t.Fatalf("replanned merge: %+v", s)
	}
	post, err := stale.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := contents(t, post), sorted("1|a|d1", "2|B|d1", "3|C|d1"); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}

	files := parquetFiles(t, dir)
	_, err = upsert(`[{"id":1,"v":"A","day":"d1"}]`, Options{CommitMaxRetries: -1})
	if !errors.Is(err, errs.ErrCommitConflict) {
		t.Fatalf("stale merge without retries: %v", err)
	}
	if n := parquetFiles(t, dir); n != files {
		t.Fatalf("the conflicting merge left %d data files", n-files)
	}

	stale = post
	app := Options{AppID: "loader", AppVersion: 7}
	if _, err := upsert(`[{"id":1,"v":"first","day":"d1"}]`, app); err != nil {
		t.Fatal(err)
	}
	s, err = upsert(`[{"id":1,"v":"again","day":"d1"}]`, app)
	if err != nil || !s.Skipped || s.Version != post.Version()+1 {
		t.Fatalf("replan onto its own app transaction: %+v, %v", s, err)
	}
	if post, err = post.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := contents(t, post), sorted("1|first|d1", "2|B|d1", "3|C|d1"); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}
