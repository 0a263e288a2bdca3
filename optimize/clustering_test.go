package optimize_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// clusteredTable is a table clustered by (x, y) of n appends of 1000 rows.
func clusteredTable(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		zAppend(t, dir, uint64(200+i), 1000, deltalite.WriteOptions{ClusterBy: []string{"x", "y"}})
	}
	return dir
}

func totalSize(files []*protocol.Add) int64 {
	var n int64
	for _, a := range files {
		n += a.Size
	}
	return n
}

// TestClusteringOptimize: OPTIMIZE of a clustered table clusters by its
// clustering columns without being told them: same rows, each file along
// the z-curve of (x, y), one z-cube tagged as Spark tags clustered files,
// commitInfo with Spark's clusterBy and isFull; a range predicate on a
// clustering column then reads fewer than half the files.
func TestClusteringOptimize(t *testing.T) {
	dir := clusteredTable(t, 16)
	before := rows(t, dir)
	const where = "x >= 2000 AND x < 2500"
	read := func() (int, int) { return filesRead(t, dir, where) }
	readBefore, _ := read()
	s := run(t, dir, optimize.Options{TargetSize: totalSize(open(t, dir).Snapshot().Files()) / 16})
	arrowrows.Diff(t, rows(t, dir), before)
	if s.Commits != 1 || s.FilesRemoved.TotalFiles != 16 || s.FilesAdded.TotalFiles < 8 {
		t.Fatalf("stats %s", s)
	}
	files := checkZCurve(t, dir, "x", "y")
	cube := files[0].Tags[optimize.TagZCubeID]
	for _, a := range files {
		if a.ClusteringProvider == nil || *a.ClusteringProvider != "liquid" || a.Tags[optimize.TagZOrderBy] != `["x","y"]` || a.Tags[optimize.TagZCubeID] != cube || cube == "" {
			t.Fatalf("add %s: provider %v, tags %v: want liquid, one z-cube by [x,y]", a.Path, a.ClusteringProvider, a.Tags)
		}
	}
	ci := commitActions(t, dir, s.Version)[0].CommitInfo
	if p := ci.OperationParameters; ci.Operation != "OPTIMIZE" || p["clusterBy"] != `["x","y"]` || p["zOrderBy"] != "[]" || p["isFull"] != "false" {
		t.Fatalf("commitInfo %s %v", ci.Operation, ci.OperationParameters)
	}
	readAfter, skippedAfter := read()
	t.Logf("files read for %q: %d of 16 before, %d of %d after clustering by (x, y)", where, readBefore, readAfter, readAfter+skippedAfter)
	if readBefore != 16 || readAfter*2 > readAfter+skippedAfter {
		t.Fatalf("read %d files before, %d of %d after: want fewer than half after", readBefore, readAfter, readAfter+skippedAfter)
	}
}

// TestClusteringIncremental: after appends, OPTIMIZE clusters only the
// appended files (rewriting at most 1.2x their bytes), leaving the earlier
// z-cube; with nothing new it commits nothing; Full reclusters every file.
func TestClusteringIncremental(t *testing.T) {
	dir := clusteredTable(t, 6)
	if s := run(t, dir, optimize.Options{}); s.FilesRemoved.TotalFiles != 6 {
		t.Fatalf("first run %s", s)
	}
	old := open(t, dir).Snapshot().Files()
	for i := range 3 {
		zAppend(t, dir, uint64(300+i), 1000, deltalite.WriteOptions{})
	}
	var appended int64
	for _, a := range open(t, dir).Snapshot().Files() {
		if a.Tags[optimize.TagZCubeID] == "" {
			appended += a.Size
		}
	}
	before := rows(t, dir)
	s := run(t, dir, optimize.Options{})
	t.Logf("second OPTIMIZE rewrote %d bytes for %d appended", s.FilesRemoved.TotalSize, appended)
	if s.FilesRemoved.TotalFiles != 3 || s.SkippedFiles != len(old) || float64(s.FilesRemoved.TotalSize) > 1.2*float64(appended) {
		t.Fatalf("run after appends %s: want the 3 appended files only (%d bytes)", s, appended)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	live := map[string]bool{}
	for _, a := range open(t, dir).Snapshot().Files() {
		live[a.Path] = true
	}
	for _, a := range old {
		if !live[a.Path] {
			t.Fatalf("the earlier z-cube's file %s was rewritten", a.Path)
		}
	}
	v := s.Version
	if s = run(t, dir, optimize.Options{}); s.Commits != 0 || s.Version != v {
		t.Fatalf("run with nothing new %s: want no commit", s)
	}
	n := len(open(t, dir).Snapshot().Files())
	if s = run(t, dir, optimize.Options{Full: true}); s.FilesRemoved.TotalFiles != n || s.SkippedFiles != 0 {
		t.Fatalf("full run %s: want all %d files", s, n)
	}
	if p := commitActions(t, dir, s.Version)[0].CommitInfo.OperationParameters; p["isFull"] != "true" {
		t.Fatalf("full run's parameters %v", p)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	checkZCurve(t, dir, "x", "y")
}

// TestClusteringRefusals: ZORDER BY and partition predicates on a
// clustered table, and FULL on a table that is not clustered, are refused
// as Spark refuses them, committing nothing.
func TestClusteringRefusals(t *testing.T) {
	dir := clusteredTable(t, 2)
	plain := t.TempDir()
	zAppend(t, plain, 1, 100, deltalite.WriteOptions{})
	for _, c := range []struct {
		dir  string
		opt  optimize.Options
		want string
	}{
		{dir, optimize.Options{ZOrderBy: []string{"x"}}, "cannot z-order by (x): it clusters by its clustering columns (x, y)"},
		{dir, optimize.Options{Predicate: "p = 'a'"}, "takes no partition predicate"},
		{plain, optimize.Options{Full: true}, "only for clustered tables"},
	} {
		v := open(t, c.dir).Version()
		_, err := open(t, c.dir).Optimize(context.Background(), c.opt)
		if !errors.Is(err, deltalite.ErrInvalidArgument) || !contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want invalid argument with %q", c.opt, err, c.want)
		}
		if open(t, c.dir).Version() != v {
			t.Errorf("%+v committed", c.opt)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
