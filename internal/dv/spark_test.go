package dv_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// positions reads file a's live rows: each id and its position in the file.
func positions(t *testing.T, snap *snapshot.Snapshot, a *protocol.Add) map[int64]uint64 {
	t.Helper()
	_, seq, err := scan.New(snap, scan.WithFiles(a), scan.WithColumns("id"), scan.WithRowIndex()).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]uint64{}
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		id, pos := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
		for i := range id.Len() {
			out[id.Value(i)] = uint64(pos.Value(i))
		}
		rec.Release()
	}
	return out
}

// TestFileWriterDeletesSparkReads: on a table Spark made (two inserts, then
// a Spark DELETE that gave one file a deletion vector), rows of two files
// are marked deleted through one FileWriter, unioned with the vector a
// file had, and committed as Spark commits a DELETE with deletion vectors:
// remove of the old add, add of the same path with the new vector, the
// statistics kept with tightBounds false. Both vectors share one DV file,
// and Spark and delta-rs read exactly the rows left.
func TestFileWriterDeletesSparkReads(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	spark := peers.Spark(t)
	sql := func(s string) peers.Op { return peers.Op{"op": "sql", "path": dir, "sql": s, "collect": false} }
	spark.Run(t,
		sql("CREATE TABLE {table} (id BIGINT, name STRING) USING delta TBLPROPERTIES (delta.enableDeletionVectors = true)"),
		sql("INSERT INTO {table} SELECT /*+ COALESCE(1) */ id, CAST(id AS STRING) FROM range(1, 41)"),
		sql("INSERT INTO {table} SELECT /*+ COALESCE(1) */ id, CAST(id AS STRING) FROM range(41, 81)"),
		sql("DELETE FROM {table} WHERE id = 2"),
	)
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	files := snap.Files()
	if len(files) != 2 {
		t.Fatalf("Spark wrote %d files, want 2", len(files))
	}
	slices.SortFunc(files, func(a, b *protocol.Add) int { return int(a.Size - b.Size) })
	withDV := slices.IndexFunc(files, func(a *protocol.Add) bool { return a.DeletionVector != nil })
	if withDV < 0 {
		t.Fatal("Spark's DELETE wrote no deletion vector")
	}

	// Delete every id divisible by 3 from both files.
	w := dv.NewFileWriter(ctx, st)
	tx := txn.Begin(snap, txn.Operation{Name: txn.OpDelete}, txn.Options{})
	var want []int64
	var descs []*protocol.DeletionVector
	for _, a := range files {
		marks := dv.NewBitmap()
		for id, pos := range positions(t, snap, a) {
			if id%3 == 0 {
				marks.Add(pos)
			} else {
				want = append(want, id)
			}
		}
		if a.DeletionVector != nil {
			old, err := dv.Load(ctx, st, a.DeletionVector)
			if err != nil {
				t.Fatal(err)
			}
			marks.Or(old)
		}
		d, err := w.Add(marks)
		if err != nil {
			t.Fatal(err)
		}
		descs = append(descs, d)
		re := *a
		re.DeletionVector, re.DataChange, re.Stats = d, true, stats.Loosened(a.Stats, 0)
		tx.ReadFiles(a)
		tx.Add(protocol.Action{Remove: protocol.RemoveOf(a, 1_700_000_000_000)}, protocol.Action{Add: &re})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(w.Written()) != 1 || descs[0].PathOrInlineDv != descs[1].PathOrInlineDv || *descs[0].Offset != 1 || *descs[1].Offset <= 1 {
		t.Fatalf("the two vectors went to %v at %s and %s, want one file", w.Written(), descs[0].PathOrInlineDv, descs[1].PathOrInlineDv)
	}
	if !strings.Contains(w.Written()[0], "deletion_vector_") {
		t.Fatalf("DV file %q", w.Written()[0])
	}
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	if len(want) != 80-1-26 {
		t.Fatalf("%d rows should stay, want 53", len(want))
	}
	for _, f := range res.Snapshot.Files() {
		if !strings.Contains(f.Stats, `"tightBounds":false`) || !strings.Contains(f.Stats, `"numRecords":40`) {
			t.Fatalf("re-added %s with stats %s, want numRecords kept and tightBounds false", f.Path, f.Stats)
		}
	}
	if got := spark.Read(t, dir, peers.ReadOptions{}).Int64s(t, "id"); !slices.Equal(got, want) {
		t.Errorf("Spark reads %v\nwant %v", got, want)
	}
	if got := peers.ReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{}).Int64s(t, "id"); !slices.Equal(got, want) {
		t.Errorf("delta-rs reads %v\nwant %v", got, want)
	}
	// Spark's DELETE goes on from our vectors.
	spark.Run(t, sql("DELETE FROM {table} WHERE id IN (1, 41)"))
	want = slices.DeleteFunc(want, func(id int64) bool { return id == 1 || id == 41 })
	if got := peers.ReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{}).Int64s(t, "id"); !slices.Equal(got, want) {
		t.Errorf("after Spark's DELETE on our vectors delta-rs reads %v\nwant %v", got, want)
	}
}
