package deltalite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// dvHistory writes a table with deletion vectors on (two files per day)
// and changes it with DELETE, UPDATE and MERGE, each of which should mark
// rows in deletion vectors rather than rewrite files. It returns the rows
// the table should hold.
func dvHistory(t *testing.T) (string, []string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for _, batch := range [][]int64{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}} {
		names := make([]string, len(batch))
		days := make([]string, len(batch))
		for i, id := range batch {
			names[i] = string(rune('a' + id - 1))
			days[i] = []string{"d1", "d2"}[id%2]
		}
		_, err := deltalite.Write(ctx, dir, people(t, batch, names, days), deltalite.WriteOptions{
			PartitionBy: []string{"day"}, Mode: deltalite.ModeAppend,
			Properties: map[string]string{protocol.PropEnableDeletionVectors: "true"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	tb := openT(t, dir)
	ds, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id = 2 OR id = 5"})
	if err != nil {
		t.Fatal(err)
	}
	if ds.RowsDeleted != 2 || ds.DeletionVectorsAdded != 2 || ds.FilesAdded != 0 || ds.RowsCopied != 0 {
		t.Errorf("delete: %+v, want 2 rows deleted through 2 deletion vectors, no file written", ds)
	}
	us, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 4", Set: map[string]string{"name": "'D'"}})
	if err != nil {
		t.Fatal(err)
	}
	if us.RowsUpdated != 1 || us.DeletionVectorsAdded != 1 || us.FilesAdded != 1 || us.RowsCopied != 0 {
		t.Errorf("update: %+v, want 1 row in 1 new file, 1 deletion vector", us)
	}
	ms, err := tb.Merge(ctx, people(t, []int64{1, 4, 11, 13}, []string{"del", "x", "K", "m"}, []string{"d2", "d1", "d2", "d2"}), deltalite.MergeOptions{
		Predicate: "t.id = s.id AND t.day = s.day",
		Clauses: []merge.Clause{
			{When: merge.Matched, Predicate: "s.name = 'del'", Action: merge.Delete},
			{When: merge.Matched, Action: merge.UpdateAll},
			{When: merge.NotMatched, Action: merge.InsertAll},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if ms.TargetRowsCopied != 0 || ms.TargetDeletionVectorsAdded == 0 {
		t.Errorf("merge: %+v, want deletion vectors and no copied row", ms)
	}
	// Every row of the first file of day d2 (1, 3, 5) leaves in the end:
	// deleting 3 removes that file whole.
	ds, err = tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id = 3"})
	if err != nil {
		t.Fatal(err)
	}
	if ds.FilesRemoved != 1 || ds.DeletionVectorsAdded != 0 {
		t.Errorf("delete of a file's last row: %+v, want the file removed", ds)
	}
	return dir, []string{
		`day="d1", id=10, name="j"`, `day="d1", id=12, name="l"`, `day="d1", id=4, name="x"`, `day="d1", id=6, name="f"`,
		`day="d1", id=8, name="h"`, `day="d2", id=11, name="K"`, `day="d2", id=13, name="m"`, `day="d2", id=7, name="g"`,
		`day="d2", id=9, name="i"`,
	}
}

// TestDeletionVectorsWritten: DELETE, UPDATE and MERGE on a table with
// deletion vectors on keep the files and mark the rows that left; we,
// Spark and delta-rs read the same rows.
func TestDeletionVectorsWritten(t *testing.T) {
	dir, want := dvHistory(t)
	got := readRows(t, dir)
	if !slices.Equal(got, want) {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	snap, err := snapshot.Load(context.Background(), mustStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	withDV := 0
	for _, a := range snap.Files() {
		if a.DeletionVector != nil {
			withDV++
			if !strings.Contains(a.Stats, `"tightBounds":false`) {
				t.Errorf("%s: a file with a deletion vector keeps tight bounds: %s", a.Path, a.Stats)
			}
		}
	}
	if withDV == 0 {
		t.Fatal("no live file has a deletion vector")
	}
	if testing.Short() {
		return
	}
	for _, engine := range []string{"deltalake", "spark"} {
		if got := peers.ReadTable(t, engine, dir, peers.ReadOptions{}).Lines(t); !slices.Equal(got, want) {
			t.Errorf("%s reads:\n%s\nwant:\n%s", engine, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestUpsertWritesDeletionVectors: an upsert into a table with deletion
// vectors (and the change data feed) on marks the replaced and deleted
// rows instead of rewriting their files, writes only the source rows, and
// its change feed is the same as copy-on-write's; we, Spark and delta-rs
// read the same rows, and Spark's table_changes agrees with ours.
func TestUpsertWritesDeletionVectors(t *testing.T) {
	ctx := context.Background()
	src := func() array.RecordReader {
		return fromJSON(t, arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "day", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "gone", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		}, nil), `[{"id":2,"name":"B","day":"d1","gone":false},{"id":4,"name":"d","day":"d1","gone":false},
			{"id":5,"name":"e","day":"d3","gone":false},{"id":3,"name":"c","day":"d2","gone":true},
			{"id":6,"name":"F","day":"d2","gone":false}]`)
	}
	want := []string{`day="d1", id=1, name="a"`, `day="d1", id=2, name="B"`, `day="d1", id=4, name="d"`,
		`day="d2", id=6, name="F"`, `day="d2", id=7, name="g"`, `day="d3", id=5, name="e"`}
	var feeds [2][]string
	for i, cow := range []bool{false, true} {
		dir := t.TempDir()
		if _, err := deltalite.Write(ctx, dir, people(t, []int64{1, 2, 3, 6, 7}, []string{"a", "b", "c", "f", "g"}, []string{"d1", "d1", "d2", "d2", "d2"}),
			deltalite.WriteOptions{PartitionBy: []string{"day"}, Properties: map[string]string{
				protocol.PropEnableDeletionVectors: "true", protocol.PropEnableChangeDataFeed: "true"}}); err != nil {
			t.Fatal(err)
		}
		s, err := openT(t, dir).Upsert(ctx, src(), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}, PartitionBy: []string{"day"},
			DeleteColumn: "gone", CopyOnWrite: cow})
		if err != nil {
			t.Fatal(err)
		}
		if s.RowsUpdated != 2 || s.RowsInserted != 2 || s.RowsDeleted != 1 {
			t.Fatalf("upsert (copy-on-write %t): %s", cow, s)
		}
		if !cow && (s.DeletionVectorsAdded != 2 || s.RowsCopied != 0 || s.FilesRemoved != 0) {
			t.Errorf("upsert with deletion vectors: %+v, want 2 deletion vectors, no row copied, no file removed", s)
		}
		if cow && (s.DeletionVectorsAdded != 0 || s.RowsCopied != 2) {
			t.Errorf("copy-on-write upsert: %+v, want 2 rows copied", s)
		}
		if got := readRows(t, dir); !slices.Equal(got, want) {
			t.Fatalf("rows (copy-on-write %t):\n%s\nwant:\n%s", cow, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		feeds[i] = changeRows(t, dir, deltalite.ChangesOptions{FromVersion: 1, Columns: []string{"id", "name", "day", "_change_type"}})
		if i == 0 && !testing.Short() {
			for _, engine := range []string{"deltalake", "spark"} {
				if got := peers.ReadTable(t, engine, dir, peers.ReadOptions{}).Lines(t); !slices.Equal(got, want) {
					t.Errorf("%s reads:\n%s\nwant:\n%s", engine, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
			res := peers.Spark(t).Run(t, peers.Op{"op": "sql", "path": dir,
				"sql": "SELECT id, name, day, _change_type FROM table_changes_by_path('" + dir + "', 1)"})
			if got := res[0].Table(t).Lines(t); !slices.Equal(got, feeds[0]) {
				t.Errorf("Spark's table_changes:\n%s\nours:\n%s", strings.Join(got, "\n"), strings.Join(feeds[0], "\n"))
			}
		}
	}
	if !slices.Equal(feeds[0], feeds[1]) || len(feeds[0]) != 7 {
		t.Errorf("change feed with deletion vectors:\n%s\ncopy-on-write:\n%s", strings.Join(feeds[0], "\n"), strings.Join(feeds[1], "\n"))
	}
}

// TestConcurrentDeletionVectorChanges: deletes, updates and upserts that
// change the deletion vector of the same file at once never resurrect a
// deleted row or lose a change: each commit that loses the race plans
// again on the newer table, whose vector it extends.
func TestConcurrentDeletionVectorChanges(t *testing.T) {
	ctx := context.Background()
	for round := range 5 {
		dir := t.TempDir()
		ids := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
		names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
		days := slices.Repeat([]string{"d1"}, len(ids))
		if _, err := deltalite.Write(ctx, dir, people(t, ids, names, days), deltalite.WriteOptions{
			Properties: map[string]string{protocol.PropEnableDeletionVectors: "true"}}); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 6)
		for i := range int64(3) {
			go func() {
				_, err := openT(t, dir).Delete(ctx, deltalite.DeleteOptions{Predicate: fmt.Sprintf("id = %d", i+1)})
				errc <- err
			}()
			go func() {
				_, err := openT(t, dir).Update(ctx, deltalite.UpdateOptions{Predicate: fmt.Sprintf("id = %d", i+4), Set: map[string]string{"name": "'U'"}})
				errc <- err
			}()
		}
		for range 6 {
			if err := <-errc; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if _, err := openT(t, dir).Upsert(ctx, people(t, []int64{7, 11}, []string{"V", "k"}, []string{"d1", "d1"}),
			deltalite.UpsertOptions{PrimaryKeys: []string{"id"}}); err != nil {
			t.Fatal(err)
		}
		want := []string{`day="d1", id=10, name="j"`, `day="d1", id=11, name="k"`, `day="d1", id=4, name="U"`, `day="d1", id=5, name="U"`,
			`day="d1", id=6, name="U"`, `day="d1", id=7, name="V"`, `day="d1", id=8, name="h"`, `day="d1", id=9, name="i"`}
		if got := readRows(t, dir); !slices.Equal(got, want) {
			t.Fatalf("round %d rows:\n%s\nwant:\n%s", round, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestDeletionVectorsTakeTurnsWithSpark: Spark and this engine change the
// same files' deletion vectors in turn (Spark's DELETE, our upsert,
// Spark's UPDATE, our DELETE and MERGE), each extending the other's
// vectors; Spark, delta-rs and we read the same rows after every turn.
func TestDeletionVectorsTakeTurnsWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	spark := peers.Spark(t)
	spark.Run(t,
		peers.Op{"op": "write", "path": dir, "mode": "append", "partition_by": []string{"day"},
			"properties": map[string]string{"delta.enableDeletionVectors": "true"},
			"schema":     []map[string]any{{"name": "id", "type": "long"}, {"name": "name", "type": "string"}, {"name": "day", "type": "string"}},
			"rows": []map[string]any{
				{"id": 1, "name": "a", "day": "d1"}, {"id": 2, "name": "b", "day": "d1"}, {"id": 3, "name": "c", "day": "d1"},
				{"id": 4, "name": "d", "day": "d1"}, {"id": 5, "name": "e", "day": "d2"}, {"id": 6, "name": "f", "day": "d2"},
			}},
		peers.Op{"op": "delete", "path": dir, "predicate": "id = 2"},
	)
	agree := func(turn string, want []string) {
		t.Helper()
		slices.Sort(want)
		if got := readRows(t, dir); !slices.Equal(got, want) {
			t.Fatalf("after %s we read:\n%s\nwant:\n%s", turn, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got := spark.Read(t, dir, peers.ReadOptions{}).Lines(t); !slices.Equal(got, want) {
			t.Errorf("after %s Spark reads:\n%s\nwant:\n%s", turn, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got := peers.ReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{}).Lines(t); !slices.Equal(got, want) {
			t.Errorf("after %s delta-rs reads:\n%s\nwant:\n%s", turn, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	row := func(id int64, name, day string) string { return fmt.Sprintf("day=%q, id=%d, name=%q", day, id, name) }
	tb := openT(t, dir)
	us, err := tb.Upsert(ctx, people(t, []int64{3, 7}, []string{"C", "g"}, []string{"d1", "d1"}), deltalite.UpsertOptions{
		PrimaryKeys: []string{"id"}, PartitionBy: []string{"day"}})
	if err != nil {
		t.Fatal(err)
	}
	if us.DeletionVectorsAdded == 0 || us.RowsCopied != 0 {
		t.Fatalf("our upsert after Spark's DELETE: %+v, want a deletion vector and no row copied", us)
	}
	agree("our upsert", []string{row(1, "a", "d1"), row(3, "C", "d1"), row(4, "d", "d1"), row(5, "e", "d2"), row(6, "f", "d2"), row(7, "g", "d1")})
	spark.Run(t, peers.Op{"op": "sql", "path": dir, "sql": "UPDATE {table} SET name = 'A' WHERE id = 1", "collect": false})
	agree("Spark's UPDATE", []string{row(1, "A", "d1"), row(3, "C", "d1"), row(4, "d", "d1"), row(5, "e", "d2"), row(6, "f", "d2"), row(7, "g", "d1")})
	tb = openT(t, dir)
	if ds, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id IN (4, 5)"}); err != nil || ds.DeletionVectorsAdded == 0 || ds.RowsCopied != 0 {
		t.Fatalf("our delete: %+v, %v; want deletion vectors and no row copied", ds, err)
	}
	if _, err := tb.Merge(ctx, people(t, []int64{6, 8}, []string{"F", "h"}, []string{"d2", "d2"}), deltalite.MergeOptions{
		MergeType: merge.TypeUpsert, Predicate: "t.id = s.id AND t.day = s.day"}); err != nil {
		t.Fatal(err)
	}
	agree("our DELETE and MERGE", []string{row(1, "A", "d1"), row(3, "C", "d1"), row(6, "F", "d2"), row(7, "g", "d1"), row(8, "h", "d2")})
}

// TestChangeFeedWithDeletionVectors: DELETE, UPDATE, MERGE and
// replace-where on a table with deletion vectors and the change data feed
// on write the same change rows as copy-on-write does; our reader and
// Spark's table_changes read them, and files kept their rows in deletion
// vectors.
func TestChangeFeedWithDeletionVectors(t *testing.T) {
	dir, want := changeFeedHistoryWith(t, map[string]string{protocol.PropEnableDeletionVectors: "true"})
	got := changeRows(t, dir, deltalite.ChangesOptions{
		FromVersion: 1, Columns: []string{"id", "name", "day", "_change_type", "_commit_version"}})
	if !slices.Equal(got, want) {
		t.Errorf("Changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !tablerows.CommittedDeletionVector(t, dir) {
		t.Fatal("no commit added a deletion vector")
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
