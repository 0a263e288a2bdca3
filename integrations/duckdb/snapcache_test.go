//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
)

// TestSnapshotCache: a delta_scan query reads the table's log once and
// prunes its files once, though DuckDB plans it twice (prepare, then the
// rebind read_parquet asks for); later queries refresh the kept snapshot
// (new commits show), a pinned version is kept apart, and a table written
// anew at the same URI is read from its log again.
func TestSnapshotCache(t *testing.T) {
	stats := &Stats{}
	conn := testConn(t, ScanOptions{Stats: stats})
	dir := filepath.Join(t.TempDir(), "t")
	s := testSession(t, &Resource{})
	write := func(q string) {
		t.Helper()
		wo := deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"k"}}
		if _, err := s.SQL(q).Write(context.Background(), dir, wo); err != nil {
			t.Fatal(err)
		}
	}
	write("SELECT i % 3 AS k, i AS v FROM range(0, 30) t(i)")
	check := func(call, want string, loads int64) {
		t.Helper()
		before, plans := snapshotLoads.Load(), snapshotPlans.Load()
		got := strings.Join(rows(t, conn, "SELECT count(*), sum(v) FROM "+call), ",")
		if got != want {
			t.Fatalf("%s: %s, want %s", call, got, want)
		}
		if n := snapshotLoads.Load() - before; n != loads {
			t.Fatalf("%s: %d snapshots read from the log, want %d", call, n, loads)
		}
		if n := snapshotPlans.Load() - plans; n > 1 {
			t.Fatalf("%s: files chosen %d times, want once at most", call, n)
		}
	}
	latest, v0 := "delta_scan("+quote(dir)+")", "delta_scan("+quote(dir)+", version => 0)"
	check(latest, "30|435", 1)
	check(latest, "30|435", 0)
	write("SELECT i % 3 AS k, i AS v FROM range(30, 40) t(i)")
	check(latest, "40|780", 0) // refreshed: the new commit only
	check(v0, "30|435", 1)
	check(v0, "30|435", 0)
	filtered := "delta_scan(" + quote(dir) + ", filter => 'k = 1')"
	check(filtered, "13|247", 0)
	plans := snapshotPlans.Load()
	check(filtered, "13|247", 0)
	if n := snapshotPlans.Load() - plans; n != 0 {
		t.Fatalf("the same filter on the same snapshot chose its files %d times again, want 0", n)
	}
	// The table removed and written again at the URI: its log is read.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	write("SELECT 7 AS k, 5 AS v")
	check(latest, "1|5", 1)
	check(v0, "1|5", 1)
	if sc := stats.Scans(); sc[len(sc)-1].FilesDirect != 1 {
		t.Fatalf("stats %+v", sc[len(sc)-1])
	}
}
