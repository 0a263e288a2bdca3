package vacuum_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/vacuum"
)

// peerIDs are the sorted ids a peer read.
func peerIDs(t *testing.T, tb peers.Table) []int64 {
	t.Helper()
	var out []int64
	for _, r := range tb.Rows {
		n, err := strconv.ParseInt(string(r["id"].(json.Number)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// deltaRsVacuum runs delta-rs's full vacuum with retention 0.
func deltaRsVacuum(t *testing.T, dir string, dryRun bool) []string {
	t.Helper()
	args := []string{dir, "--retention-hours", "0", "--no-enforce-retention", "--full"}
	if dryRun {
		args = append(args, "--dry-run")
	}
	var res struct{ Files []string }
	if err := json.Unmarshal(peers.RunPython(t, "vacuum_table.py", args...), &res); err != nil {
		t.Fatal(err)
	}
	for i, f := range res.Files {
		if u, err := url.PathUnescape(f); err == nil {
			res.Files[i] = u
		}
	}
	return res.Files
}

// TestDeltaRsVacuumInterop: delta-rs and this engine list the same files
// on the same table, each vacuums after the other, and delta-rs reads the
// table this engine vacuumed.
func TestDeltaRsVacuumInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs: not in -short mode")
	}
	dir := t.TempDir()
	write(t, dir, []int64{1, 2}, []string{"a", "b"}, deltalite.WriteOptions{})
	write(t, dir, []int64{3}, []string{"x y"}, deltalite.WriteOptions{Mode: deltalite.ModeOverwrite})
	old := time.Now().Add(-time.Hour)
	age(t, dir, old)
	put(t, dir, "day=a/orphan.parquet", old)
	zero := deltalite.VacuumOptions{RetentionHours: vacuum.Hours(0), NoEnforceRetention: true}

	dry := zero
	dry.DryRun = true
	ours, err := open(t, dir).Vacuum(ctx, dry)
	if err != nil {
		t.Fatal(err)
	}
	if theirs := deltaRsVacuum(t, dir, true); len(ours.Files) != 3 || !slices.Equal(ours.Files, theirs) {
		t.Fatalf("dry runs differ:\nours   %q\ndelta-rs %q", ours.Files, theirs)
	}
	// delta-rs vacuums our table; we read it and find nothing left to do.
	if got := deltaRsVacuum(t, dir, false); !slices.Equal(got, ours.Files) {
		t.Fatalf("delta-rs deleted %q", got)
	}
	tb := open(t, dir)
	if got, err := ids(t, dir, -1); err != nil || !slices.Equal(got, []int64{3}) {
		t.Fatalf("after delta-rs's vacuum: %v, %v", got, err)
	}
	if again, err := tb.Vacuum(ctx, dry); err != nil || len(again.Files) != 0 {
		t.Fatalf("our dry run after delta-rs's vacuum: %q, %v", again.Files, err)
	}
	// We vacuum after more writes; delta-rs reads the table and finds
	// nothing left to do.
	write(t, dir, []int64{4, 5}, []string{"a", "a"}, deltalite.WriteOptions{Mode: deltalite.ModeOverwrite})
	age(t, dir, old)
	stats, err := open(t, dir).Vacuum(ctx, zero)
	if err != nil || stats.FilesDeleted != 1 {
		t.Fatalf("our vacuum after delta-rs: %+v, %v", stats, err)
	}
	if got := peerIDs(t, peers.ReadTable(t, "deltalake", dir, peers.ReadOptions{})); !slices.Equal(got, []int64{4, 5}) {
		t.Fatalf("delta-rs reads %v", got)
	}
	// delta-rs names the expired tombstones the log still has whether or
	// not their files exist; none of them may.
	for _, f := range deltaRsVacuum(t, dir, true) {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("delta-rs would still delete %s, which exists", f)
		}
	}
}

// TestSparkVacuumDryRunAgrees: Spark's own VACUUM ... DRY RUN lists the
// files ours does on the scenario table (every kind of file a vacuum
// judges), and Spark reads the table after our vacuum.
func TestSparkVacuumDryRunAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	s := newScenario(t)
	spark := peers.Spark(t)
	res := spark.Run(t, peers.Op{"op": "sql", "path": s.dir, "sql": "VACUUM {table} RETAIN 168 HOURS DRY RUN"})
	var theirs []string
	root := filepath.ToSlash(s.dir) + "/"
	for _, r := range res[0].Table(t).Rows {
		p := r["path"].(string)
		if u, err := url.Parse(p); err == nil && u.Scheme == "file" {
			p = u.Path
		}
		rel, ok := strings.CutPrefix(p, root)
		if !ok {
			t.Fatalf("Spark lists %q outside %s", p, root)
		}
		if st, err := os.Stat(filepath.Join(s.dir, rel)); err == nil && st.IsDir() {
			continue // Spark lists empty directories too; object stores have none
		}
		theirs = append(theirs, rel)
	}
	slices.Sort(theirs)
	if !slices.Equal(theirs, s.deleted) {
		t.Fatalf("Spark's dry run lists\n%q\nours\n%q", theirs, s.deleted)
	}
	if _, err := open(t, s.dir).Vacuum(ctx, deltalite.VacuumOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := peerIDs(t, spark.Read(t, s.dir, peers.ReadOptions{})); !slices.Equal(got, []int64{4, 6}) {
		t.Fatalf("Spark reads %v after our vacuum", got)
	}
}
