package deltalite_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sparkRowIDs is Spark's SELECT of every row with its row id and commit
// version, named as our scan names them.
func sparkRowIDs(dir string) peers.Op {
	return peers.Op{"op": "sql", "path": dir, "sql": "SELECT _metadata.row_id AS `_metadata.row_id`, " +
		"_metadata.row_commit_version AS `_metadata.row_commit_version`, id, name FROM {table}"}
}

// identity is a row's (row id, commit version), by the row's id column.
type identity map[int64][2]int64

func identities(t *testing.T, dir string) identity {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	_, seq, err := tb.Scan(scan.WithColumns("id", scan.RowIDColumn, scan.RowCommitVersionColumn)).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := identity{}
	ids := map[int64]int64{}
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			var id, rowID, version int64
			for c, p := range []*int64{&id, &rowID, &version} {
				if _, err := fmt.Sscan(arrowrows.Value(rec.Column(c), i), p); err != nil {
					t.Fatal(err)
				}
			}
			if other, dup := ids[rowID]; dup {
				t.Fatalf("row id %d held by rows %d and %d", rowID, other, id)
			}
			ids[rowID] = id
			out[id] = [2]int64{rowID, version}
		}
	}
	return out
}

// checkIdentities holds the rules of row tracking from before to after a
// commit at version: rows left alone keep id and version, updated rows
// keep their id and take version, inserted rows get ids no row had.
func checkIdentities(t *testing.T, step string, before, after identity, version int64, updated, inserted []int64) {
	t.Helper()
	isIn := func(id int64, in []int64) bool {
		for _, v := range in {
			if v == id {
				return true
			}
		}
		return false
	}
	maxBefore := int64(-1)
	for _, b := range before {
		maxBefore = max(maxBefore, b[0])
	}
	for id, a := range after {
		b, had := before[id]
		switch {
		case isIn(id, inserted):
			if had || a[0] <= maxBefore || a[1] != version {
				t.Errorf("%s: inserted row %d has %v (before %v, max id before %d), want a fresh id at version %d", step, id, a, b, maxBefore, version)
			}
		case isIn(id, updated):
			if a != [2]int64{b[0], version} {
				t.Errorf("%s: updated row %d has %v, want id %d at version %d", step, id, a, b[0], version)
			}
		case a != b:
			t.Errorf("%s: untouched row %d has %v, had %v", step, id, a, b)
		}
	}
}

// idStep is one operation of a row-tracking test and the rows it updates
// and inserts (by id).
type idStep struct {
	name              string
	run               func() error
	updated, inserted []int64
}

// sameRowIDs returns a check that Spark reads the table at dir with the
// rows, row ids and commit versions we read, giving the rows' identities.
func sameRowIDs(t *testing.T, s *peers.SparkSession, dir string) func(step string) identity {
	return func(step string) identity {
		t.Helper()
		got := s.Run(t, sparkRowIDs(dir))[0].Table(t).Lines(t)
		arrowrows.Diff(t, rowIDs(t, dir, "id", "name"), got)
		if t.Failed() {
			t.Fatalf("after %s: Spark's rows or row ids differ from ours", step)
		}
		return identities(t, dir)
	}
}

// firstIDSteps are the steps every row-tracking test starts with on a
// table of people (ids 3 and 4 in it): an append of id 6, an UPDATE of
// id 3 and a DELETE of id 4.
func firstIDSteps(t *testing.T, tb *deltalite.Table, dir string) []idStep {
	ctx := context.Background()
	return []idStep{
		{"our append", func() error {
			_, err := deltalite.Write(ctx, dir, people(t, []int64{6}, []string{"f"}, []string{"d1"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
			return err
		}, nil, []int64{6}},
		{"our UPDATE", func() error {
			_, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 3", Set: map[string]string{"name": "'C'"}})
			return err
		}, []int64{3}, nil},
		{"our DELETE", func() error {
			_, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id = 4"})
			return err
		}, nil, nil},
	}
}

// runIDSteps runs the steps in turn on the table tb holds; after each,
// same (which compares Spark's row ids with ours) gives the rows'
// identities, held against the rules of row tracking. It returns the
// identities after the last step.
func runIDSteps(t *testing.T, tb *deltalite.Table, prev identity, same func(string) identity, steps []idStep) identity {
	t.Helper()
	for _, st := range steps {
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if err := tb.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		cur := same(st.name)
		checkIdentities(t, st.name, prev, cur, tb.Version(), st.updated, st.inserted)
		prev = cur
	}
	return prev
}

// TestSparkRowTracking: on a partitioned table Spark made with row
// tracking and updated, our write, UPDATE, DELETE, MERGE, upsert, OPTIMIZE and ZORDER BY
// (with and without deletion vectors) keep each row's identity by the protocol's
// rules, and after each Spark's _metadata.row_id and row_commit_version
// equal ours for every row; Spark then writes and OPTIMIZEs the table.
func TestSparkRowTracking(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	s := peers.Spark(t)
	dir := t.TempDir()
	s.Run(t,
		peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "CREATE TABLE {table} (id BIGINT, name STRING, day STRING) USING delta " +
			"PARTITIONED BY (day) TBLPROPERTIES ('delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'false')"},
		peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "INSERT INTO {table} VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2'), (4, 'd', 'd2'), (5, 'e', 'd2')"},
		peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "UPDATE {table} SET name = 'B' WHERE id = 2"},
	)
	same := sameRowIDs(t, s, dir)
	prev := same("Spark's UPDATE")
	tb := openT(t, dir)
	steps := append(firstIDSteps(t, tb, dir), []idStep{
		{"our MERGE", func() error {
			_, err := tb.Merge(ctx, people(t, []int64{1, 7}, []string{"A", "g"}, []string{"d1", "d2"}), deltalite.MergeOptions{
				Predicate: "t.id = s.id AND t.day = s.day",
				Clauses:   []merge.Clause{{When: merge.Matched, Action: merge.UpdateAll}, {When: merge.NotMatched, Action: merge.InsertAll}},
			})
			return err
		}, []int64{1}, []int64{7}},
		{"our OPTIMIZE", func() error {
			_, err := tb.Optimize(ctx, deltalite.OptimizeOptions{})
			return err
		}, nil, nil},
		{"our upsert", func() error {
			_, err := tb.Upsert(ctx, people(t, []int64{2, 10}, []string{"BBB", "j"}, []string{"d1", "d2"}), deltalite.UpsertOptions{PrimaryKeys: []string{"id", "day"}})
			return err
		}, []int64{2}, []int64{10}},
		{"our OPTIMIZE ZORDER BY", func() error {
			_, err := tb.Optimize(ctx, deltalite.OptimizeOptions{ZOrderBy: []string{"name"}, Force: true})
			return err
		}, nil, nil},
		{"deletion vectors on", func() error {
			err := tb.SetProperties(ctx, map[string]string{"delta.enableDeletionVectors": "true"}, deltalite.PropertiesOptions{})
			return err
		}, nil, nil},
		{"our UPDATE with deletion vectors", func() error {
			_, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 5", Set: map[string]string{"name": "'E'"}})
			return err
		}, []int64{5}, nil},
		{"our upsert with deletion vectors", func() error {
			_, err := tb.Upsert(ctx, people(t, []int64{7, 11}, []string{"G", "k"}, []string{"d2", "d1"}), deltalite.UpsertOptions{PrimaryKeys: []string{"id", "day"}})
			return err
		}, []int64{7}, []int64{11}},
		{"our DELETE with deletion vectors", func() error {
			_, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id = 6"})
			return err
		}, nil, nil},
		{"our OPTIMIZE of deletion vectors", func() error {
			_, err := tb.Optimize(ctx, deltalite.OptimizeOptions{})
			return err
		}, nil, nil},
	}...)
	prev = runIDSteps(t, tb, prev, same, steps)
	// Spark writes, changes and compacts after us.
	res := s.Run(t,
		peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "INSERT INTO {table} VALUES (8, 'h', 'd1'), (12, 'l', 'd1')"},
		peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "UPDATE {table} SET name = 'CC' WHERE id = 3"},
		peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "DELETE FROM {table} WHERE id = 12"},
		peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "MERGE INTO {table} t USING (SELECT 8 AS id, 'H' AS name, 'd1' AS day) s " +
			"ON t.id = s.id AND t.day = s.day WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"},
		peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "OPTIMIZE {table}"},
	)
	for _, r := range res {
		if !r.OK {
			t.Fatalf("Spark %s after us: %s", r.Op, r.Error)
		}
	}
	if err := tb.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	cur := same("Spark's writes after ours")
	if cur[3][0] != prev[3][0] || cur[1] != prev[1] || cur[7] != prev[7] {
		t.Errorf("Spark's UPDATE and OPTIMIZE after ours changed identities: %v -> %v", prev, cur)
	}
	sameCommitTags(t, tb)
}

// sameCommitTags holds that our commits on a table carry the commitInfo
// tags Spark's commits of the same operation on it carry (the
// delta.rowTracking.preserved tag: "true" on DELETE, UPDATE, MERGE and
// OPTIMIZE of a row-tracking table, none on WRITE), for every operation
// both engines committed; each operation, Spark's among them, must be one
// of those.
func sameCommitTags(t *testing.T, tb *deltalite.Table) {
	t.Helper()
	h, err := tb.History(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ ours, spark []string }
	byOp := map[string]*seen{}
	for _, c := range h {
		op := c.Info.Operation
		if byOp[op] == nil {
			byOp[op] = &seen{}
		}
		tags := fmt.Sprint(c.Info.Raw["tags"])
		engine, _ := c.Info.Raw["engineInfo"].(string)
		if strings.HasPrefix(engine, "deltalite") {
			byOp[op].ours = append(byOp[op].ours, tags)
		} else {
			byOp[op].spark = append(byOp[op].spark, tags)
		}
	}
	both := 0
	for _, op := range []string{"WRITE", "UPDATE", "DELETE", "MERGE", "OPTIMIZE"} {
		s := byOp[op]
		if s == nil || len(s.ours) == 0 || len(s.spark) == 0 {
			continue
		}
		both++
		for _, tags := range append(s.ours, s.spark...) {
			if tags != s.spark[0] {
				t.Errorf("%s commits carry tags %v (ours) and %v (Spark's)", op, s.ours, s.spark)
				break
			}
		}
		want := "map[delta.rowTracking.preserved:true]"
		if op == "WRITE" {
			want = "<nil>"
		}
		if s.spark[0] != want {
			t.Errorf("Spark's %s commits carry tags %s, want %s", op, s.spark[0], want)
		}
	}
	if both != 5 {
		t.Errorf("operations both engines committed: %d of 5 (%s)", both, strings.Join(slices.Sorted(maps.Keys(byOp)), ", "))
	}
}

// TestRowTrackingTablesWeMakeInterop: a table we create with row tracking
// and one we turn it on for (protocol upgrade, backfill, then the
// property, as Spark does) after copy-on-write rewrites: Spark's row ids
// equal ours, Spark writes and updates them keeping the rules, and
// delta-rs and DuckDB's delta extension read their rows (never the hidden
// materialized columns).
func TestRowTrackingTablesWeMakeInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	created, enabled := t.TempDir(), t.TempDir()
	mustWrite(t, created, people(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, []string{"d1", "d1", "d2"}),
		deltalite.WriteOptions{PartitionBy: []string{"day"}, Properties: rowTrackingOn})
	mustWrite(t, enabled, people(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, []string{"d1", "d1", "d2"}),
		deltalite.WriteOptions{PartitionBy: []string{"day"}})
	mustWrite(t, enabled, people(t, []int64{4}, []string{"d"}, []string{"d2"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	en := openT(t, enabled)
	if err := en.SetProperties(ctx, rowTrackingOn, deltalite.PropertiesOptions{}); err != nil {
		t.Fatal(err)
	}
	// Versions 2, 3 and 4: the upgrade, the backfill, the property.
	want := []string{"SET TBLPROPERTIES", "ROW TRACKING BACKFILL", "UPGRADE PROTOCOL", "WRITE", "WRITE"}
	if ops := historyOf(t, en); !slices.Equal(ops, want) {
		t.Fatalf("history %v, want %v", ops, want)
	}
	backfilled := identities(t, enabled)
	for id, v := range backfilled {
		if v[1] != 3 {
			t.Errorf("row %d: %v, want the backfill's version 3", id, v)
		}
	}
	for _, dir := range []string{created, enabled} {
		tb := openT(t, dir)
		before := identities(t, dir)
		if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 1", Set: map[string]string{"name": "'A'"}}); err != nil {
			t.Fatal(err)
		}
		checkIdentities(t, "our UPDATE on "+dir, before, identities(t, dir), tb.Version(), []int64{1}, nil)
	}
	s := peers.Spark(t)
	for _, dir := range []string{created, enabled} {
		before := rowIDs(t, dir, "id", "name")
		res := s.Run(t, sparkRowIDs(dir),
			peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "INSERT INTO {table} VALUES (9, 'i', 'd2')"},
			peers.Op{"op": "sql", "path": dir, "collect": false, "sql": "UPDATE {table} SET name = 'BB' WHERE id = 2"},
		)
		arrowrows.Diff(t, res[0].Table(t).Lines(t), before)
		for _, r := range res[1:] {
			if !r.OK {
				t.Fatalf("Spark %s on %s: %s", r.Op, dir, r.Error)
			}
		}
		arrowrows.Diff(t, s.Run(t, sparkRowIDs(dir))[0].Table(t).Lines(t), rowIDs(t, dir, "id", "name"))
		ours := readRows(t, dir)
		for _, engine := range []string{peers.DeltaRS, peers.DuckDBDelta} {
			arrowrows.Diff(t, peers.ReadTable(t, engine, dir, peers.ReadOptions{}).Lines(t), ours)
		}
	}
}

// historyOf lists the table's operations, newest first.
func historyOf(t *testing.T, tb *deltalite.Table) []string {
	t.Helper()
	h, err := tb.History(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range h {
		out = append(out, c.Info.Operation)
	}
	return out
}
