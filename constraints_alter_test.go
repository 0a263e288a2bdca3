package deltalite_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// TestAlterConstraints: ADD CONSTRAINT checks the rows first and refuses,
// changing nothing, when one violates (FALSE or NULL, as Spark counts
// them); added, it holds every later write; DROP CONSTRAINT lifts it.
// Each is one commit with Spark's operation name and parameters.
func TestAlterConstraints(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	mustWrite(t, dir, people(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, []string{"d1", "d2", "d3"}), deltalite.WriteOptions{})
	tb := openT(t, dir)

	refusedUnchanged(t, dir, "violated by rows", "2 rows in the table violate the new CHECK constraint small_id (id < 2)", func() error {
		_, err := tb.Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"small_id": "id < 2"}})
		return err
	})
	refusedUnchanged(t, dir, "unknown column", "nope", func() error {
		_, err := tb.Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"c": "nope > 1"}})
		return err
	})
	// Spark would have substituted the variable before storing the text.
	refusedUnchanged(t, dir, "a Spark variable", "${who} in \"name <> '${who}'\" is a variable Spark substitutes", func() error {
		_, err := tb.Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"c": "name <> '${who}'"}})
		return err
	})
	refusedUnchanged(t, dir, "drop a missing one", `nonexistent constraint "missing"`, func() error {
		_, err := tb.Alter(ctx, deltalite.AlterOptions{DropConstraints: []string{"missing"}})
		return err
	})

	done, err := tb.Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"positive_id": "id > 0", "named": "name IS NOT NULL"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 || done[0].Operation != "ADD CONSTRAINT" || done[1].Version != 2 {
		t.Fatalf("changes %+v", done)
	}
	snap := tb.Snapshot()
	if snap.Properties()["delta.constraints.positive_id"] != "id > 0" || !snap.Protocol().HasFeature("checkConstraints") {
		t.Fatalf("after ADD CONSTRAINT: %v, %s", snap.Properties(), snap.Protocol())
	}
	hist, err := tb.History(ctx, 1)
	if err != nil || len(hist) != 1 {
		t.Fatal(hist, err)
	}
	if p := hist[0].Info.OperationParameters; hist[0].Info.Operation != "ADD CONSTRAINT" || p["name"] != "positive_id" || p["expr"] != "id > 0" {
		t.Fatalf("commitInfo %s %v", hist[0].Info.Operation, p)
	}
	// The name is taken, whatever its case.
	refusedUnchanged(t, dir, "exists", "already exists", func() error {
		_, err := tb.Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"POSITIVE_ID": "id > 1"}})
		return err
	})
	// A later write is checked against it.
	refusedUnchanged(t, dir, "violating append", "positive_id", func() error {
		_, err := deltalite.Write(ctx, dir, people(t, []int64{-5}, []string{"x"}, []string{"d9"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})

	done, err = tb.Alter(ctx, deltalite.AlterOptions{DropConstraints: []string{"positive_id"}})
	if err != nil || len(done) != 1 || done[0].Operation != "DROP CONSTRAINT" {
		t.Fatalf("drop: %+v, %v", done, err)
	}
	hist, err = tb.History(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := hist[0].Info.OperationParameters; p["name"] != "positive_id" || p["expr"] != "id > 0" || p["existed"] != "true" {
		t.Fatalf("DROP CONSTRAINT parameters %v", p)
	}
	mustWrite(t, dir, people(t, []int64{-5}, []string{"x"}, []string{"d9"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	if _, ok := openT(t, dir).Snapshot().Properties()["delta.constraints.named"]; !ok {
		t.Fatal("the other constraint went too")
	}
	if got := slices.Collect(func(yield func(string) bool) {
		for k := range openT(t, dir).Snapshot().Properties() {
			if strings.HasPrefix(k, "delta.constraints.") && !yield(k) {
				return
			}
		}
	}); len(got) != 1 {
		t.Fatalf("constraints left: %v", got)
	}
}

// TestSparkKeepsOurConstraint: a constraint we add is Spark's too: its
// violating INSERT is refused naming it, a good one lands.
func TestSparkKeepsOurConstraint(t *testing.T) {
	s := peers.Spark(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	mustWrite(t, dir, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"}), deltalite.WriteOptions{})
	if _, err := openT(t, dir).Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"positive_id": "id > 0"}}); err != nil {
		t.Fatal(err)
	}
	res := s.Try(t,
		sparkSQL(dir, "INSERT INTO {table} VALUES (-1, 'spark', 'd8')", false),
		sparkSQL(dir, "INSERT INTO {table} VALUES (4, 'spark', 'd8')", false))
	if res[0].OK || !strings.Contains(res[0].Error, "positive_id") || !res[1].OK {
		t.Fatalf("Spark on our constraint: violating insert %+v, good insert %+v", res[0], res[1])
	}
	if v := openT(t, dir).Version(); v != 2 {
		t.Fatalf("version %d after Spark's one good insert", v)
	}
}
