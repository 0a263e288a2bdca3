package deltalite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/restore"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// restoreShape is what a RESTORE commit holds that the change data feed
// reads: its cdc actions, and its adds and removes by dataChange.
type restoreShape struct {
	cdc, adds, addsNoChange, removes, removesNoChange int
}

func restoreShapeOf(t *testing.T, dir string, v int64) restoreShape {
	t.Helper()
	var s restoreShape
	for _, a := range decodedCommit(t, dir, v) {
		switch {
		case a.CDC != nil:
			s.cdc++
		case a.Add != nil && a.Add.DataChange:
			s.adds++
		case a.Add != nil:
			s.addsNoChange++
		case a.Remove != nil && a.Remove.DataChange:
			s.removes++
		case a.Remove != nil:
			s.removesNoChange++
		}
	}
	return s
}

// TestRestoreChangeFeedAsSpark: Spark's RESTORE on a CDF table writes no
// change data file and marks its adds and removes dataChange=true, so
// table_changes shows the restored files' rows as inserts and the dropped
// files' rows as deletes. Our RESTORE of the same table to the same version
// writes a commit of the same shape, and the restore version's changes are
// the same rows, read by us or by Spark on either table.
func TestRestoreChangeFeedAsSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	spark := peers.Spark(t)
	root := t.TempDir()
	kinds := []struct{ name, partitionBy string }{{"flat", ""}, {"partitioned", "PARTITIONED BY (g)"}}
	var ops []peers.Op
	for _, k := range kinds {
		ops = append(ops, sparkCDFOps(filepath.Join(root, k.name), k.partitionBy)...)
	}
	spark.Run(t, ops...) // versions 0 (create) to 7
	const target, restored = int64(3), int64(8)
	theirs, ours := map[string]string{}, map[string]string{}
	var reads []peers.Op
	for _, k := range kinds {
		theirs[k.name] = filepath.Join(root, k.name)
		ours[k.name] = copyDir(t, theirs[k.name])
		if _, err := openT(t, ours[k.name]).Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(target)}); err != nil {
			t.Fatal(err)
		}
		reads = append(reads,
			peers.Op{"op": "sql", "path": theirs[k.name], "sql": "RESTORE TABLE {table} TO VERSION AS OF 3", "collect": false},
			sparkChanges(theirs[k.name], restored, nil, "*", ""),
			sparkChanges(ours[k.name], restored, nil, "*", ""))
	}
	res := spark.Run(t, reads...)
	cols := []string{"id", "g", "v", "_change_type", "_commit_version"}
	for i, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			sparkShape, ourShape := restoreShapeOf(t, theirs[k.name], restored), restoreShapeOf(t, ours[k.name], restored)
			if sparkShape.cdc != 0 || sparkShape.adds == 0 || sparkShape.removes == 0 || sparkShape.addsNoChange+sparkShape.removesNoChange != 0 {
				t.Fatalf("Spark's RESTORE commit is not what this test expects: %+v", sparkShape)
			}
			if ourShape != sparkShape {
				t.Errorf("our RESTORE commit %+v, Spark's %+v", ourShape, sparkShape)
			}
			sparkOnTheirs := res[3*i+1].Table(t)
			if len(sparkOnTheirs.Rows) == 0 {
				t.Fatal("Spark's table_changes shows no change for its RESTORE")
			}
			full := sparkOnTheirs.Lines(t) // before projectLines, which edits the rows
			from := deltalite.ChangesOptions{FromVersion: restored}
			// The same rows on either table (the timestamps differ: two commits).
			arrowrows.Diff(t, changeRows(t, ours[k.name], deltalite.ChangesOptions{FromVersion: restored, Columns: cols}), projectLines(t, sparkOnTheirs, cols))
			// Every column, timestamps included, on each table.
			arrowrows.Diff(t, changeRows(t, theirs[k.name], from), full)
			arrowrows.Diff(t, changeRows(t, ours[k.name], from), res[3*i+2].Table(t).Lines(t))
		})
	}
}
