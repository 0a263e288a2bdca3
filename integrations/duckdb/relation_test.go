//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
)

func testSession(t *testing.T, r *Resource) *Session {
	t.Helper()
	s, err := r.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); r.Close() })
	return s
}

func TestRelationWriteLoadJoinMerge(t *testing.T) {
	ctx := context.Background()
	stats := &Stats{}
	s := testSession(t, &Resource{Threads: 2, MemoryLimit: "1GB", Stats: stats})
	dir := t.TempDir()
	orders, customers := filepath.Join(dir, "orders"), filepath.Join(dir, "customers")

	// A query result written as a partitioned table; nothing is read before.
	src := s.SQL("SELECT i AS id, i % 4 AS customer, 'd' || (i % 2) AS day, i * 1.5 AS amount FROM range(100) t(i)")
	res, err := src.Write(ctx, orders, deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, PartitionBy: []string{"day"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.FilesAdded != 2 {
		t.Fatalf("files added = %d, want 2 (one per day)", res.FilesAdded)
	}
	if _, err := s.SQL("SELECT i AS customer, 'c' || i AS name FROM range(4) t(i)").Write(ctx, customers, deltalite.WriteOptions{Mode: deltalite.ModeError}); err != nil {
		t.Fatal(err)
	}

	// Loading is lazy: no scan until the join runs.
	o := s.Load(orders, Where("day = 'd1'"), Columns("id", "customer", "amount"))
	c := s.Load(customers)
	if err := o.View(ctx, "orders"); err != nil {
		t.Fatal(err)
	}
	if err := c.View(ctx, "customers"); err != nil {
		t.Fatal(err)
	}
	if n := len(stats.Scans()); n != 0 {
		t.Fatalf("%d scans before execution, want none", n)
	}
	got := rows(t, s.Conn(), "SELECT name, count(*), sum(amount) FROM orders JOIN customers USING (customer) GROUP BY name ORDER BY name")
	want := []string{"c1|25|1837.5", "c3|25|1912.5"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("join = %v, want %v", got, want)
	}
	for _, sc := range stats.Scans() {
		if sc.URI == orders && (sc.FilesRead != 1 || sc.FilesSkipped != 1) {
			t.Fatalf("orders scan read %d files, skipped %d; want 1 and 1 (partition pruned)", sc.FilesRead, sc.FilesSkipped)
		}
	}

	// Merge a query result: update two orders, insert one.
	upd := s.SQL("SELECT * FROM (VALUES (1, 1, 'd1', 1000.0), (3, 3, 'd1', 3000.0), (500, 0, 'd0', 5.0)) v(id, customer, day, amount)")
	ms, err := upd.Merge(ctx, orders, deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: "upsert", SourceAlias: "s", TargetAlias: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if ms.TargetRowsUpdated != 2 || ms.TargetRowsInserted != 1 {
		t.Fatalf("merge stats = %+v, want 2 updated and 1 inserted", ms)
	}
	got = rows(t, s.Conn(), "SELECT count(*), sum(amount) FILTER (WHERE id IN (1, 3, 500)) FROM delta_scan('"+orders+"')")
	if strings.Join(got, ",") != "101|4005" {
		t.Fatalf("after merge = %v, want 101|4005", got)
	}
	// Time travel reads the version before the merge.
	got = rows(t, s.Conn(), "SELECT count(*) FROM delta_scan('"+orders+"', version => 0)")
	if strings.Join(got, ",") != "100" {
		t.Fatalf("version 0 = %v, want 100 rows", got)
	}
}
