package vacuum_test

import (
	"slices"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/vacuum"
)

// TestSharedDVFileKeptWhileNamed: one commit's vectors for the files of
// days a and b share one DV file, as Spark packs them. Once a's file is
// purged and its tombstone expired, VACUUM deletes a's old data file but
// keeps the DV file, which b's live add still names; once b's is purged
// too, VACUUM deletes the DV file. The rows read stay right throughout.
func TestSharedDVFileKeptWhileNamed(t *testing.T) {
	dir := t.TempDir()
	st := localStore(t, dir)
	write(t, dir, []int64{1, 2, 3, 4}, []string{"a", "a", "b", "b"}, deltalite.WriteOptions{Properties: map[string]string{"delta.enableDeletionVectors": "true"}})
	snap, err := snapshot.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	w := dv.NewFileWriter(ctx, st)
	var actions []protocol.Action
	old := map[string]string{}
	for _, a := range snap.Files() {
		d, err := w.Add(dv.NewBitmap(0)) // each file's first row: ids 1 and 3
		if err != nil {
			t.Fatal(err)
		}
		re := *a
		re.DeletionVector, re.Stats = d, stats.Loosened(a.Stats, 0)
		old[a.PartitionValues["day"]] = a.Path
		actions = append(actions, protocol.Action{Remove: protocol.RemoveOf(a, time.Now().UnixMilli())}, protocol.Action{Add: &re})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(w.Written()) != 1 || len(old) != 2 {
		t.Fatalf("DV files %v for files %v, want one for two", w.Written(), old)
	}
	dvKey := w.Written()[0]
	commit(t, st, txn.OpDelete, actions...)
	want := []int64{2, 4}
	zero := deltalite.VacuumOptions{RetentionHours: vacuum.Hours(0), NoEnforceRetention: true}
	vacuumed := func(step string, wantFiles []string) {
		t.Helper()
		s, err := open(t, dir).Vacuum(ctx, zero)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(wantFiles)
		if !slices.Equal(s.Files, wantFiles) {
			t.Fatalf("after %s VACUUM deleted %q, want %q", step, s.Files, wantFiles)
		}
		if got, err := ids(t, dir, -1); err != nil || !slices.Equal(got, want) {
			t.Fatalf("after %s: ids %v, %v; want %v", step, got, err, want)
		}
	}
	if got, err := ids(t, dir, -1); err != nil || !slices.Equal(got, want) {
		t.Fatalf("ids %v, %v; want %v", got, err, want)
	}
	if _, err := open(t, dir).Optimize(ctx, deltalite.OptimizeOptions{PurgeDeletionVectors: true, Predicate: "day = 'a'"}); err != nil {
		t.Fatal(err)
	}
	vacuumed("purging day a", []string{old["a"]})
	if _, err := open(t, dir).Optimize(ctx, deltalite.OptimizeOptions{PurgeDeletionVectors: true}); err != nil {
		t.Fatal(err)
	}
	vacuumed("purging day b", []string{old["b"], dvKey})
}
