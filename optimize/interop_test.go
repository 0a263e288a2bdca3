package optimize_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// deltaRsCompact runs delta-rs's optimize.compact() and returns its metrics.
func deltaRsCompact(t *testing.T, dir string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(peers.RunPython(t, "optimize_table.py", dir), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDeltaRsOptimizeInterop: delta-rs reads the table we compacted with
// our rows; delta-rs compacts after us (new small files we appended), we
// compact after it, and each reads the other's result the same.
func TestDeltaRsOptimizeInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs: not in -short mode")
	}
	peers.Python(t)
	dir := smallFiles(t, map[string]int{"a": 4, "b": 3, "c": 1})
	want := rows(t, dir)
	if s := run(t, dir, optimize.Options{}); s.FilesRemoved.TotalFiles != 7 {
		t.Fatalf("ours: %s", s)
	}
	arrowrows.Diff(t, peers.ReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{}).Lines(t), want)

	// New small files; delta-rs compacts them with our compacted ones.
	appendRows(t, dir, `[{"id":100,"s":"x","p":"a","q":1},{"id":101,"s":"y","p":"b","q":2}]`, "p")
	appendRows(t, dir, `[{"id":102,"s":"z","p":"a","q":1}]`, "p")
	want = rows(t, dir)
	if m := deltaRsCompact(t, dir); m["numFilesRemoved"] != 5.0 || m["numFilesAdded"] != 2.0 {
		t.Fatalf("delta-rs after us: %v", m)
	}
	arrowrows.Diff(t, rows(t, dir), want)
	if op, _ := lastOp(t, dir); op != "OPTIMIZE" {
		t.Fatalf("last operation %s", op)
	}

	// And we compact after delta-rs: its files with new small ones.
	appendRows(t, dir, `[{"id":103,"s":"w","p":"a","q":0}]`, "p")
	want = rows(t, dir)
	if s := run(t, dir, optimize.Options{}); s.FilesRemoved.TotalFiles != 2 || s.FilesAdded.TotalFiles != 1 {
		t.Fatalf("ours after delta-rs: %s", s)
	}
	arrowrows.Diff(t, rows(t, dir), want)
	arrowrows.Diff(t, peers.ReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{}).Lines(t), want)
	if m := deltaRsCompact(t, dir); m["numFilesRemoved"] != 0.0 {
		t.Fatalf("delta-rs found more to compact after us: %v", m)
	}
}

// TestSparkReadsOptimized: Spark reads a compacted partitioned table, a
// compacted table whose deletion vectors were dropped, and a compacted
// column-mapped table with our rows.
func TestSparkReadsOptimized(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	dirs := []string{
		smallFiles(t, map[string]int{"a": 4, "b": 3}),
		copyCorpus(t, "dat/deletion_vectors/delta"),
		copyCorpus(t, "dat/column_mapping/delta"),
	}
	var want [][]string
	var ops []peers.Op
	for _, dir := range dirs {
		want = append(want, rows(t, dir))
		if s := run(t, dir, optimize.Options{}); s.Commits != 1 {
			t.Fatalf("%s: %s", dir, s)
		}
		ops = append(ops, peers.ReadOp(dir, peers.ReadOptions{}))
	}
	for i, r := range peers.Spark(t).Run(t, ops...) {
		got := r.Table(t).Lines(t)
		if !slices.Equal(got, want[i]) {
			arrowrows.Diff(t, got, want[i])
		}
	}
}

// lastOp is the newest commit's operation and its metrics.
func lastOp(t *testing.T, dir string) (string, map[string]any) {
	t.Helper()
	tb := open(t, dir)
	ci := commitActions(t, dir, tb.Version())[0].CommitInfo
	m, _ := ci.Raw["operationMetrics"].(map[string]any)
	return ci.Operation, m
}
