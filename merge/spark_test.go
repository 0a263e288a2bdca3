package merge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// TestSparkAgrees runs MERGE statements through Spark SQL with Delta and
// through Run on copies of one table: both refuse, or both leave the same
// rows. It covers Spark's multiple-match rule (stricter than "a MATCHED
// clause would act") and schema evolution, where delta-rs differs.
func TestSparkAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("Spark: not in -short mode")
	}
	sp := peers.Spark(t)
	target := cols("id long", "v string")
	const targetRows = `[{"id":1,"v":"a"},{"id":2,"v":"b"},{"id":null,"v":"n"}]`
	dups := [][]any{{1, "A", "n1"}, {1, "B", "n2"}, {5, "E", "n5"}, {nil, "N", "n6"}}
	single := [][]any{{1, "A", "n1"}, {3, "C", "n3"}}
	for _, tc := range []struct {
		name    string
		rows    [][]any
		evolve  bool
		clauses []Clause
		sql     string
	}{
		{"dups, matched condition false for both, insert", dups, false,
			[]Clause{{When: Matched, Action: Update, Predicate: "s.v = 'zz'", Set: map[string]string{"v": "s.v"}}, {When: NotMatched, Action: InsertAll}},
			"WHEN MATCHED AND s.v = 'zz' THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *"},
		{"dups, matched only, condition true for one", dups, false,
			[]Clause{{When: Matched, Action: Update, Predicate: "s.v = 'A'", Set: map[string]string{"v": "s.v"}}},
			"WHEN MATCHED AND s.v = 'A' THEN UPDATE SET v = s.v"},
		{"dups, insert only", dups, false, []Clause{{When: NotMatched, Action: InsertAll}}, "WHEN NOT MATCHED THEN INSERT *"},
		{"dups, unconditional delete and by source", dups, false,
			[]Clause{{When: Matched, Action: Delete}, {When: NotMatchedBySource, Action: Update, Set: map[string]string{"v": "'old'"}}},
			"WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 'old'"},
		{"dups, by source only", dups, false,
			[]Clause{{When: NotMatchedBySource, Action: Update, Set: map[string]string{"v": "'old'"}}},
			"WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 'old'"},
		{"evolution: untaken matched row and explicit insert keep the new column null", single, true,
			[]Clause{{When: Matched, Action: UpdateAll, Predicate: "t.v = 'zz'"}, {When: NotMatched, Action: InsertAll, Predicate: "s.id > 100"},
				{When: NotMatched, Action: Insert, Set: map[string]string{"id": "s.id"}}},
			"WHEN MATCHED AND t.v = 'zz' THEN UPDATE SET * WHEN NOT MATCHED AND s.id > 100 THEN INSERT * WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)"},
		{"evolution: update and insert all", single, true,
			[]Clause{{When: Matched, Action: UpdateAll}, {When: NotMatched, Action: InsertAll}, {When: NotMatchedBySource, Action: Delete, Predicate: "t.id IS NULL"}},
			"WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED BY SOURCE AND t.id IS NULL THEN DELETE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cols("id long", "v string")
			var jsonRows, values []string
			for _, r := range tc.rows {
				id, _ := json.Marshal(r[0])
				sqlID := "CAST(NULL AS BIGINT)"
				if r[0] != nil {
					sqlID = fmt.Sprintf("%dL", r[0])
				}
				j, v := fmt.Sprintf(`{"id":%s,"v":%q`, id, r[1]), fmt.Sprintf("(%s, '%s'", sqlID, r[1])
				if tc.evolve {
					j, v = j+fmt.Sprintf(`,"note":%q`, r[2]), v+fmt.Sprintf(", '%s'", r[2])
				}
				jsonRows, values = append(jsonRows, j+"}"), append(values, v+")")
			}
			names, with, mode := "id, v", "", ""
			if tc.evolve {
				src, names, with, mode = cols("id long", "v string", "note string"), "id, v, note", "WITH SCHEMA EVOLUTION ", SchemaModeMerge
			}
			_, ourSnap := newTable(t, target, nil, targetRows)
			sparkDir, _ := newTable(t, target, nil, targetRows)
			stmt := fmt.Sprintf("MERGE %sINTO {table} t USING (SELECT * FROM VALUES %s AS y(%s)) s ON t.id = s.id %s",
				with, strings.Join(values, ", "), names, tc.sql)
			res := sp.Try(t, peers.Op{"op": "sql", "path": sparkDir, "sql": stmt, "collect": false}, peers.Op{"op": "read", "path": sparkDir})
			_, post, err := Run(context.Background(), ourSnap, reader(t, src, "["+strings.Join(jsonRows, ",")+"]"),
				Options{Predicate: "t.id = s.id", Clauses: tc.clauses, SchemaMode: mode})
			switch {
			case !res[0].OK && err == nil:
				t.Fatalf("Spark refused what the engine did: %s", res[0].Error)
			case res[0].OK && err != nil:
				t.Fatalf("the engine refused what Spark did: %v", err)
			case err != nil:
				if !strings.Contains(res[0].Error, "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE") {
					t.Fatalf("Spark refused it otherwise: %s", res[0].Error)
				}
				return
			}
			ours := scanRows(t, post, func(rec arrow.RecordBatch) []string { return arrowrows.Rows(rec) })
			arrowrows.Diff(t, ours, res[1].Table(t).Lines(t))
		})
	}
}

// TestSparkAgreesOnDVAndColumnMapping merges into copies of a table Spark
// made with deletion vectors and name column mapping (a renamed column,
// rows deleted by a DV), through Spark SQL and through Run: the same rows,
// every clause kind, a source key whose target row the DV deleted (it is
// inserted, not matched), and Spark reads the table the engine wrote.
func TestSparkAgreesOnDVAndColumnMapping(t *testing.T) {
	if testing.Short() {
		t.Skip("Spark: not in -short mode")
	}
	sp := peers.Spark(t)
	dir := t.TempDir()
	made := filepath.Join(dir, "made")
	var rows []map[string]any
	for id := range 40 {
		rows = append(rows, map[string]any{"id": id, "p": []string{"x", "y"}[id%2], "v": float64(id) + 0.5})
	}
	sp.Run(t,
		peers.Op{"op": "write", "path": made, "mode": "append", "partition_by": []string{"p"},
			"properties": map[string]string{"delta.enableDeletionVectors": "true", "delta.columnMapping.mode": "name"},
			"schema":     []map[string]any{{"name": "id", "type": "long"}, {"name": "p", "type": "string"}, {"name": "v", "type": "double"}},
			"rows":       rows},
		peers.Op{"op": "delete", "path": made, "predicate": "id % 5 = 2"},
		peers.Op{"op": "sql", "path": made, "sql": "ALTER TABLE {table} RENAME COLUMN v TO w", "collect": false},
	)
	if !hasDeletionVector(t, made) {
		t.Fatal("Spark's delete left no deletion vector: the test would not cover one")
	}
	ours, theirs := filepath.Join(dir, "ours"), filepath.Join(dir, "theirs")
	for _, d := range []string{ours, theirs} {
		if err := os.CopyFS(d, os.DirFS(made)); err != nil {
			t.Fatal(err)
		}
	}

	// Keys 2 and 7 were deleted by the DV: they do not match and are inserted.
	src := cols("id long", "p string", "w double")
	const srcRows = `[{"id":1,"p":"y","w":100},{"id":2,"p":"x","w":200},{"id":3,"p":"y","w":-3},
		{"id":4,"p":"x","w":400},{"id":7,"p":"y","w":700},{"id":50,"p":"x","w":5000}]`
	values := "(1L, 'y', 100D), (2L, 'x', 200D), (3L, 'y', -3D), (4L, 'x', 400D), (7L, 'y', 700D), (50L, 'x', 5000D)"
	stmt := "MERGE INTO {table} t USING (SELECT * FROM VALUES " + values + " AS s(id, p, w)) s ON t.id = s.id " +
		"WHEN MATCHED AND s.w > 0 THEN UPDATE SET w = s.w WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT * " +
		"WHEN NOT MATCHED BY SOURCE AND t.p = 'y' AND t.id > 30 THEN UPDATE SET w = -1"
	clauses := []Clause{
		{When: Matched, Action: Update, Predicate: "s.w > 0", Set: map[string]string{"w": "s.w"}},
		{When: Matched, Action: Delete},
		{When: NotMatched, Action: InsertAll},
		{When: NotMatchedBySource, Action: Update, Predicate: "t.p = 'y' AND t.id > 30", Set: map[string]string{"w": "-1"}},
	}
	st, err := storage.NewLocal(ours)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	stats, post, err := Run(context.Background(), snap, reader(t, src, srcRows), Options{Predicate: "t.id = s.id", Clauses: clauses})
	if err != nil {
		t.Fatal(err)
	}
	// 1, 4 updated; 3 deleted; 2, 7, 50 inserted; 31, 33, 35, 39 updated
	// by source (37 is deleted by the DV).
	if stats.TargetRowsInserted != 3 || stats.TargetRowsDeleted != 1 || stats.TargetRowsUpdated != 2+4 {
		t.Errorf("stats %+v: want 3 inserted, 1 deleted, 6 updated", stats)
	}
	got := scanRows(t, post, func(rec arrow.RecordBatch) []string { return arrowrows.Rows(rec) })
	res := sp.Run(t,
		peers.Op{"op": "sql", "path": theirs, "sql": stmt, "collect": false},
		peers.Op{"op": "read", "path": theirs},
		peers.Op{"op": "read", "path": ours},
	)
	want := res[1].Table(t).Lines(t)
	arrowrows.Diff(t, got, want)
	arrowrows.Diff(t, res[2].Table(t).Lines(t), want)
}

// hasDeletionVector reports whether any commit of the table at dir adds a
// file with a deletion vector.
func hasDeletionVector(t *testing.T, dir string) bool {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "_delta_log", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"deletionVector":{`) {
			return true
		}
	}
	return false
}
