package deltalite_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// changeFeedHistory writes a partitioned table with the change data feed
// on and changes it with DELETE, UPDATE, MERGE and replace-where
// overwrites (versions 1 to 6); it
// returns the change rows each version should have, as Spark's
// table_changes renders (id, name, day, _change_type, _commit_version).
func changeFeedHistory(t *testing.T) (string, []string) {
	t.Helper()
	return changeFeedHistoryWith(t, nil)
}

// changeFeedHistoryWith is changeFeedHistory on a table with more
// properties (deletion vectors): the same change rows.
func changeFeedHistoryWith(t *testing.T, props map[string]string) (string, []string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	properties := map[string]string{protocol.PropEnableChangeDataFeed: "true"}
	maps.Copy(properties, props)
	_, err := deltalite.Write(ctx, dir, people(t, []int64{1, 2, 3, 4, 5, 6}, []string{"a", "b", "c", "d", "e", "f"},
		[]string{"d1", "d1", "d1", "d2", "d2", "d2"}), deltalite.WriteOptions{
		PartitionBy: []string{"day"}, Properties: properties})
	if err != nil {
		t.Fatal(err)
	}
	tb := openT(t, dir)
	// Version 1: day d2's file holds only matching rows (dropped whole by
	// its statistics), d1's only one: one commit with change data files
	// for all four deleted rows.
	if _, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id >= 4 OR id = 2"}); err != nil {
		t.Fatal(err)
	}
	// Version 2: an update's pre- and post-image.
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 3", Set: map[string]string{"name": "'C'"}}); err != nil {
		t.Fatal(err)
	}
	// Version 3: a merge that deletes, updates and inserts.
	if _, err := tb.Merge(ctx, people(t, []int64{1, 3, 7, 8}, []string{"del", "x", "g", "h"}, []string{"d1", "d1", "d3", "d1"}), deltalite.MergeOptions{
		Predicate: "t.id = s.id AND t.day = s.day",
		Clauses: []merge.Clause{
			{When: merge.Matched, Predicate: "s.name = 'del'", Action: merge.Delete},
			{When: merge.Matched, Action: merge.UpdateAll},
			{When: merge.NotMatched, Action: merge.InsertAll},
		}}); err != nil {
		t.Fatal(err)
	}
	// Version 4: a delete of whole files writes no change data: readers
	// take the removed files' rows as deleted.
	if _, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "day = 'd3'"}); err != nil {
		t.Fatal(err)
	}
	// Version 5: a replace-where that keeps part of a file (ids 3 and 8):
	// its deletes and inserts (Spark writes no update images for it).
	// Version 6: one of a whole partition writes none.
	for _, w := range []struct {
		where string
		rows  array.RecordReader
	}{{"id = 3", people(t, []int64{3}, []string{"y"}, []string{"d1"})}, {"day = 'd9'", people(t, []int64{9}, []string{"n"}, []string{"d9"})}} {
		if _, err := deltalite.Write(ctx, dir, w.rows, deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: w.where}); err != nil {
			t.Fatal(err)
		}
	}
	change := func(id int64, name, day, kind string, v int64) string {
		return fmt.Sprintf("_change_type=%q, _commit_version=%d, day=%q, id=%d, name=%q", kind, v, day, id, name)
	}
	want := []string{
		change(2, "b", "d1", "delete", 1), change(4, "d", "d2", "delete", 1), change(5, "e", "d2", "delete", 1), change(6, "f", "d2", "delete", 1),
		change(3, "c", "d1", "update_preimage", 2), change(3, "C", "d1", "update_postimage", 2),
		change(1, "a", "d1", "delete", 3), change(3, "C", "d1", "update_preimage", 3), change(3, "x", "d1", "update_postimage", 3), change(7, "g", "d3", "insert", 3), change(8, "h", "d1", "insert", 3),
		change(7, "g", "d3", "delete", 4),
		change(3, "x", "d1", "delete", 5), change(3, "y", "d1", "insert", 5),
		change(9, "n", "d9", "insert", 6),
	}
	slices.Sort(want)
	return dir, want
}

// TestChangeDataFilesAsSparkWrites: the change data files of a DELETE,
// UPDATE and MERGE sit under _change_data/ in partition folders, one cdc
// action each, in the commit of the change; a delete of whole files has
// none.
func TestChangeDataFilesAsSparkWrites(t *testing.T) {
	dir, _ := changeFeedHistory(t)
	for v, want := range map[int64]bool{1: true, 2: true, 3: true, 4: false, 5: true, 6: false} {
		actions := decodedCommit(t, dir, v)
		var cdc []*protocol.CDC
		for _, a := range actions {
			if a.CDC != nil {
				cdc = append(cdc, a.CDC)
			}
		}
		if (len(cdc) > 0) != want {
			t.Errorf("version %d: %d cdc actions, want some: %t", v, len(cdc), want)
		}
		for _, c := range cdc {
			day := c.PartitionValues["day"]
			if !strings.HasPrefix(c.Path, "_change_data/day="+day+"/cdc-") || c.DataChange || c.Size <= 0 {
				t.Errorf("version %d: cdc action %+v", v, c)
			}
			if _, err := os.Stat(filepath.Join(dir, c.Path)); err != nil {
				t.Errorf("version %d: %v", v, err)
			}
		}
	}
}

// TestSparkReadsOurChangeFeed: Spark's table_changes over our DELETE,
// UPDATE and MERGE on a change-data-feed table gives exactly the rows
// each changed.
func TestSparkReadsOurChangeFeed(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	dir, want := changeFeedHistory(t)
	res := peers.Spark(t).Run(t, peers.Op{"op": "sql", "path": dir,
		"sql": "SELECT id, name, day, _change_type, _commit_version FROM table_changes_by_path('" + dir + "', 1)"})
	got := res[0].Table(t).Lines(t)
	if !slices.Equal(got, want) {
		t.Errorf("Spark's table_changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestChangesReadOurChangeFeed: this engine's change feed reader gives the
// rows each of our DELETE, UPDATE and MERGE changed, as Spark's does.
func TestChangesReadOurChangeFeed(t *testing.T) {
	dir, want := changeFeedHistory(t)
	got := changeRows(t, dir, deltalite.ChangesOptions{
		FromVersion: 1, Columns: []string{"id", "name", "day", "_change_type", "_commit_version"}})
	if !slices.Equal(got, want) {
		t.Errorf("Changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUpsertWritesChangeFeed: an upsert into a change-data-feed table
// writes its updates as pre- and post-images, its inserts (into a new
// partition too) and the deletes of its delete column, which this
// engine's reader and Spark's table_changes both read back.
func TestUpsertWritesChangeFeed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := deltalite.Write(ctx, dir, people(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, []string{"d1", "d1", "d2"}),
		deltalite.WriteOptions{PartitionBy: []string{"day"}, Properties: map[string]string{protocol.PropEnableChangeDataFeed: "true"}}); err != nil {
		t.Fatal(err)
	}
	src := fromJSON(t, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "day", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "gone", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil), `[{"id":2,"name":"B","day":"d1","gone":false},{"id":4,"name":"d","day":"d1","gone":false},
		{"id":5,"name":"e","day":"d3","gone":false},{"id":3,"name":"c","day":"d2","gone":true}]`)
	s, err := openT(t, dir).Upsert(ctx, src, deltalite.UpsertOptions{PrimaryKeys: []string{"id"}, PartitionBy: []string{"day"}, DeleteColumn: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsUpdated != 1 || s.RowsInserted != 2 || s.RowsDeleted != 1 {
		t.Fatalf("upsert: %s", s)
	}
	change := func(id int64, name, day, kind string) string {
		return fmt.Sprintf("_change_type=%q, _commit_version=1, day=%q, id=%d, name=%q", kind, day, id, name)
	}
	want := []string{change(2, "b", "d1", "update_preimage"), change(2, "B", "d1", "update_postimage"),
		change(4, "d", "d1", "insert"), change(5, "e", "d3", "insert"), change(3, "c", "d2", "delete")}
	slices.Sort(want)
	cols := []string{"id", "name", "day", "_change_type", "_commit_version"}
	if got := changeRows(t, dir, deltalite.ChangesOptions{FromVersion: 1, Columns: cols}); !slices.Equal(got, want) {
		t.Errorf("Changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if cdc := countCDC(t, dir, 1); cdc == 0 {
		t.Error("the upsert's commit has no cdc action")
	}
	if testing.Short() {
		return
	}
	res := peers.Spark(t).Run(t, peers.Op{"op": "sql", "path": dir,
		"sql": "SELECT id, name, day, _change_type, _commit_version FROM table_changes_by_path('" + dir + "', 1)"})
	if got := res[0].Table(t).Lines(t); !slices.Equal(got, want) {
		t.Errorf("Spark's table_changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// countCDC counts the cdc actions of commit v.
func countCDC(t *testing.T, dir string, v int64) int {
	t.Helper()
	n := 0
	for _, a := range decodedCommit(t, dir, v) {
		if a.CDC != nil {
			n++
		}
	}
	return n
}
