package optimize_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// dvTable writes a table with deletion vectors on, partitioned by p: per
// partition, one file of ten rows per entry of files, then deletes del.
func dvTable(t *testing.T, files map[string]int, del string) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	id := 0
	for _, p := range []string{"a", "b", "c"} {
		for range files[p] {
			var b strings.Builder
			for i := range 10 {
				id++
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `{"id":%d,"s":"row %d","p":"%s","q":%d}`, id, id, p, id%3)
			}
			rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, testSchema, strings.NewReader("["+b.String()+"]"))
			if err != nil {
				t.Fatal(err)
			}
			rr, _ := array.NewRecordReader(testSchema, []arrow.RecordBatch{rec})
			_, err = deltalite.Write(ctx, dir, rr, deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"p"},
				Properties: map[string]string{protocol.PropEnableDeletionVectors: "true"}})
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := open(t, dir).Delete(ctx, deltalite.DeleteOptions{Predicate: del}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// dvShares maps each live file to the share of its rows its vector hides.
func dvShares(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, a := range open(t, dir).Snapshot().Files() {
		out[a.Path] = 0
		if a.DeletionVector != nil {
			out[a.Path] = float64(a.DeletionVector.Cardinality) / 10
		}
	}
	return out
}

// TestPurgeDeletionVectors: a purge rewrites exactly the files with a
// deletion vector (above the threshold when one is given), a single file
// and a file over the target size included, leaves the others under their
// paths, keeps the rows, and commits Spark's REORG with dataChange=false.
func TestPurgeDeletionVectors(t *testing.T) {
	// Files 1-10, 11-20, 21-30 in a; 31-40 in b; 41-50 in c. Deleted:
	// 7 rows of the first file, 1 of the second, 3 of b's; c's none.
	del := "id <= 7 OR id = 15 OR id IN (31, 32, 33)"
	dir := dvTable(t, map[string]int{"a": 3, "b": 1, "c": 1}, del)
	before := rows(t, dir)
	shares := dvShares(t, dir)
	var withDV []string
	for p, s := range shares {
		if s > 0 {
			withDV = append(withDV, p)
		}
	}
	if len(withDV) != 3 {
		t.Fatalf("shares %v: want 3 files with a deletion vector", shares)
	}

	// Above a threshold of 0.25: the files with 0.7 and 0.3 of their rows
	// deleted go, the one with 0.1 stays with its vector.
	s := run(t, dir, optimize.Options{PurgeDeletionVectors: true, PurgeMinDeletedRatio: 0.25})
	if s.FilesRemoved.TotalFiles != 2 || s.FilesAdded.TotalFiles != 2 || s.RowsDropped != 10 || s.ConsideredFiles != 5 || s.SkippedFiles != 3 {
		t.Fatalf("purge above 0.25: %s", s)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	after := dvShares(t, dir)
	for p, share := range shares {
		_, kept := after[p]
		if kept != (share <= 0.25) {
			t.Fatalf("file %s with share %v: kept %v", p, share, kept)
		}
	}
	tb := open(t, dir)
	ci := commitActions(t, dir, tb.Version())
	if op := ci[0].CommitInfo; op.Operation != "REORG" || op.OperationParameters["applyPurge"] != "true" || op.OperationParameters["predicate"] != "[]" {
		t.Fatalf("commitInfo %s %v, want Spark's REORG with applyPurge", op.Operation, op.OperationParameters)
	}
	for _, a := range ci[1:] {
		if (a.Add != nil && (a.Add.DataChange || a.Add.DeletionVector != nil)) || (a.Remove != nil && (a.Remove.DataChange || a.Remove.DeletionVector == nil)) {
			t.Fatalf("purge action %+v: want dataChange=false, removes with their vectors, adds without", a)
		}
	}

	// Without a threshold: the last file with a vector goes, alone in its
	// bin and bigger than the target; the files without one stay.
	s = run(t, dir, optimize.Options{PurgeDeletionVectors: true, TargetFileSize: 100})
	if s.FilesRemoved.TotalFiles != 1 || s.FilesAdded.TotalFiles < 1 || s.RowsDropped != 1 || s.RowsRewritten != 9 {
		t.Fatalf("purge of the rest: %s", s)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	final := dvShares(t, dir)
	for p, share := range after {
		if _, kept := final[p]; kept != (share == 0) {
			t.Fatalf("file %s with share %v: kept %v", p, share, kept)
		}
	}
	for p, share := range final {
		if share != 0 {
			t.Fatalf("file %s keeps a deletion vector", p)
		}
	}
	// Nothing left to purge: no commit.
	v := open(t, dir).Version()
	if s := run(t, dir, optimize.Options{PurgeDeletionVectors: true}); s.Commits != 0 || open(t, dir).Version() != v {
		t.Fatalf("a purge with nothing to do committed: %s", s)
	}
}

// TestPurgePacksAndSelects: small files with vectors of one partition are
// packed together; a predicate limits the purge to its partitions.
func TestPurgePacksAndSelects(t *testing.T) {
	dir := dvTable(t, map[string]int{"a": 3, "b": 2}, "id % 10 = 1")
	before := rows(t, dir)
	s := run(t, dir, optimize.Options{PurgeDeletionVectors: true, Predicate: "p = 'a'"})
	if s.FilesRemoved.TotalFiles != 3 || s.FilesAdded.TotalFiles != 1 || s.RowsDropped != 3 || s.SkippedFiles != 0 {
		t.Fatalf("purge of partition a: %s", s)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	var leftB int
	for _, a := range open(t, dir).Snapshot().Files() {
		if a.DeletionVector != nil {
			if a.PartitionValues["p"] != "b" {
				t.Fatalf("%s keeps its vector", a.Path)
			}
			leftB++
		}
	}
	if leftB != 2 {
		t.Fatalf("partition b's vectors: %d left, want 2", leftB)
	}
	ci := commitActions(t, dir, open(t, dir).Version())[0].CommitInfo
	if ci.OperationParameters["predicate"] != `["p = 'a'"]` {
		t.Fatalf("predicate parameter %v", ci.OperationParameters["predicate"])
	}
}

func TestPurgeBadOptions(t *testing.T) {
	dir := dvTable(t, map[string]int{"a": 1}, "id = 1")
	v := open(t, dir).Version()
	for _, c := range []struct {
		opt  optimize.Options
		want string
	}{
		{optimize.Options{PurgeDeletionVectors: true, PurgeMinDeletedRatio: -0.1}, "PurgeMinDeletedRatio is -0.1"},
		{optimize.Options{PurgeDeletionVectors: true, PurgeMinDeletedRatio: 1}, "below 1"},
		{optimize.Options{PurgeDeletionVectors: true, PurgeMinDeletedRatio: math.NaN()}, "PurgeMinDeletedRatio is NaN"},
		{optimize.Options{PurgeMinDeletedRatio: 0.5}, "set PurgeDeletionVectors too"},
		{optimize.Options{PurgeDeletionVectors: true, ZOrderBy: []string{"id"}}, "exclude each other"},
	} {
		_, err := open(t, dir).Optimize(context.Background(), c.opt)
		if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: want an invalid-argument error saying %q, got %v", c.opt, c.want, err)
		}
	}
	if open(t, dir).Version() != v || !slices.ContainsFunc(open(t, dir).Snapshot().Files(), func(a *protocol.Add) bool { return a.DeletionVector != nil }) {
		t.Fatal("a refused purge changed the table")
	}
}
