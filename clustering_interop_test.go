package deltalite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sparkClusteringColumns is DESCRIBE DETAIL's clusteringColumns.
func sparkClusteringColumns(t *testing.T, sp *peers.SparkSession, dir string) []string {
	t.Helper()
	tb := sp.Run(t, peers.Op{"op": "sql", "path": dir, "sql": "DESCRIBE DETAIL {table}"})[0].Table(t)
	if len(tb.Rows) != 1 {
		t.Fatalf("DESCRIBE DETAIL: %d rows", len(tb.Rows))
	}
	var out []string
	for _, c := range tb.Rows[0]["clusteringColumns"].([]any) {
		out = append(out, fmt.Sprint(c))
	}
	return out
}

// clusteredFiles splits the live files into those a clustering by cols
// (the tag's JSON array) placed, with provider liquid, and the others.
func clusteredFiles(t *testing.T, dir, cols string) (clustered, other []*protocol.Add) {
	t.Helper()
	for _, a := range openT(t, dir).Snapshot().Files() {
		if a.ClusteringProvider != nil && *a.ClusteringProvider == "liquid" && a.Tags["ZCUBE_ZORDER_BY"] == cols && a.Tags["ZCUBE_ID"] != "" {
			clustered = append(clustered, a)
		} else {
			other = append(other, a)
		}
	}
	return clustered, other
}

func sameRowsAsSpark(t *testing.T, sp *peers.SparkSession, dir, when string) {
	t.Helper()
	if d := diffRows(sp.Read(t, dir, peers.ReadOptions{}).Lines(t), readRows(t, dir)); d != "" {
		t.Fatalf("%s: Spark reads other rows than ours: %s", when, d)
	}
}

// TestSparkClusteredTableInterop: on a table Spark 4.4 created with CLUSTER
// BY and OPTIMIZEd, our OPTIMIZE after an append clusters only the new
// file and leaves Spark's z-cube; our append, upsert, MERGE, DELETE,
// UPDATE and OPTIMIZE work; Spark reads our rows, and its OPTIMIZE after
// ours leaves nothing for ours to do; DESCRIBE DETAIL shows the clustering
// columns, and after our alter --cluster-by Spark's OPTIMIZE clusters by
// the new ones.
func TestSparkClusteredTableInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	sp := peers.Spark(t)
	dir := filepath.Join(t.TempDir(), "t")
	sp.Run(t,
		sparkSQL(dir, "CREATE TABLE {table} (id BIGINT, name STRING, day STRING) USING delta CLUSTER BY (day, id)", false),
		sparkSQL(dir, "INSERT INTO {table} SELECT id, concat('n', id), concat('d', id % 5) FROM range(0, 200)", false),
		sparkSQL(dir, "INSERT INTO {table} SELECT id, concat('n', id), concat('d', id % 5) FROM range(200, 400)", false),
		sparkSQL(dir, "OPTIMIZE {table}", false))
	const cols = `["day","id"]`
	if c, o := clusteredFiles(t, dir, cols); len(c) != 1 || len(o) != 0 {
		t.Fatalf("after Spark's OPTIMIZE: %d clustered files, %d others", len(c), len(o))
	}
	if c, _ := openT(t, dir).Snapshot().ClusteringColumns(); !slices.Equal(c, []string{"day", "id"}) {
		t.Fatalf("we read clustering columns %v", c)
	}

	// Our OPTIMIZE after our append: Spark's z-cube stays.
	mustWrite(t, dir, people(t, []int64{1000, 1001}, []string{"x", "y"}, []string{"d1", "d2"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	st, err := openT(t, dir).Optimize(ctx, deltalite.OptimizeOptions{})
	if err != nil || st.FilesRemoved.TotalFiles != 1 || st.SkippedFiles != 1 {
		t.Fatalf("our OPTIMIZE after an append: %s, %v: want the appended file only", st, err)
	}
	if c, o := clusteredFiles(t, dir, cols); len(c) != 2 || len(o) != 0 {
		t.Fatalf("after our OPTIMIZE: %d clustered files, %d others", len(c), len(o))
	}

	tb := openT(t, dir)
	if _, err := tb.Upsert(ctx, people(t, []int64{5, 1002}, []string{"five", "z"}, []string{"d0", "d3"}), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Merge(ctx, people(t, []int64{6, 1003}, []string{"six", "w"}, []string{"d1", "d4"}), deltalite.MergeOptions{
		Predicate: "t.id = s.id",
		Clauses:   []merge.Clause{{When: merge.Matched, Action: merge.UpdateAll}, {When: merge.NotMatched, Action: merge.InsertAll}},
	}); err != nil {
		t.Fatal(err)
	}
	mustDelete(t, tb, "id = 7", 1)
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Set: map[string]string{"name": "upper(name)"}, Predicate: "id = 8"}); err != nil {
		t.Fatal(err)
	}
	if st, err := tb.Optimize(ctx, deltalite.OptimizeOptions{}); err != nil || st.FilesRemoved.TotalFiles == 0 {
		t.Fatalf("our OPTIMIZE after DML: %s, %v", st, err)
	}
	if _, o := clusteredFiles(t, dir, cols); len(o) != 0 {
		t.Fatalf("after our OPTIMIZE: %d unclustered files", len(o))
	}
	rows := readRows(t, dir)
	if len(rows) != 400+2+2-1 || !slices.Contains(rows, row(8, "N8", "d3")) || !slices.Contains(rows, row(5, "five", "d0")) {
		t.Fatalf("our rows after DML: %d", len(rows))
	}
	sameRowsAsSpark(t, sp, dir, "after our DML and OPTIMIZE")

	// Spark's OPTIMIZE after ours; then ours has nothing to do.
	sp.Run(t,
		sparkSQL(dir, "INSERT INTO {table} VALUES (2000, 'spark', 'd9')", false),
		sparkSQL(dir, "OPTIMIZE {table}", false))
	if _, o := clusteredFiles(t, dir, cols); len(o) != 0 {
		t.Fatalf("after Spark's OPTIMIZE: %d unclustered files", len(o))
	}
	sameRowsAsSpark(t, sp, dir, "after Spark's OPTIMIZE")
	if st, err := openT(t, dir).Optimize(ctx, deltalite.OptimizeOptions{}); err != nil || st.Commits != 0 {
		t.Fatalf("our OPTIMIZE after Spark's: %s, %v: want nothing to do", st, err)
	}
	if c := sparkClusteringColumns(t, sp, dir); !slices.Equal(c, []string{"day", "id"}) {
		t.Fatalf("Spark's DESCRIBE DETAIL clusteringColumns %v", c)
	}

	// Our alter --cluster-by name: Spark's next OPTIMIZE clusters by it.
	if _, err := openT(t, dir).Alter(ctx, deltalite.AlterOptions{ClusterBy: []string{"name"}}); err != nil {
		t.Fatal(err)
	}
	if c := sparkClusteringColumns(t, sp, dir); !slices.Equal(c, []string{"name"}) {
		t.Fatalf("Spark's DESCRIBE DETAIL clusteringColumns after our alter: %v", c)
	}
	sp.Run(t,
		sparkSQL(dir, "INSERT INTO {table} VALUES (2001, 'after', 'd9'), (2002, 'alter', 'd9')", false),
		sparkSQL(dir, "OPTIMIZE {table}", false))
	if c, _ := clusteredFiles(t, dir, `["name"]`); len(c) == 0 {
		t.Fatal("Spark's OPTIMIZE after our alter wrote no file clustered by name")
	}
	sameRowsAsSpark(t, sp, dir, "after our alter and Spark's OPTIMIZE")
}

// TestClusteredTableWeCreateInterop: a clustered table we create, write
// and OPTIMIZE is read by Spark, delta-rs and DuckDB's delta extension
// with our rows; Spark writes to it and OPTIMIZEs it, keeping our z-cube.
func TestClusteredTableWeCreateInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark, delta-rs and DuckDB: not in -short mode")
	}
	ctx := context.Background()
	dir := clusteredPeople(t)
	mustWrite(t, dir, people(t, []int64{5, 6}, []string{"e", "f"}, []string{"d3", "d1"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	if st, err := openT(t, dir).Optimize(ctx, deltalite.OptimizeOptions{}); err != nil || st.FilesRemoved.TotalFiles != 2 {
		t.Fatalf("our OPTIMIZE: %s, %v", st, err)
	}
	want := readRows(t, dir)
	if d := diffRows(peers.ReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{}).Lines(t), want); d != "" {
		t.Errorf("delta-rs reads other rows: %s", d)
	}
	duckDBDelta(t)
	if d := diffRows(peers.ReadTable(t, peers.DuckDBDelta, dir, peers.ReadOptions{}).Lines(t), want); d != "" {
		t.Errorf("DuckDB's delta extension reads other rows: %s", d)
	}
	sp := peers.Spark(t)
	sameRowsAsSpark(t, sp, dir, "our clustered table")
	if c := sparkClusteringColumns(t, sp, dir); !slices.Equal(c, []string{"day", "id"}) {
		t.Fatalf("Spark's DESCRIBE DETAIL clusteringColumns %v", c)
	}
	sp.Run(t,
		sparkSQL(dir, "INSERT INTO {table} VALUES (7, 'g', 'd2')", false),
		sparkSQL(dir, "UPDATE {table} SET name = 'E' WHERE id = 5", false),
		sparkSQL(dir, "OPTIMIZE {table}", false))
	sameRowsAsSpark(t, sp, dir, "after Spark's writes and OPTIMIZE")
	if _, o := clusteredFiles(t, dir, `["day","id"]`); len(o) != 0 {
		t.Fatalf("after Spark's OPTIMIZE: %d unclustered files", len(o))
	}
	if rows := readRows(t, dir); len(rows) != 7 || !slices.Contains(rows, row(5, "E", "d3")) {
		t.Fatalf("rows after Spark's writes: %v", rows)
	}
}
