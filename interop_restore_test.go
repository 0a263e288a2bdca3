package deltalite_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/restore"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// commitMetricNames are the operationMetrics keys of commit v.
func commitMetricNames(t *testing.T, dir string, v int64) (string, []string) {
	t.Helper()
	for _, a := range decodedCommit(t, dir, v) {
		if a.CommitInfo != nil {
			m, _ := a.CommitInfo.Raw["operationMetrics"].(map[string]any)
			return a.CommitInfo.Operation, slices.Sorted(maps.Keys(m))
		}
	}
	t.Fatalf("commit %d has no commitInfo", v)
	return "", nil
}

// decodedCommit is the actions of commit v of the table in dir.
func decodedCommit(t *testing.T, dir string, v int64) []protocol.Action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, protocol.CommitKey(v)))
	if err != nil {
		t.Fatal(err)
	}
	actions, err := protocol.DecodeCommit(data)
	if err != nil {
		t.Fatal(err)
	}
	return actions
}

// missingFrom lists the names of want not in got.
func missingFrom(got, want []string) []string {
	var out []string
	for _, n := range want {
		if !slices.Contains(got, n) {
			out = append(out, n)
		}
	}
	return out
}

// expireLog checkpoints the newest version (keeping one another engine
// wrote), dates every commit 40 days back and runs the log cleanup, which
// must delete every older commit (and their side files) and keep that one.
func expireLog(t *testing.T, dir string) int64 {
	t.Helper()
	ctx := context.Background()
	tb := openT(t, dir)
	info, err := tb.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	setCommitTimes(t, dir, time.Now().Add(-40*24*time.Hour))
	n, err := tb.CleanupMetadata(ctx)
	if err != nil || int64(n) < info.Version {
		t.Fatalf("cleanup after a checkpoint at %d: %d files, %v", info.Version, n, err)
	}
	for v := int64(0); v <= info.Version; v++ {
		_, err := os.Stat(filepath.Join(dir, protocol.CommitKey(v)))
		if gone := os.IsNotExist(err); gone != (v < info.Version) {
			t.Fatalf("after cleanup with a checkpoint at %d, commit %d: %v", info.Version, v, err)
		}
	}
	return info.Version
}

// TestDeltaRSAfterRestore: delta-rs reads our restored table with the old
// version's rows, restores it itself after us with the metric names ours
// carries, and reads it from our checkpoint once the log before it is
// cleaned up.
func TestDeltaRSAfterRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs: not in -short mode")
	}
	peers.Python(t)
	ctx := context.Background()
	dir, rows := restoreHistory(t)
	if _, err := openT(t, dir).Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(1)}); err != nil {
		t.Fatal(err)
	}
	arrowrows.Diff(t, peers.ReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{}).Lines(t), rows[1])

	peers.WriteTable(t, map[string]any{"engine": "deltalake", "path": dir, "steps": []any{map[string]any{"op": "restore", "version": 3}}})
	arrowrows.Diff(t, readRows(t, dir), rows[3])
	ourOp, ours := commitMetricNames(t, dir, 5)
	theirOp, theirs := commitMetricNames(t, dir, 6)
	if ourOp != "RESTORE" || theirOp != "RESTORE" || len(theirs) == 0 {
		t.Fatalf("commits 5 and 6: %s %v, %s %v", ourOp, ours, theirOp, theirs)
	}
	if lack := missingFrom(ours, theirs); len(lack) > 0 {
		t.Errorf("our RESTORE commit lacks delta-rs's metrics %v (ours %v)", lack, ours)
	}

	v := expireLog(t, dir)
	for _, opt := range []peers.ReadOptions{{}, {Version: peers.Int64(v)}} {
		arrowrows.Diff(t, peers.ReadTable(t, peers.DeltaRS, dir, opt).Lines(t), rows[3])
	}
}

// TestSparkAfterRestore: Spark reads our restored table with the old
// version's rows and at an older version; its own RESTORE after ours
// carries the metric names ours does; and it reads the table from our
// checkpoint once the log before it is cleaned up.
func TestSparkAfterRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir, rows := restoreHistory(t)
	if _, err := openT(t, dir).Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(1)}); err != nil {
		t.Fatal(err)
	}
	s := peers.Spark(t)
	res := s.Run(t,
		peers.ReadOp(dir, peers.ReadOptions{}),
		peers.ReadOp(dir, peers.ReadOptions{Version: peers.Int64(2)}),
		peers.Op{"op": "sql", "path": dir, "sql": "RESTORE TABLE {table} TO VERSION AS OF 3", "collect": false},
	)
	arrowrows.Diff(t, res[0].Table(t).Lines(t), rows[1])
	arrowrows.Diff(t, res[1].Table(t).Lines(t), rows[2])
	arrowrows.Diff(t, readRows(t, dir), rows[3])
	_, ours := commitMetricNames(t, dir, 5)
	theirOp, theirs := commitMetricNames(t, dir, 6)
	if theirOp != "RESTORE" || len(theirs) == 0 {
		t.Fatalf("Spark's commit 6: %s %v", theirOp, theirs)
	}
	if lack := missingFrom(ours, theirs); len(lack) > 0 {
		t.Errorf("our RESTORE commit lacks Spark's metrics %v (ours %v)", lack, ours)
	}

	expireLog(t, dir)
	arrowrows.Diff(t, s.Read(t, dir, peers.ReadOptions{}).Lines(t), rows[3])
}
