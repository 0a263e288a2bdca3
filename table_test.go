package deltalite_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

func TestOpenAndScan(t *testing.T) {
	ctx := context.Background()
	tb, err := deltalite.Open(ctx, "testdata/tables/delta-0.8.0-partitioned")
	if err != nil {
		t.Fatal(err)
	}
	if tb.Version() != 0 || strings.Join(tb.PartitionColumns(), ",") != "year,month,day" {
		t.Fatalf("version %d, partitions %v", tb.Version(), tb.PartitionColumns())
	}
	sc, err := tb.Schema()
	if err != nil || sc.NumFields() != 4 || sc.Field(0).Name != "value" {
		t.Fatalf("schema %v, %v", sc, err)
	}
	uris := tb.FileURIs()
	if len(uris) != 6 || !strings.HasPrefix(uris[0], "file:///") || !strings.Contains(uris[0], "/year=") {
		t.Fatalf("file URIs %v", uris)
	}
	f, err := scan.NewFilter("year", "=", "2020")
	if err != nil {
		t.Fatal(err)
	}
	rr, err := tb.Scan(scan.WithColumns("value", "month"), scan.WithFilters(f)).RecordReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows []string
	for rr.Next() {
		rows = append(rows, arrowrows.Rows(rr.RecordBatch())...)
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{`month="1", value="1"`, `month="2", value="2"`, `month="2", value="3"`}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Fatalf("rows %q, want %q", rows, want)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := deltalite.Open(ctx, t.TempDir()); !errors.Is(err, deltalite.ErrTableNotFound) {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := deltalite.Open(ctx, "nosuch://x/y"); !errors.Is(err, deltalite.ErrInvalidArgument) {
		t.Errorf("unknown scheme: %v", err)
	}
	if _, err := deltalite.Open(ctx, "testdata/tables/delta-0.8.0-partitioned", deltalite.WithVersion(3)); !errors.Is(err, deltalite.ErrNotFound) {
		t.Errorf("missing version: %v", err)
	}
	if ok, err := deltalite.IsDeltaTable(ctx, t.TempDir()); ok || err != nil {
		t.Errorf("IsDeltaTable(empty) = %v, %v", ok, err)
	}
	if ok, err := deltalite.IsDeltaTable(ctx, "testdata/tables/delta-0.8.0-partitioned"); !ok || err != nil {
		t.Errorf("IsDeltaTable(table) = %v, %v", ok, err)
	}
}

// A hostile add path, a corrupt commit and a missing data file each give a
// clear error naming the file.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	src := corpus.Path(t, "delta-rs/simple_table")
	cases := []struct {
		name   string
		mutate func(dir string) error
		kind   error
		text   string
	}{
		{"corrupt commit", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "_delta_log", "00000000000000000004.json"), []byte("{\"add\":{\"path\":"), 0o644)
		}, deltalite.ErrCorruptTable, "00000000000000000004.json"},
		{"path outside the root", func(dir string) error {
			return appendLine(filepath.Join(dir, "_delta_log", "00000000000000000004.json"),
				`{"add":{"path":"../../etc/passwd","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}`)
		}, deltalite.ErrCorruptTable, "../../etc/passwd"},
		{"missing data file", func(dir string) error {
			return os.Remove(filepath.Join(dir, "part-00000-2befed33-c358-4768-a43c-3eda0d2a499d-c000.snappy.parquet"))
		}, deltalite.ErrNotFound, "part-00000-2befed33-c358-4768-a43c-3eda0d2a499d-c000.snappy.parquet"},
	}
	for _, c := range cases {
		dir := copyDir(t, src)
		if err := c.mutate(dir); err != nil {
			t.Fatal(err)
		}
		err := openAndRead(ctx, dir)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v, want %v naming %q", c.name, err, c.kind, c.text)
		}
	}
}

func openAndRead(ctx context.Context, dir string) error {
	tb, err := deltalite.Open(ctx, dir)
	if err != nil {
		return err
	}
	_, batches, err := tb.Scan().Records(ctx)
	if err != nil {
		return err
	}
	for _, err := range batches {
		if err != nil {
			return err
		}
	}
	return nil
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(line + "\n")
	return err
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestReloadAndSummary(t *testing.T) {
	ctx := context.Background()
	dir := copyDir(t, corpus.Path(t, "delta-rs/simple_table"))
	tb, err := deltalite.Open(ctx, dir, deltalite.WithVersion(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Reload(ctx); err != nil || tb.Version() != 4 {
		t.Fatalf("reload: v%d, %v", tb.Version(), err)
	}
	s := tb.Summary()
	if s.NumFiles != 5 || s.Protocol != "r1/w2" || s.NumRows != nil { // simple_table has no statistics
		t.Fatalf("summary %+v", s)
	}
	withStats, err := deltalite.Open(ctx, corpus.Path(t, "dat/basic_append/delta"))
	if err != nil {
		t.Fatal(err)
	}
	if n := withStats.Summary().NumRows; n == nil || *n != 5 {
		t.Fatalf("rows from statistics: %v, want 5", n)
	}
	h, err := tb.History(ctx, 0)
	if err != nil || len(h) != 5 || h[0].Info.Operation != "DELETE" || h[4].Info.Operation != "WRITE" {
		t.Fatalf("history %+v, %v", h, err)
	}
}

func TestKindOf(t *testing.T) {
	if k, ok := deltalite.KindOf(nil); ok || k != 0 {
		t.Errorf("nil: %v, %v", k, ok)
	}
	if k, ok := deltalite.KindOf(fmt.Errorf("opening: %w", deltalite.ErrTableNotFound)); !ok || k != deltalite.ErrTableNotFound.Kind {
		t.Errorf("wrapped: %v, %v", k, ok)
	}
	if k, ok := deltalite.KindOf(io.EOF); !ok || k != deltalite.ErrInternal.Kind {
		t.Errorf("foreign: %v, %v", k, ok)
	}
}

// Code built on the module (the integration modules) makes errors callers
// match like the module's own, with credentials redacted.
func TestNewError(t *testing.T) {
	err := deltalite.NewError(deltalite.ErrInvalidArgument, "s3://key:secret@b/t", "mode %q", "upsert")
	if !errors.Is(err, deltalite.ErrInvalidArgument) || err.Error() != `invalid argument: s3://[REDACTED]@b/t: mode "upsert"` {
		t.Errorf("NewError: %v", err)
	}
	wrapped := deltalite.WrapError(deltalite.ErrInternal, "t", err, "writing")
	if !errors.Is(wrapped, deltalite.ErrInvalidArgument) || wrapped.Error() != `invalid argument: t: writing: s3://[REDACTED]@b/t: mode "upsert"` {
		t.Errorf("WrapError keeps the inner kind: %v", wrapped)
	}
	if err := deltalite.WrapError(deltalite.ErrInternal, "t", context.Canceled, "writing"); !errors.Is(err, deltalite.ErrCanceled) {
		t.Errorf("WrapError of a canceled context: %v", err)
	}
	if deltalite.WrapError(deltalite.ErrInternal, "", nil, "x") != nil {
		t.Error("WrapError(nil) is not nil")
	}
	if got := deltalite.RedactURL("see az://user:pw1234@acct/c"); got != "see az://[REDACTED]@acct/c" {
		t.Errorf("RedactURL: %s", got)
	}
}
