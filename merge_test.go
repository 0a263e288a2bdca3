package deltalite_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
)

// dmlReader yields JSON rows of dmlSchema as one batch.
func dmlReader(t *testing.T, rows string) array.RecordReader {
	t.Helper()
	return jsonrows.Reader(t, dmlSchema, rows)
}

func TestMergeFacade(t *testing.T) {
	dir := dmlTable(t, nil, dmlRows...)
	tb := openT(t, dir)
	before := tb.Version()
	st, err := tb.Merge(context.Background(), dmlReader(t, `[{"id":1,"x":10,"s":"A","p":"a"},{"id":7,"x":7,"s":"g","p":"b"}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id AND t.p = s.p", Clauses: []merge.Clause{
			{When: merge.Matched, Action: merge.Update, Predicate: "s.x > t.x", Set: map[string]string{"x": "s.x", "s": "upper(t.s) || s.s"}},
			{When: merge.NotMatched, Action: merge.InsertAll},
			{When: merge.NotMatchedBySource, Action: merge.Delete, Predicate: "t.p IS NULL"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if tb.Version() != before+1 || st.Version != tb.Version() || st.TargetRowsUpdated != 1 || st.TargetRowsInserted != 1 || st.TargetRowsDeleted != 1 {
		t.Fatalf("stats %s, table at %d", st, tb.Version())
	}
	want := []string{`id=1, p="a", s="AA", x=10`, `id=2, p="a", s="b", x=null`, `id=3, p="b", s=null, x=30`,
		`id=4, p="a", s="d", x=4`, `id=5, p="b", s="e", x=50`, `id=7, p="b", s="g", x=7`}
	arrowrows.Diff(t, readRows(t, dir), want)
	op, params, metrics := lastCommit(t, dir)
	if op != "MERGE" || params["predicate"] == nil || metrics["numTargetRowsUpdated"] != "1" || metrics["numTargetRowsNotMatchedBySourceDeleted"] != "1" {
		t.Fatalf("commit %s %v %v", op, params, metrics)
	}
	if _, err := deltalite.Merge(context.Background(), dir, dmlReader(t, `[]`), deltalite.MergeOptions{MergeType: merge.TypeUpsert}); !errors.Is(err, deltalite.ErrInvalidArgument) {
		t.Fatalf("a merge without a predicate: %v", err)
	}
}

// Upsert and MERGE upsert on the partition and key give equal tables after
// every step of a seeded sequence of batches, null keys and null
// partitions included.
func TestUpsertEqualsMergeUpsert(t *testing.T) {
	a := dmlTable(t, nil, dmlRows...)
	b := dmlTable(t, nil, dmlRows...)
	ta, tbm := openT(t, a), openT(t, b)
	rng := rand.New(rand.NewPCG(13, 5))
	parts := []string{`"a"`, `"b"`, `"c"`, `null`}
	for step := range 6 {
		seen := map[string]bool{}
		var rows []string
		for range 2 + rng.IntN(8) {
			id, p := fmt.Sprint(rng.IntN(9)), parts[rng.IntN(len(parts))]
			if rng.IntN(8) == 0 {
				id = "null"
			} else if seen[id+p] {
				continue
			}
			seen[id+p] = true
			rows = append(rows, fmt.Sprintf(`{"id":%s,"x":%d,"s":"s%d","p":%s}`, id, rng.IntN(100), step, p))
		}
		src := "[" + strings.Join(rows, ",") + "]"
		if _, err := ta.Upsert(context.Background(), dmlReader(t, src), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}}); err != nil {
			t.Fatalf("step %d upsert: %v", step, err)
		}
		if _, err := tbm.Merge(context.Background(), dmlReader(t, src), deltalite.MergeOptions{
			Predicate: "t.id = s.id AND t.p <=> s.p", MergeType: merge.TypeUpsert}); err != nil {
			t.Fatalf("step %d merge: %v", step, err)
		}
		got, want := readRows(t, b), readRows(t, a)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("step %d (source %s):\nmerge  %v\nupsert %v", step, src, got, want)
		}
	}
}

// Merge with CreateIfMissing creates a missing table from the source's
// columns, partitioning and properties in the commit of the rows the
// insert clauses insert (version 0), as Upsert and Write do; without it a
// missing table is ErrTableNotFound, and a merge that inserts nothing
// creates nothing.
func TestMergeCreateIfMissing(t *testing.T) {
	ctx := context.Background()
	src := `[{"id":1,"x":10,"s":"a","p":"a"},{"id":2,"x":20,"s":"b","p":"b"}]`
	dir := t.TempDir() + "/t"
	upsert := deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: merge.TypeUpsert}
	if _, err := deltalite.Merge(ctx, dir, dmlReader(t, src), upsert); !errors.Is(err, deltalite.ErrTableNotFound) {
		t.Fatalf("merge into a missing table without CreateIfMissing: %v", err)
	}
	updateOnly := deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: merge.TypeUpdateOnly, CreateIfMissing: true}
	if _, err := deltalite.Merge(ctx, dir, dmlReader(t, src), updateOnly); err != nil {
		t.Fatal(err)
	}
	if ok, err := deltalite.IsDeltaTable(ctx, dir); ok || err != nil {
		t.Fatalf("a merge that inserts nothing created a table (%v, %v)", ok, err)
	}
	create := upsert
	create.CreateIfMissing, create.PartitionBy, create.Properties = true, []string{"p"}, map[string]string{"delta.appendOnly": "false", "team": "x"}
	st, err := deltalite.Merge(ctx, dir, dmlReader(t, src), create)
	if err != nil || st.Version != 0 || st.TargetRowsInserted != 2 {
		t.Fatalf("creating merge: %+v %v", st, err)
	}
	tb := openT(t, dir)
	if got := tb.PartitionColumns(); len(got) != 1 || got[0] != "p" || tb.Snapshot().Properties()["team"] != "x" {
		t.Errorf("created table: partitioned by %v, properties %v", got, tb.Snapshot().Properties())
	}
	if got := readRows(t, dir); len(got) != 2 || !strings.Contains(got[0], "id=1") || !strings.Contains(got[1], "id=2") {
		t.Errorf("rows %v", got)
	}
	// On an existing table CreateIfMissing merges as usual.
	if st, err := deltalite.Merge(ctx, dir, dmlReader(t, `[{"id":2,"x":21,"s":"B","p":"b"}]`), create); err != nil || st.Version != 1 || st.TargetRowsUpdated != 1 {
		t.Fatalf("second merge: %+v %v", st, err)
	}
}
