package cloudtest

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
)

// changes is an upsert source: people with a deleted flag.
func changes(ps []person, deleted []bool) array.RecordReader {
	sc := arrow.NewSchema(append(peopleSchema.Fields(), arrow.Field{Name: "deleted", Type: arrow.FixedWidthTypes.Boolean}), nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, p := range ps {
		b.Field(0).(*array.Int64Builder).Append(p.id)
		b.Field(1).(*array.StringBuilder).Append(p.name)
		b.Field(2).(*array.StringBuilder).Append(p.day)
		b.Field(3).(*array.BooleanBuilder).Append(deleted[i])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		panic(err) // the schema is the batch's own
	}
	return rr
}

// TestUpsert: upserts by primary key on a partitioned table, one that
// updates and inserts and one that deletes, each one MERGE commit; the
// versions before stay readable by time travel.
func TestUpsert(t *testing.T) {
	eachCloud(t, true, func(t *testing.T, c *cloud) {
		uri := c.tableURI("upsert-")
		a1, b1, c2 := person{1, "a", "d1"}, person{2, "b", "d1"}, person{3, "c", "d2"}
		c.write(t, uri, people(a1, b1, c2), deltalite.WriteOptions{PartitionBy: []string{"day"}})

		tb := c.open(t, uri)
		ctx := ctxFor(t, 2*time.Minute)
		bigB, d2 := person{2, "B", "d1"}, person{4, "d", "d2"}
		src := people(bigB, d2)
		stats, err := tb.Upsert(ctx, src, deltalite.UpsertOptions{PrimaryKeys: []string{"id"}})
		src.Release()
		if err != nil {
			t.Fatalf("Upsert: %v", err)
		}
		if stats.Version != 1 || stats.RowsUpdated != 1 || stats.RowsInserted != 1 || tb.Version() != 1 {
			t.Fatalf("upsert: %+v; table at version %d", stats, tb.Version())
		}
		sameLines(t, "after the upsert", scanLines(t, tb), lines(a1, bigB, c2, d2))

		src = changes([]person{a1, {5, "e", "d3"}}, []bool{true, false})
		stats, err = tb.Upsert(ctx, src, deltalite.UpsertOptions{PrimaryKeys: []string{"id"}, DeleteColumn: "deleted"})
		src.Release()
		if err != nil {
			t.Fatalf("Upsert with a delete: %v", err)
		}
		if stats.Version != 2 || stats.RowsDeleted != 1 || stats.RowsInserted != 1 {
			t.Fatalf("upsert with a delete: %+v", stats)
		}
		_, rows := c.readLines(t, uri)
		sameLines(t, "after the delete", rows, lines(bigB, c2, d2, person{5, "e", "d3"}))
		_, rows = c.readLines(t, uri, deltalite.WithVersion(1))
		sameLines(t, "version 1", rows, lines(a1, bigB, c2, d2))
		_, rows = c.readLines(t, uri, deltalite.WithVersion(0))
		sameLines(t, "version 0", rows, lines(a1, b1, c2))

		hist, err := tb.History(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 3 || hist[0].Info.Operation != "MERGE" || hist[1].Info.Operation != "MERGE" {
			t.Fatalf("history: %d commits, newest %s", len(hist), hist[0].Info.Operation)
		}
	})
}
