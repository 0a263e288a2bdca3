package deltalite_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// TestSparkTableWithDatabricksDefaults: a table Spark makes with the
// features Databricks turns on together (deletion vectors, row tracking,
// in-commit timestamps, the change data feed, a CHECK constraint, liquid
// clustering) takes our append, UPDATE, DELETE, MERGE, upsert and
// OPTIMIZE; after each, Spark reads our rows with the same row ids and
// commit versions, and the rules of row tracking hold; a write breaking
// the constraint is refused; at the end Spark's table_changes over our
// commits equals our Changes, and Spark writes and OPTIMIZEs after us.
func TestSparkTableWithDatabricksDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	s := peers.Spark(t)
	dir := t.TempDir()
	s.Run(t,
		sparkSQL(dir, "CREATE TABLE {table} (id BIGINT, name STRING, day STRING) USING delta CLUSTER BY (day) TBLPROPERTIES ("+
			"'delta.enableDeletionVectors' = 'true', 'delta.enableRowTracking' = 'true', "+
			"'delta.enableInCommitTimestamps' = 'true', 'delta.enableChangeDataFeed' = 'true')", false),
		sparkSQL(dir, "ALTER TABLE {table} ADD CONSTRAINT positive_id CHECK (id > 0)", false),
		sparkSQL(dir, "INSERT INTO {table} VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2'), (4, 'd', 'd2'), (5, 'e', 'd2')", false),
		sparkSQL(dir, "UPDATE {table} SET name = 'B' WHERE id = 2", false),
		sparkSQL(dir, "OPTIMIZE {table}", false),
	)
	tb := openT(t, dir)
	p := tb.Snapshot().Protocol()
	for _, f := range []string{"deletionVectors", "rowTracking", "inCommitTimestamp", "changeDataFeed", "checkConstraints", "clustering", "domainMetadata"} {
		if !p.HasFeature(f) {
			t.Fatalf("Spark's table lacks %s: %s", f, p)
		}
	}
	first := tb.Version() + 1
	same := sameRowIDs(t, s, dir)
	prev := same("Spark's writes")
	steps := append(firstIDSteps(t, tb, dir), []idStep{
		{"our MERGE", func() error {
			_, err := tb.Merge(ctx, people(t, []int64{1, 7}, []string{"A", "g"}, []string{"d1", "d2"}), deltalite.MergeOptions{
				Predicate: "t.id = s.id",
				Clauses:   []merge.Clause{{When: merge.Matched, Action: merge.UpdateAll}, {When: merge.NotMatched, Action: merge.InsertAll}},
			})
			return err
		}, []int64{1}, []int64{7}},
		{"our upsert", func() error {
			_, err := tb.Upsert(ctx, people(t, []int64{2, 10}, []string{"BBB", "j"}, []string{"d1", "d2"}), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}})
			return err
		}, []int64{2}, []int64{10}},
		{"our OPTIMIZE", func() error {
			_, err := tb.Optimize(ctx, deltalite.OptimizeOptions{})
			return err
		}, nil, nil},
	}...)
	_ = runIDSteps(t, tb, prev, same, steps)
	refusedUnchanged(t, dir, "append breaking the constraint", "positive_id", func() error {
		_, err := deltalite.Write(ctx, dir, people(t, []int64{-1}, []string{"x"}, []string{"d1"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})

	// The change feed of our commits, as Spark and we read it.
	cols := "id, name, day, _change_type, _commit_version"
	spark := s.Run(t, peers.Op{"op": "sql", "path": dir,
		"sql": fmt.Sprintf("SELECT %s FROM table_changes_by_path('%s', %d)", cols, dir, first)})[0].Table(t).Lines(t)
	ours := changeRows(t, dir, deltalite.ChangesOptions{FromVersion: first, Columns: strings.Split(cols, ", ")})
	slices.Sort(spark)
	slices.Sort(ours)
	if !slices.Equal(spark, ours) || len(ours) == 0 {
		t.Fatalf("change feed from version %d: Spark's\n%s\nours\n%s", first, strings.Join(spark, "\n"), strings.Join(ours, "\n"))
	}

	// Spark writes and clusters after us.
	s.Run(t,
		sparkSQL(dir, "INSERT INTO {table} VALUES (8, 'h', 'd1')", false),
		sparkSQL(dir, "UPDATE {table} SET name = 'CC' WHERE id = 3", false),
		sparkSQL(dir, "OPTIMIZE {table}", false),
	)
	if err := tb.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	same("Spark's writes after ours")
}
