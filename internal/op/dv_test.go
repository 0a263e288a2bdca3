package op_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
	"github.com/deltalite-go/deltalite/write"
)

// dvTable is one file of ids 0..n-1 (p = 'a') with deletion vectors on.
func dvTable(t *testing.T, n int) *snapshot.Snapshot {
	t.Helper()
	st, err := storage.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]string, n)
	for i := range rows {
		rows[i] = fmt.Sprintf(`{"id":%d,"p":"a"}`, i)
	}
	rec := jsonrows.Record(t, memory.DefaultAllocator, testSchema, "["+strings.Join(rows, ",")+"]")
	rr, _ := array.NewRecordReader(testSchema, []arrow.RecordBatch{rec})
	sc, err := op.SourceSchema(st.URL(), testSchema)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := op.Empty(st, sc, op.NewTableOptions{Properties: map[string]string{protocol.PropEnableDeletionVectors: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, snap, err = write.Run(context.Background(), snap, rr, write.Options{Mode: write.ModeAppend}); err != nil {
		t.Fatal(err)
	}
	if !op.WritesDeletionVectors(snap, false) {
		t.Fatal("the table has no deletion vectors on")
	}
	return snap
}

// TestWriteWhereReadsTheChangeOnly: with deletion vectors, a change that
// names its rows by a predicate reads the predicate's columns to find
// them and only them whole: a DELETE never calls its batch function, an
// UPDATE sees the matching rows alone.
func TestWriteWhereReadsTheChangeOnly(t *testing.T) {
	ctx := context.Background()
	snap := dvTable(t, 5000)
	pred, err := op.Predicate("DELETE", "id = 7 OR id = 4321", false, snap, expr.Session{})
	if err != nil {
		t.Fatal(err)
	}
	never := func(context.Context, rewrite.Batch) (rewrite.Output, error) {
		return rewrite.Output{}, errors.New("a delete by predicate read whole rows")
	}
	w, err := op.Write(ctx, snap, op.Change{Files: snap.Files(), Rows: never, Where: pred, WhereDeletes: true}, rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.RowsDropped != 2 || w.RowsRead != 2 || w.DeletionVectors != 1 || w.FilesAdded != 0 || len(w.Adds) != 1 || w.Adds[0].DeletionVector.Cardinality != 2 {
		t.Fatalf("delete: %+v, adds %v", w.Counts, w.Adds)
	}
	var seen int64
	update := func(_ context.Context, b rewrite.Batch) (rewrite.Output, error) {
		seen += b.Rec.NumRows()
		b.Rec.Retain()
		upd := make([]bool, b.Rec.NumRows())
		for i := range upd {
			upd[i] = true
		}
		return rewrite.Output{Replace: b.Rec, Updated: upd}, nil
	}
	w, err = op.Write(ctx, snap, op.Change{Files: snap.Files(), Rows: update, Where: pred}, rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if seen != 2 || w.RowsChanged != 2 || w.FilesAdded != 1 || w.DeletionVectors != 1 || w.RowsCopied() != 0 {
		t.Fatalf("update: the batch function saw %d rows; %+v", seen, w.Counts)
	}
	// Rows chosen by position (MERGE's first pass): only they are read.
	seen = 0
	a := snap.Files()[0]
	w, err = op.Write(ctx, snap, op.Change{Files: snap.Files(), Rows: update, Selected: map[*protocol.Add]*dv.Bitmap{a: dv.NewBitmap(3, 4, 4999)}}, rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if seen != 3 || w.RowsChanged != 3 || w.DeletionVectors != 1 || w.Adds[0].DeletionVector.Cardinality != 3 {
		t.Fatalf("selected rows: the batch function saw %d rows; %+v", seen, w.Counts)
	}
}
