package optimize_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// removals counts, over the whole log, how often each path was removed.
func removals(t testing.TB, dir string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for v := int64(0); ; v++ {
		if _, err := os.Stat(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", v))); err != nil {
			return out
		}
		for _, a := range commitActions(t, dir, v) {
			if a.Remove != nil {
				out[a.Remove.Path]++
			}
		}
	}
}

func removedOnce(t testing.TB, dir string) {
	t.Helper()
	for p, n := range removals(t, dir) {
		if n != 1 {
			t.Fatalf("%s removed %d times", p, n)
		}
	}
}

// withoutPartition drops the rows of partition p.
func withoutPartition(rows []string, p string) []string {
	return slices.DeleteFunc(slices.Clone(rows), func(r string) bool { return strings.Contains(r, `p="`+p+`"`) })
}

// TestAppendsDuringOptimizeLand: appends committed by another Table after
// the compaction planned and wrote its files, before it commits, do not
// conflict with it and all land.
func TestAppendsDuringOptimizeLand(t *testing.T) {
	dir := smallFiles(t, map[string]int{"a": 3, "b": 3})
	before := rows(t, dir)
	other := open(t, dir)
	appended := false
	s, err := open(t, dir).Optimize(context.Background(), optimize.Options{MaxConcurrentTasks: 1,
		Progress: func(p optimize.Progress) {
			if p.BinsDone == 1 {
				for i := range 3 {
					appendRows(t, other.URI(), fmt.Sprintf(`[{"id":%d,"s":"new","p":"a","q":0},{"id":%d,"s":"new","p":"c","q":0}]`, 100+i, 200+i), "p")
				}
				appended = true
			}
		}})
	if err != nil || !appended || s.Commits != 1 || s.FilesRemoved.TotalFiles != 6 {
		t.Fatalf("optimize with appends meanwhile: %v %s", err, s)
	}
	if s.Version != 9 {
		t.Fatalf("optimize committed version %d, want 9 after the appends' 6..8", s.Version)
	}
	want := slices.Clone(before)
	for i := range 3 {
		want = append(want, fmt.Sprintf(`id=%d, p="a", q=0, s="new"`, 100+i), fmt.Sprintf(`id=%d, p="c", q=0, s="new"`, 200+i))
	}
	slices.Sort(want)
	arrowrows.Diff(t, rows(t, dir), want)
	removedOnce(t, dir)
}

// TestDeleteDuringOptimize: a DELETE that removes a file the compaction
// is rewriting commits first; the compaction then conflicts. Without
// retries it fails and the delete's removal is the only one; with them it
// plans again on the newer table and never brings the deleted rows back.
func TestDeleteDuringOptimize(t *testing.T) {
	for _, retries := range []int{-1, 0} {
		t.Run(fmt.Sprint("retries=", retries), func(t *testing.T) {
			dir := smallFiles(t, map[string]int{"a": 3, "b": 3})
			want := withoutPartition(rows(t, dir), "a")
			other := open(t, dir)
			deleted := false
			s, err := open(t, dir).Optimize(context.Background(), optimize.Options{CommitMaxRetries: retries,
				Progress: func(p optimize.Progress) {
					if p.BinsDone == p.Bins && !deleted {
						deleted = true
						if st, err := other.Delete(context.Background(), deltalite.DeleteOptions{Predicate: "p = 'a'"}); err != nil || st.RowsDeleted != 3 {
							t.Errorf("delete: %v %s", err, st)
						}
					}
				}})
			if retries < 0 {
				if !errors.Is(err, deltalite.ErrCommitConflict) || !strings.Contains(err.Error(), "removed") {
					t.Fatalf("optimize after a delete of its files: %v %s", err, s)
				}
				if v := open(t, dir).Version(); v != 6 {
					t.Fatalf("version %d, want the delete's 6 only", v)
				}
			} else if err != nil || s.Commits != 1 || s.FilesRemoved.TotalFiles != 3 || s.Version != 7 {
				// Planned again: only partition b's files remain to compact.
				t.Fatalf("optimize planned again: %v %s", err, s)
			}
			arrowrows.Diff(t, rows(t, dir), want)
			removedOnce(t, dir)
		})
	}
}

// TestDeleteRacesOptimize: a DELETE and an OPTIMIZE of the same files run
// at once, from separate Tables; whichever commits second conflicts and
// plans again (or fails). Every file is removed by exactly one commit and
// the deleted rows never come back.
func TestDeleteRacesOptimize(t *testing.T) {
	for round := range 4 {
		dir := smallFiles(t, map[string]int{"a": 4, "b": 2})
		want := withoutPartition(rows(t, dir), "a")
		var wg sync.WaitGroup
		var derr, oerr error
		del, opt := open(t, dir), open(t, dir)
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, derr = del.Delete(context.Background(), deltalite.DeleteOptions{Predicate: "p = 'a'"})
		}()
		go func() {
			defer wg.Done()
			_, oerr = opt.Optimize(context.Background(), optimize.Options{})
		}()
		wg.Wait()
		for _, err := range []error{derr, oerr} {
			if err != nil && !errors.Is(err, deltalite.ErrCommitConflict) {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if derr != nil {
			t.Fatalf("round %d: the delete failed (%v): it plans again after a compaction", round, derr)
		}
		arrowrows.Diff(t, rows(t, dir), want)
		removedOnce(t, dir)
	}
}
