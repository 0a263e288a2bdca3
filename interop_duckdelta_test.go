package deltalite_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/restore"
	"github.com/deltalite-go/deltalite/testkit/corpus"
	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/vacuum"
)

// duckDBDelta skips (or fails, where peers are required) unless the test
// environment has DuckDB's delta extension (the duckdb-extension-delta
// wheel of the pinned duckdb).
func duckDBDelta(t *testing.T) {
	t.Helper()
	cmd := exec.Command(peers.Python(t), "-c", "import sys; sys.path.insert(0, sys.argv[1]); import read_table; read_table.delta_extension_connection()", filepath.Join(peers.Root(t), "python"))
	cmd.Env = peers.Env(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		peers.Missing(t, "DuckDB's delta extension does not load (run make setup): %v: %s", err, out)
	}
}

// maintainedTables writes the tables of the table operations besides
// writtenTables': after MERGE, OPTIMIZE, VACUUM and RESTORE, with column
// mapping, and on tables with our deletion vectors and Spark's; name ->
// path.
func maintainedTables(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	out := map[string]string{}
	path := func(name string) string { p := filepath.Join(dir, name); out[name] = p; return p }
	day := deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"day"}}

	p := path("merged")
	mustWrite(t, p, people(t, []int64{1, 2, 3, 4}, []string{"a", "b", "c", "d"}, []string{"d1", "d1", "d2", "d2"}), day)
	if _, err := openT(t, p).Merge(ctx, people(t, []int64{2, 3, 5}, []string{"B", "del", "e"}, []string{"d1", "d2", "d3"}), deltalite.MergeOptions{
		Predicate: "t.id = s.id AND t.day = s.day",
		Clauses: []merge.Clause{
			{When: merge.Matched, Predicate: "s.name = 'del'", Action: merge.Delete},
			{When: merge.Matched, Action: merge.UpdateAll},
			{When: merge.NotMatched, Action: merge.InsertAll},
		}}); err != nil {
		t.Fatal(err)
	}

	p = path("optimized")
	for i := range int64(4) {
		mustWrite(t, p, people(t, []int64{i, i + 10}, []string{"o", "p"}, []string{"d1", "d2"}), day)
	}
	if st, err := openT(t, p).Optimize(ctx, deltalite.OptimizeOptions{}); err != nil || st.FilesRemoved.TotalFiles != 8 {
		t.Fatalf("optimize: %+v, %v", st, err)
	}

	p = path("vacuumed")
	mustWrite(t, p, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"}), day)
	mustWrite(t, p, people(t, []int64{3}, []string{"c"}, []string{"d3"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite})
	if st, err := openT(t, p).Vacuum(ctx, deltalite.VacuumOptions{RetentionHours: vacuum.Hours(0), NoEnforceRetention: true}); err != nil || st.FilesDeleted != 2 {
		t.Fatalf("vacuum: %+v, %v", st, err)
	}

	p = path("restored")
	mustWrite(t, p, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"}), day)
	mustWrite(t, p, people(t, []int64{3}, []string{"c"}, []string{"d1"}), day)
	mustDelete(t, openT(t, p), "id < 3", 2)
	if _, err := openT(t, p).Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(1)}); err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"column_mapping", "column_mapping_partitioned"} {
		p = path(name)
		wo := deltalite.WriteOptions{Properties: map[string]string{"delta.columnMapping.mode": "name"}}
		if name == "column_mapping_partitioned" {
			wo.PartitionBy = []string{"day"}
		}
		mustWrite(t, p, people(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, []string{"d1", "d1", "d2"}), wo)
		mustWrite(t, p, people(t, []int64{4}, []string{"d"}, []string{"d2"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		mustDelete(t, openT(t, p), "id = 2", 1)
	}

	// Our deletion vectors: DELETE, UPDATE, MERGE and upsert on a table
	// with them on (dvHistory), then an upsert.
	p, _ = dvHistory(t)
	out["our_dv"] = p
	if st, err := openT(t, p).Upsert(ctx, people(t, []int64{8, 20}, []string{"H", "t"}, []string{"d1", "d1"}),
		deltalite.UpsertOptions{PrimaryKeys: []string{"id"}, PartitionBy: []string{"day"}}); err != nil || st.DeletionVectorsAdded != 1 {
		t.Fatalf("upsert: %+v, %v", st, err)
	}
	if !slices.ContainsFunc(openT(t, p).Snapshot().Files(), func(a *protocol.Add) bool { return a.DeletionVector != nil }) {
		t.Fatal("our deletion vector table has no deletion vector")
	}

	// Spark's deletion vectors.
	p = path("spark_dv")
	if err := os.CopyFS(p, os.DirFS(corpus.Path(t, "dat/deletion_vectors/delta"))); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(openT(t, p).Snapshot().Files(), func(a *protocol.Add) bool { return a.DeletionVector != nil }) {
		t.Fatal("the corpus table has no deletion vector")
	}
	return out
}

var partitionValue = regexp.MustCompile(`day="[^"]*"`)

// TestDuckDBDeltaExtensionReadsWhatWeWrite: DuckDB's own delta extension
// (delta-kernel-rs) reads every table shape this engine writes, and the
// tables after MERGE, OPTIMIZE, VACUUM, RESTORE, with column mapping and
// deletion vectors, with the rows we read; delta-rs agrees on the tables
// TestPeersReadWhatWeWrite does not read.
func TestDuckDBDeltaExtensionReadsWhatWeWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with DuckDB's delta extension: not in -short mode")
	}
	duckDBDelta(t)
	tables := writtenTables(t)
	extra := maintainedTables(t)
	for n, p := range extra {
		tables[n] = p
	}
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range tables {
			if !yield(n) {
				return
			}
		}
	}) {
		t.Run(n, func(t *testing.T) {
			ours := readRows(t, tables[n])
			if len(ours) == 0 {
				t.Fatalf("we read no rows")
			}
			got := peers.ReadTable(t, peers.DuckDBDelta, tables[n], peers.ReadOptions{}).Lines(t)
			want := ours
			if n == "column_mapping_partitioned" {
				// The extension (1.5.5) looks partition values up by
				// the logical name, where the protocol keys them by the
				// physical one (as we, Spark and delta-rs do), and reads
				// NULL: duckdb/duckdb-delta#343. This fails once it is
				// fixed; then compare as the others.
				want = nil
				for _, r := range ours {
					want = append(want, partitionValue.ReplaceAllString(r, "day=null"))
				}
				slices.Sort(want)
			}
			if d := diffRows(got, want); d != "" {
				t.Errorf("DuckDB's delta extension reads %s differently: %s", n, d)
			}
			if _, ok := extra[n]; ok {
				got := peers.ReadTable(t, peers.DeltaRS, tables[n], peers.ReadOptions{}).Lines(t)
				if d := diffRows(got, ours); d != "" {
					t.Errorf("delta-rs reads %s differently: %s", n, d)
				}
			}
		})
	}
}
