package optimize_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/vacuum"
)

// dvFiles lists the deletion vector files under dir, as table keys.
func dvFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "deletion_vector_") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// liveDVFiles lists the deletion vector files the live adds of dir name.
func liveDVFiles(t *testing.T, dir string) []string {
	t.Helper()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range open(t, dir).Snapshot().Files() {
		if a.DeletionVector == nil {
			continue
		}
		key, err := dv.FileKey(st, a.DeletionVector)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(out, key) {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// TestPurgeSparkDeletionVectors: on a table whose deletion vectors Spark
// wrote, a purge above a threshold and then a full one keep the rows
// Spark and delta-rs read; after the full purge no file has a vector;
// VACUUM past the retention deletes the DV files no live file names, and
// only those, after each purge; Spark reads the table after all of it.
func TestPurgeSparkDeletionVectors(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	spark := peers.Spark(t)
	sql := func(s string) peers.Op { return peers.Op{"op": "sql", "path": dir, "sql": s, "collect": false} }
	spark.Run(t,
		sql("CREATE TABLE {table} (id BIGINT, p STRING) USING delta PARTITIONED BY (p) TBLPROPERTIES (delta.enableDeletionVectors = true)"),
		sql("INSERT INTO {table} SELECT /*+ COALESCE(1) */ id, IF(id <= 20, 'a', 'b') FROM range(1, 41)"),
		sql("INSERT INTO {table} SELECT /*+ COALESCE(1) */ id, IF(id <= 60, 'a', 'b') FROM range(41, 81)"),
		sql("DELETE FROM {table} WHERE id % 10 = 0"),
		sql("DELETE FROM {table} WHERE id BETWEEN 1 AND 12"),
	)
	sparkIDs := func() []int64 { return spark.Read(t, dir, peers.ReadOptions{}).Int64s(t, "id") }
	want := sparkIDs()
	if len(want) != 80-8-11 {
		t.Fatalf("Spark reads %d rows, want 61", len(want))
	}
	agree := func(step string) {
		t.Helper()
		if got := sparkIDs(); !slices.Equal(got, want) {
			t.Errorf("after %s Spark reads %v\nwant %v", step, got, want)
		}
		if got := peers.ReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{}).Int64s(t, "id"); !slices.Equal(got, want) {
			t.Errorf("after %s delta-rs reads %v\nwant %v", step, got, want)
		}
	}
	vacuumAll := func(step string) {
		t.Helper()
		before := dvFiles(t, dir)
		if _, err := open(t, dir).Vacuum(ctx, deltalite.VacuumOptions{RetentionHours: vacuum.Hours(0), NoEnforceRetention: true}); err != nil {
			t.Fatal(err)
		}
		live := liveDVFiles(t, dir)
		if got := dvFiles(t, dir); !slices.Equal(got, live) {
			t.Fatalf("after %s and VACUUM the DV files are %q (of %q before), want exactly the live ones %q", step, got, before, live)
		}
	}
	shares := map[string]float64{}
	for _, a := range open(t, dir).Snapshot().Files() {
		if a.DeletionVector == nil {
			t.Fatalf("%s has no deletion vector: Spark's DELETE should have given every file one", a.Path)
		}
		shares[a.Path] = float64(a.DeletionVector.Cardinality) / 20
	}
	// Files 1-20 (a) lost 1-12 and 20: 0.65; 41-60 (a) 0.1; the b files 0.1.
	s, err := open(t, dir).Optimize(ctx, optimize.Options{PurgeDeletionVectors: true, PurgeMinDeletedRatio: 0.5})
	if err != nil || s.FilesRemoved.TotalFiles != 1 || s.RowsDropped != 13 {
		t.Fatalf("purge above 0.5: %s, %v", s, err)
	}
	agree("the purge above 0.5")
	vacuumAll("the purge above 0.5")
	if len(liveDVFiles(t, dir)) == 0 {
		t.Fatal("the files below the threshold lost their vectors")
	}

	s, err = open(t, dir).Optimize(ctx, optimize.Options{PurgeDeletionVectors: true})
	if err != nil || s.FilesRemoved.TotalFiles != 3 || s.RowsDropped != 6 {
		t.Fatalf("full purge: %s, %v", s, err)
	}
	for _, a := range open(t, dir).Snapshot().Files() {
		if a.DeletionVector != nil {
			t.Fatalf("%s keeps a deletion vector after the purge", a.Path)
		}
	}
	agree("the full purge")
	vacuumAll("the full purge")
	if got := dvFiles(t, dir); len(got) != 0 {
		t.Fatalf("DV files left after the full purge and VACUUM: %q", got)
	}
	agree("VACUUM")
	h := spark.Run(t, peers.Op{"op": "sql", "path": dir, "sql": "DESCRIBE HISTORY {table}"})[0].Table(t)
	var ops []string
	for _, r := range h.Rows {
		ops = append(ops, r["operation"].(string))
	}
	if strings.Count(strings.Join(ops, ","), "REORG") != 2 {
		t.Errorf("Spark's history: %v, want two REORG commits", ops)
	}
}
