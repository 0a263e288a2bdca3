package merge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/internal/testkit/peers"
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
