package deltalite_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/testkit/peers"
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
