package cloudtest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
)

// TestVacuum: on every object store, a vacuum (listing in parallel key
// ranges where the store seeks) deletes the removed files and orphans in
// batches, keeps the log, the live files and hidden objects, and the
// table reads the same after.
func TestVacuum(t *testing.T) {
	eachCloud(t, true, func(t *testing.T, c *cloud) {
		uri := c.tableURI("vacuum-")
		var ps []person
		for i := range 6 {
			ps = append(ps, person{int64(i), "a", "d" + string(rune('0'+i))})
		}
		c.write(t, uri, people(ps...), deltalite.WriteOptions{PartitionBy: []string{"day"}})
		c.write(t, uri, people(person{9, "z", "d9"}), deltalite.WriteOptions{PartitionBy: []string{"day"}, Mode: deltalite.ModeOverwrite})
		st := c.store(t, uri)
		ctx := ctxFor(t, time.Minute)
		for _, k := range []string{"orphan.parquet", "day=d2/orphan.parquet", "zz/orphan.parquet", "_hidden/keep.parquet"} {
			if err := st.Put(ctx, k, strings.NewReader("x")); err != nil {
				t.Fatal(err)
			}
		}
		before := c.keys(t, uri)
		var want []string
		for _, k := range before {
			if !strings.HasPrefix(k, "_") && !strings.HasPrefix(k, "day=d9/") {
				want = append(want, k)
			}
		}
		if len(want) != 9 {
			t.Fatalf("expected 6 removed files and 3 orphans among %q", before)
		}
		// A clock 8 days ahead puts every file and removal past the 7 days.
		later := func() time.Time { return time.Now().Add(8 * 24 * time.Hour) }
		tb := c.open(t, uri)
		stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{Now: later, MaxParallelList: 3, DryRun: true})
		if err != nil || !slices.Equal(stats.Files, want) {
			t.Fatalf("dry run: %q, %v; want %q", stats.Files, err, want)
		}
		stats, err = tb.Vacuum(ctx, deltalite.VacuumOptions{Now: later, MaxParallelList: 3, DeleteBatchSize: 4})
		if err != nil || stats.FilesDeleted != 9 || stats.Version != 3 {
			t.Fatalf("vacuum: %+v, %v", stats, err)
		}
		for _, k := range c.keys(t, uri) {
			if slices.Contains(want, k) {
				t.Errorf("%s is still there", k)
			}
		}
		if after := c.keys(t, uri); !slices.Contains(after, "_hidden/keep.parquet") || len(after) != len(before)-9+2 {
			t.Errorf("left %q", after)
		}
		_, rows := c.readLines(t, uri)
		sameLines(t, "after vacuum", rows, lines(person{9, "z", "d9"}))
	})
}
