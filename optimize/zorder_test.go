package optimize_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/zorder"
	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

var zSchema = arrow.NewSchema([]arrow.Field{
	{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "y", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "p", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// zAppend appends one file (per partition) of n random rows; every 17th
// row has a null x.
func zAppend(t testing.TB, dir string, seed uint64, n int, opt deltalite.WriteOptions) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	b := array.NewRecordBuilder(memory.DefaultAllocator, zSchema)
	defer b.Release()
	for i := range n {
		if i%17 == 5 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(rng.Int64N(10_000))
		}
		b.Field(1).(*array.Int32Builder).Append(rng.Int32N(10_000))
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("row %d/%d %s", seed, i, strings.Repeat("z", rng.IntN(40))))
		b.Field(3).(*array.StringBuilder).Append([]string{"a", "b"}[i%2])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, _ := array.NewRecordReader(zSchema, []arrow.RecordBatch{rec})
	opt.Mode = deltalite.ModeAppend
	if _, err := deltalite.Write(context.Background(), dir, rr, opt); err != nil {
		t.Fatal(err)
	}
}

// checkZCurve asserts that the rows of every live file follow the z-curve
// of cols, and returns the files.
func checkZCurve(t *testing.T, dir string, cols ...string) []*protocol.Add {
	t.Helper()
	tb := open(t, dir)
	files := tb.Snapshot().Files()
	for _, a := range files {
		_, seq, err := tb.Scan(scan.WithFiles(a), scan.WithColumns(cols...)).Records(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var prev []byte
		for rec, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			keys, err := zorder.Keys(rec.Columns())
			if err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				if prev != nil && bytes.Compare(prev, k) > 0 {
					t.Fatalf("file %s: row %d is before the previous one on the z-curve", a.Path, i)
				}
				prev = k
			}
		}
	}
	return files
}

// TestZOrder: the rows stay the same, each file's rows follow the
// z-curve, the adds carry one z-cube's tags, and the commit records
// zOrderBy as Spark does.
func TestZOrder(t *testing.T) {
	dir := t.TempDir()
	for i := range 6 {
		zAppend(t, dir, uint64(i), 400, deltalite.WriteOptions{PartitionBy: []string{"p"}})
	}
	before := rows(t, dir)
	s := run(t, dir, optimize.Options{ZOrderBy: []string{"X", "y"}, TargetSize: 8 << 10})
	arrowrows.Diff(t, rows(t, dir), before)
	if s.Commits != 1 || s.FilesRemoved.TotalFiles != 12 || s.PartitionsOptimized != 2 || s.RowsRewritten != 2400 ||
		s.FilesAdded.TotalFiles < 4 || s.SpilledBytes != 0 {
		t.Fatalf("stats %s", s)
	}
	files := checkZCurve(t, dir, "x", "y")
	cubes := map[string]string{}
	for _, a := range files {
		if a.Tags[optimize.TagZOrderBy] != `["x","y"]` || a.Tags[optimize.TagZOrderCurve] != "zorder" || a.Tags[optimize.TagZCubeID] == "" {
			t.Fatalf("add %s tags %v", a.Path, a.Tags)
		}
		if c, ok := cubes[a.PartitionValues["p"]]; ok && c != a.Tags[optimize.TagZCubeID] {
			t.Fatalf("partition %s has two z-cubes", a.PartitionValues["p"])
		}
		cubes[a.PartitionValues["p"]] = a.Tags[optimize.TagZCubeID]
	}
	if len(cubes) != 2 || cubes["a"] == cubes["b"] {
		t.Fatalf("z-cubes %v: want one per partition", cubes)
	}
	acts := commitActions(t, dir, s.Version)
	ci := acts[0].CommitInfo
	if ci.Operation != "OPTIMIZE" || ci.OperationParameters["zOrderBy"] != `["x","y"]` {
		t.Fatalf("commitInfo %s %v", ci.Operation, ci.OperationParameters)
	}
	for _, a := range acts[1:] {
		if (a.Add != nil && a.Add.DataChange) || (a.Remove != nil && a.Remove.DataChange) {
			t.Fatalf("action with dataChange=true: %+v %+v", a.Add, a.Remove)
		}
	}
}

// TestZOrderIncremental: a second run finds nothing to do; after appends
// only the new files are z-ordered; Force z-orders all; other columns
// are another z-order.
func TestZOrderIncremental(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		zAppend(t, dir, uint64(i), 300, deltalite.WriteOptions{})
	}
	zo := optimize.Options{ZOrderBy: []string{"x", "y"}}
	s := run(t, dir, zo)
	if s.FilesRemoved.TotalFiles != 3 || s.FilesAdded.TotalFiles != 1 {
		t.Fatalf("first run %s", s)
	}
	v := s.Version
	if s = run(t, dir, zo); s.Commits != 0 || s.Version != v || s.SkippedFiles != 1 || s.ConsideredFiles != 1 {
		t.Fatalf("second run %s: want nothing to do", s)
	}
	zAppend(t, dir, 10, 300, deltalite.WriteOptions{})
	zAppend(t, dir, 11, 300, deltalite.WriteOptions{})
	before := rows(t, dir)
	old := open(t, dir).Snapshot().Files()
	s = run(t, dir, zo)
	if s.FilesRemoved.TotalFiles != 2 || s.SkippedFiles != 1 || s.RowsRewritten != 600 {
		t.Fatalf("run after appends %s: want the two new files only", s)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	kept := false
	for _, a := range open(t, dir).Snapshot().Files() {
		for _, o := range old {
			kept = kept || (a.Path == o.Path && o.Tags[optimize.TagZCubeID] != "")
		}
	}
	if !kept {
		t.Fatal("the earlier z-cube's file was rewritten")
	}
	if s = run(t, dir, optimize.Options{ZOrderBy: []string{"x", "y"}, Force: true}); s.FilesRemoved.TotalFiles != 2 || s.SkippedFiles != 0 {
		t.Fatalf("forced run %s: want every file", s)
	}
	if s = run(t, dir, optimize.Options{ZOrderBy: []string{"y"}}); s.FilesRemoved.TotalFiles != 1 || s.SkippedFiles != 0 {
		t.Fatalf("run by other columns %s: want every file", s)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	checkZCurve(t, dir, "y")
}

// TestZOrderBadColumns: partition columns, columns without statistics,
// unknown and unsupported columns are refused by name, and nothing is
// committed.
func TestZOrderBadColumns(t *testing.T) {
	dir := t.TempDir()
	zAppend(t, dir, 1, 50, deltalite.WriteOptions{PartitionBy: []string{"p"},
		Properties: map[string]string{protocol.PropDataSkippingNumIndexedCols: "1"}})
	zAppend(t, dir, 2, 50, deltalite.WriteOptions{})
	v := open(t, dir).Version()
	for cols, want := range map[string]string{
		"p":    `"p": it is a partition column`,
		"y":    `"y": the table collects no min/max statistics for it`,
		"x,x":  `"x": the column is named twice`,
		"nope": `"nope": no such column in the table (columns: x, y, name, p)`,
		"x, ":  "an empty column name",
	} {
		_, err := open(t, dir).Optimize(context.Background(), optimize.Options{ZOrderBy: strings.Split(cols, ",")})
		if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), want) {
			t.Errorf("z-order by %s: %v, want an invalid argument saying %s", cols, err, want)
		}
	}
	// An empty, non-nil list asks for a z-order by no column: refused, not
	// taken for a compaction.
	_, err := open(t, dir).Optimize(context.Background(), optimize.Options{ZOrderBy: []string{}})
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "the column list is empty") {
		t.Errorf("z-order by no column: %v", err)
	}
	if got := open(t, dir).Version(); got != v {
		t.Fatalf("version %d after refused z-orders, want %d", got, v)
	}
}

// TestZOrderPartitionTenTimesTheSortBudget: a partition of about ten
// times MaxSortBytes z-orders (spilling runs), keeps its rows, and
// leaves no temporary file.
func TestZOrderPartitionTenTimesTheSortBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and sorts ~10 MiB")
	}
	dir, tmp := t.TempDir(), t.TempDir()
	for i := range 10 {
		zAppend(t, dir, uint64(i), 12_000, deltalite.WriteOptions{})
	}
	before := rows(t, dir)
	s := run(t, dir, optimize.Options{ZOrderBy: []string{"x", "y"}, MaxSortBytes: 1 << 20, TempDir: tmp, MaxBufferedBytes: 4 << 20})
	if s.RowsRewritten != 120_000 || s.FilesRemoved.TotalFiles != 10 || s.SpilledBytes < 10<<20 {
		t.Fatalf("stats %s, spilled %d: want every row sorted through ten times the budget in runs", s, s.SpilledBytes)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	checkZCurve(t, dir, "x", "y")
	ents, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("temporary file left: %s", e.Name())
	}
	t.Logf("%s; spilled %d bytes", s, s.SpilledBytes)
}

// TestZOrderSkipsFiles measures what z-order is for: a scan with a range
// predicate on a z-ordered column reads fewer files after than before.
func TestZOrderSkipsFiles(t *testing.T) {
	dir := t.TempDir()
	for i := range 16 {
		zAppend(t, dir, uint64(100+i), 1000, deltalite.WriteOptions{})
	}
	const where = "x >= 2000 AND x < 2500"
	read := func() (int, int) { return filesRead(t, dir, where) }
	readBefore, _ := read()
	var total int64
	for _, a := range open(t, dir).Snapshot().Files() {
		total += a.Size
	}
	s := run(t, dir, optimize.Options{ZOrderBy: []string{"x", "y"}, TargetSize: total / 16})
	readAfter, skippedAfter := read()
	t.Logf("files read for %q: %d of 16 before, %d of %d after z-order by (x, y)", where, readBefore, readAfter, readAfter+skippedAfter)
	if readBefore != 16 || s.FilesAdded.TotalFiles < 8 || readAfter*2 > readAfter+skippedAfter {
		t.Fatalf("read %d files before, %d of %d after (%s): want fewer than half after", readBefore, readAfter, readAfter+skippedAfter, s)
	}
	// By x alone the rows are sorted by x: the range is in one or two files.
	run(t, dir, optimize.Options{ZOrderBy: []string{"x"}, TargetSize: total / 16})
	readX, skippedX := read()
	t.Logf("files read for %q: %d of %d after z-order by x", where, readX, readX+skippedX)
	if readX > 3 || readX > readAfter {
		t.Fatalf("read %d of %d files after z-order by x: want at most 3", readX, readX+skippedX)
	}
}

// TestZOrderCorpusTables: z-order drops rows deletion vectors hid and
// reads physical names under column mapping, keeping the rows.
func TestZOrderCorpusTables(t *testing.T) {
	for _, rel := range []string{"dat/deletion_vectors/delta", "dat/column_mapping/delta"} {
		t.Run(rel, func(t *testing.T) {
			dir := copyCorpus(t, rel)
			before := rows(t, dir)
			s := run(t, dir, optimize.Options{ZOrderBy: []string{"letter"}})
			if s.Commits != 1 || s.FilesAdded.TotalFiles == 0 {
				t.Fatalf("stats %s", s)
			}
			arrowrows.Diff(t, rows(t, dir), before)
			for _, a := range checkZCurve(t, dir, "letter") {
				if a.DeletionVector != nil || a.Tags[optimize.TagZOrderBy] != `["letter"]` {
					t.Fatalf("file %s: deletion vector %v, tags %v", a.Path, a.DeletionVector, a.Tags)
				}
			}
		})
	}
}

// filesRead counts the files a scan with the predicate reads and skips.
func filesRead(t *testing.T, dir, where string) (read, skipped int) {
	t.Helper()
	e, err := open(t, dir).Scan(scan.WithWhere(where)).Explain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(e.Files), len(e.Skipped)
}
