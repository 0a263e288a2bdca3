package deltalite_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// vectorAddsAt lists the paths of the adds of commit v that carry a
// deletion vector.
func vectorAddsAt(t *testing.T, dir string, v int64) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, protocol.CommitKey(v)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var a protocol.Action
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if a.Add != nil && a.Add.DeletionVector != nil {
			out = append(out, a.Add.Path)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeletionVectorsDisabled: on a table whose protocol has the
// deletionVectors feature but whose delta.enableDeletionVectors is false
// (turned off after a DELETE wrote a vector), DELETE, UPDATE, MERGE and
// upsert write copy-on-write, a file that already carries a vector
// included (its rows rewritten without the deleted ones), and no commit
// adds a vector; a commit crafted to add one is refused naming the
// property and changes nothing, as Spark refuses it
// (DELTA_ADDING_DELETION_VECTORS_DISALLOWED). Spark reads our rows.
func TestDeletionVectorsDisabled(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mustWrite(t, dir, people(t, []int64{1, 2, 3, 4, 5, 6}, []string{"a", "b", "c", "d", "e", "f"}, []string{"d1", "d1", "d1", "d2", "d2", "d2"}),
		deltalite.WriteOptions{PartitionBy: []string{"day"}, Properties: map[string]string{protocol.PropEnableDeletionVectors: "true"}})
	tb := openT(t, dir)
	if ds, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id = 1"}); err != nil || ds.DeletionVectorsAdded != 1 {
		t.Fatalf("DELETE with vectors on: %+v, %v", ds, err)
	}
	var withVector *protocol.Add
	for _, a := range tb.Snapshot().Files() {
		if a.DeletionVector != nil {
			withVector = a
		}
	}
	if withVector == nil {
		t.Fatal("no file carries the DELETE's deletion vector")
	}
	if err := tb.SetProperties(ctx, map[string]string{protocol.PropEnableDeletionVectors: "false"}, deltalite.PropertiesOptions{}); err != nil {
		t.Fatal(err)
	}
	if !tb.Snapshot().Protocol().HasFeature("deletionVectors") {
		t.Fatal("the protocol lost the deletionVectors feature")
	}

	steps := []struct {
		name string
		run  func() (dvs int, err error)
	}{
		{"DELETE", func() (int, error) {
			s, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id = 2"}) // the file with the vector
			return s.DeletionVectorsAdded, err
		}},
		{"UPDATE", func() (int, error) {
			s, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 4", Set: map[string]string{"name": "'D'"}})
			return s.DeletionVectorsAdded, err
		}},
		{"MERGE", func() (int, error) {
			s, err := tb.Merge(ctx, people(t, []int64{5, 7}, []string{"E", "g"}, []string{"d2", "d2"}), deltalite.MergeOptions{
				Predicate: "t.id = s.id AND t.day = s.day",
				Clauses:   []merge.Clause{{When: merge.Matched, Action: merge.UpdateAll}, {When: merge.NotMatched, Action: merge.InsertAll}},
			})
			return s.TargetDeletionVectorsAdded, err
		}},
		{"upsert", func() (int, error) {
			s, err := tb.Upsert(ctx, people(t, []int64{3, 8}, []string{"C", "h"}, []string{"d1", "d1"}), deltalite.UpsertOptions{PrimaryKeys: []string{"id", "day"}})
			return s.DeletionVectorsAdded, err
		}},
	}
	for _, st := range steps {
		dvs, err := st.run()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := vectorAddsAt(t, dir, tb.Version()); dvs != 0 || len(got) != 0 {
			t.Errorf("%s with %s=false: %d deletion vectors added, adds with a vector %v; want copy-on-write", st.name, protocol.PropEnableDeletionVectors, dvs, got)
		}
	}
	want := []string{`day="d1", id=3, name="C"`, `day="d1", id=8, name="h"`, `day="d2", id=4, name="D"`,
		`day="d2", id=5, name="E"`, `day="d2", id=6, name="f"`, `day="d2", id=7, name="g"`}
	if got := readRows(t, dir); !slices.Equal(got, want) {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A commit crafted to re-add a live file with a vector is refused.
	snap, err := snapshot.Load(ctx, mustStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	live := snap.Files()[0]
	re := *live
	re.DeletionVector = withVector.DeletionVector
	re.Stats = `{"numRecords":2,"tightBounds":false}`
	tx := txn.Begin(snap, txn.Operation{Name: txn.OpDelete}, txn.Options{})
	tx.ReadFiles(live)
	tx.Add(protocol.Action{Remove: protocol.RemoveOf(live, 1)}, protocol.Action{Add: &re})
	_, err = tx.Commit(ctx)
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), protocol.PropEnableDeletionVectors) || !strings.Contains(err.Error(), live.Path) {
		t.Fatalf("crafted commit with a deletion vector: %v, want a refusal naming %s and %s", err, protocol.PropEnableDeletionVectors, live.Path)
	}
	if after, err := snapshot.Load(ctx, mustStore(t, dir)); err != nil || after.Version() != snap.Version() {
		t.Fatalf("the refused commit changed the table: %v", err)
	}
	if testing.Short() {
		return
	}
	if got := peers.ReadTable(t, "spark", dir, peers.ReadOptions{}).Lines(t); !slices.Equal(got, want) {
		t.Errorf("Spark reads:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
