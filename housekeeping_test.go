package deltalite_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// TestCheckpointIsWhatReadersUse: after Checkpoint, _last_checkpoint names
// it, and the table reads the same with the commits it covers gone.
func TestCheckpointIsWhatReadersUse(t *testing.T) {
	ctx := context.Background()
	dir, rows := restoreHistory(t)
	info, err := openT(t, dir).Checkpoint(ctx)
	if err != nil || info.Version != 4 || info.File != protocol.CheckpointKey(4) {
		t.Fatalf("checkpoint: %v %+v", err, info)
	}
	data, err := os.ReadFile(filepath.Join(dir, protocol.LastCheckpointKey))
	if err != nil {
		t.Fatal(err)
	}
	var last struct{ Version int64 }
	if err := json.Unmarshal(data, &last); err != nil || last.Version != 4 {
		t.Fatalf("_last_checkpoint %s: %v", data, err)
	}
	for v := int64(0); v < 4; v++ {
		if err := os.Remove(filepath.Join(dir, protocol.CommitKey(v))); err != nil {
			t.Fatal(err)
		}
	}
	arrowrows.Diff(t, readRows(t, dir), rows[4])
}

// TestCleanupMetadataKeepsRetainedVersions: with versions 0-4 older than
// the 30-day log retention and a checkpoint at 4, cleanup deletes commits
// 0-3 only; versions 4 and later read as before.
func TestCleanupMetadataKeepsRetainedVersions(t *testing.T) {
	ctx := context.Background()
	dir, rows := restoreHistory(t)
	tb := openAt(t, dir, 3)
	if _, err := tb.Checkpoint(ctx); err != nil { // of the newest version: 4
		t.Fatal(err)
	}
	// Every commit is recent: nothing may go.
	if n, err := tb.CleanupMetadata(ctx); err != nil || n != 0 {
		t.Fatalf("cleanup without an expired checkpoint: %d %v", n, err)
	}
	// Date 0-4 40 days back and add 5 and 6 now: checkpoint 4 expired.
	setCommitTimes(t, dir, time.Now().Add(-40*24*time.Hour))
	mustWrite(t, dir, dmlReader(t, `[{"id":9,"x":9,"s":"i","p":"a"}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	mustWrite(t, dir, dmlReader(t, `[{"id":10,"x":10,"s":"j","p":"b"}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	rows = append(rows, readRowsAt(t, dir, 5), readRowsAt(t, dir, 6))
	n, err := tb.CleanupMetadata(ctx)
	if err != nil || n != 4 {
		t.Fatalf("cleanup: %d files, %v; want commits 0-3", n, err)
	}
	for v := int64(0); v < 4; v++ {
		if _, err := os.Stat(filepath.Join(dir, protocol.CommitKey(v))); !os.IsNotExist(err) {
			t.Errorf("commit %d kept: %v", v, err)
		}
	}
	for v := int64(4); v <= 6; v++ {
		arrowrows.Diff(t, readRowsAt(t, dir, v), rows[v])
	}
}
