package optimize_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// zOrderTable writes a table partitioned by p of four appends.
func zOrderTable(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t")
	for i := range 4 {
		zAppend(t, dir, uint64(50+i), 500, deltalite.WriteOptions{PartitionBy: []string{"p"}})
	}
	return dir
}

// deltaRsZOrder runs delta-rs's optimize.z_order on the table.
func deltaRsZOrder(t *testing.T, dir string, cols ...string) {
	t.Helper()
	res := peers.WriteTable(t, map[string]any{"engine": "deltalake", "path": dir,
		"steps": []map[string]any{{"op": "optimize", "zorder": cols}}})
	if len(res.Steps) != 1 {
		t.Fatalf("delta-rs z_order: %+v", res)
	}
}

// TestDeltaRsZOrderInterop: delta-rs reads the table we z-ordered with our
// rows; delta-rs's z_order of a copy of the same table keeps the same
// rows; each z-orders after the other and both read the result the same.
func TestDeltaRsZOrderInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs: not in -short mode")
	}
	peers.Python(t)
	ours := zOrderTable(t)
	theirs := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(theirs, os.DirFS(ours)); err != nil {
		t.Fatal(err)
	}
	want := rows(t, ours)

	if s := run(t, ours, optimize.Options{ZOrderBy: []string{"x", "y"}}); s.FilesRemoved.TotalFiles != 8 {
		t.Fatalf("ours: %s", s)
	}
	arrowrows.Diff(t, peers.ReadTable(t, peers.DeltaRS, ours, peers.ReadOptions{}).Lines(t), want)

	deltaRsZOrder(t, theirs, "x", "y")
	if op, _ := lastOp(t, theirs); op != "OPTIMIZE" {
		t.Fatalf("delta-rs's last operation %s", op)
	}
	arrowrows.Diff(t, rows(t, theirs), want)
	arrowrows.Diff(t, peers.ReadTable(t, peers.DeltaRS, theirs, peers.ReadOptions{}).Lines(t), want)

	// Each after the other: delta-rs z-orders our z-cubes, we z-order its
	// files (which carry no z-cube tags, so all of them).
	deltaRsZOrder(t, ours, "y")
	arrowrows.Diff(t, peers.ReadTable(t, peers.DeltaRS, ours, peers.ReadOptions{}).Lines(t), want)
	if s := run(t, theirs, optimize.Options{ZOrderBy: []string{"x", "y"}}); s.SkippedFiles != 0 || s.FilesRemoved.TotalFiles == 0 {
		t.Fatalf("ours after delta-rs: %s", s)
	}
	arrowrows.Diff(t, rows(t, theirs), want)
	arrowrows.Diff(t, peers.ReadTable(t, peers.DeltaRS, theirs, peers.ReadOptions{}).Lines(t), want)
	checkZCurve(t, theirs, "x", "y")
}

// TestSparkReadsZOrdered: Spark reads a table we z-ordered with our rows.
func TestSparkReadsZOrdered(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	dir := zOrderTable(t)
	want := rows(t, dir)
	if s := run(t, dir, optimize.Options{ZOrderBy: []string{"y", "name"}}); s.Commits != 1 {
		t.Fatalf("ours: %s", s)
	}
	got := peers.Spark(t).Read(t, dir, peers.ReadOptions{}).Lines(t)
	if !slices.Equal(got, want) {
		arrowrows.Diff(t, got, want)
	}
}
