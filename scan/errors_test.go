package scan

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// withPath returns src with its first file's path replaced.
func withPath(src Source, path string) *altered {
	files := src.Files()
	first := *files[0]
	first.Path = path
	return &altered{Source: src, files: append([]*protocol.Add{&first}, files[1:]...)}
}

// drain reads a whole scan and returns its first error.
func readAll(s *Scan) error {
	_, seq, err := s.Records(context.Background())
	if err != nil {
		return err
	}
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestMissingDataFile(t *testing.T) {
	src := openTable(t, "dat/basic_append/delta")
	missing := withPath(src, "part-00000-gone.snappy.parquet")
	err := readAll(New(missing))
	if !errors.Is(err, errs.ErrNotFound) || !strings.Contains(err.Error(), "part-00000-gone.snappy.parquet") ||
		!strings.Contains(err.Error(), "likely removed by VACUUM") {
		t.Fatalf("error %v, want not found naming the file and the likely vacuum", err)
	}
	// Planning does not touch data files: the plan still lists it.
	if plan, err := New(missing).Plan(context.Background()); err != nil || len(plan) != 2 {
		t.Fatalf("plan: %d files, %v", len(plan), err)
	}
}

func TestHostilePaths(t *testing.T) {
	src := openTable(t, "dat/basic_append/delta")
	for _, p := range []string{
		"../../etc/passwd",
		"a/../../outside.parquet",
		"%2E%2E/%2E%2E/etc/passwd", // encoded ../
		"/etc/passwd",
		"file:///etc/passwd",
		"s3://bucket/table/part-0.parquet",
		"file:" + filepath.ToSlash(filepath.Dir(src.Store().(*storage.Local).Root())) + "/other/part.parquet",
	} {
		_, err := New(withPath(src, p)).Plan(context.Background())
		if !errors.Is(err, errs.ErrCorruptTable) || !strings.Contains(err.Error(), p) {
			t.Errorf("path %q: error %v, want corrupt table naming the path", p, err)
		}
	}
}

func TestAbsolutePathInsideTable(t *testing.T) {
	src := openTable(t, "dat/basic_append/delta")
	rel := src.Files()[0].Path
	root := src.Store().(*storage.Local).Root()
	abs := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(root, rel))}).String()
	for _, p := range []string{abs, strings.Replace(abs, "file://", "file:", 1)} {
		plan, err := New(withPath(src, p)).Plan(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if plan[0].Key != rel {
			t.Errorf("%s: key %q, want %q", p, plan[0].Key, rel)
		}
	}
	if got := readRows(t, withPath(src, abs)); len(got) != 5 {
		t.Errorf("%d rows through an absolute path, want 5", len(got))
	}
}

func TestCorruptDataFile(t *testing.T) {
	src := openTable(t, "dat/basic_append/delta")
	// A copy of the table whose first data file is not Parquet.
	dir := t.TempDir()
	root := src.Store().(*storage.Local).Root()
	if err := os.CopyFS(dir, os.DirFS(root)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, filepath.FromSlash(src.Files()[0].Path))
	if err := os.Chmod(name, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte("this is not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = readAll(New(&altered{Source: src, store: st}))
	if !errors.Is(err, errs.ErrCorruptTable) || !strings.Contains(err.Error(), src.Files()[0].Path) {
		t.Fatalf("error %v, want corrupt table naming the file", err)
	}
}

func TestCorruptPartitionValue(t *testing.T) {
	src := openTable(t, "dat/multi_partitioned_2/delta")
	files := src.Files()
	bad := *files[0]
	bad.PartitionValues = map[string]string{"bool": "maybe", "time": "1970-01-01 00:00:00", "amount": "1"}
	alt := &altered{Source: src, files: []*protocol.Add{&bad}}
	if err := readAll(New(alt)); !errors.Is(err, errs.ErrCorruptTable) || !strings.Contains(err.Error(), "bool") {
		t.Errorf("read: %v", err)
	}
	if _, err := New(alt, WithFilters(mustFilter(t, "bool", "=", "true"))).Plan(context.Background()); !errors.Is(err, errs.ErrCorruptTable) {
		t.Errorf("plan: %v", err)
	}
}
