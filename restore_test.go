package deltalite_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/restore"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// restoreHistory builds a table through an append, a delete, a schema
// change and an overwrite, and returns it with its rows at each version.
func restoreHistory(t *testing.T) (string, [][]string) {
	t.Helper()
	dir := dmlTable(t, nil, dmlRows...) // v0, v1
	tb := openT(t, dir)
	mustDelete(t, tb, "x > 10", 2) // v2: rewrites a file of partition b
	wide := arrow.NewSchema(append(slices.Clone(dmlSchema.Fields()), arrow.Field{Name: "extra", Type: arrow.BinaryTypes.String, Nullable: true}), nil)
	mustWrite(t, dir, fromJSON(t, wide, `[{"id":7,"x":7,"s":"g","p":"c","extra":"new"}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge}) // v3
	mustWrite(t, dir, fromJSON(t, wide, `[{"id":8,"x":8,"s":"h","p":"a","extra":"o"}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite}) // v4
	var rows [][]string
	for v := range int64(5) {
		rows = append(rows, readRowsAt(t, dir, v))
	}
	return dir, rows
}

func TestRestoreToEveryEarlierVersion(t *testing.T) {
	ctx := context.Background()
	dir, rows := restoreHistory(t)
	schemaAt := func(v int64) string {
		tb, err := deltalite.Open(ctx, dir, deltalite.WithVersion(v))
		if err != nil {
			t.Fatal(err)
		}
		return tb.Metadata().SchemaString
	}
	// Back and forth: each restore starts from the previous one's state.
	for _, v := range []int64{2, 0, 4, 1, 3} {
		tb := openT(t, dir)
		before := tb.Version()
		st, err := tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(v)})
		if err != nil {
			t.Fatalf("restore to %d: %v", v, err)
		}
		if st.Version != before+1 || tb.Version() != before+1 || st.RestoredVersion != v {
			t.Fatalf("restore to %d: %s, table at %d", v, st, tb.Version())
		}
		arrowrows.Diff(t, readRows(t, dir), rows[v])
		if got, want := tb.Metadata().SchemaString, schemaAt(v); got != want {
			t.Fatalf("restore to %d: schema %s, want %s", v, got, want)
		}
		op, params, metrics := lastCommit(t, dir)
		if op != "RESTORE" || params["version"] != str64(v) {
			t.Fatalf("restore to %d: commit %s %v", v, op, params)
		}
		old := openAt(t, dir, v)
		if metrics["numOfFilesAfterRestore"] != str64(int64(len(old.FileURIs()))) ||
			metrics["numRestoredFiles"] != str64(st.NumRestoredFiles) || metrics["numRemovedFiles"] != str64(st.NumRemovedFiles) ||
			metrics["restoredFilesSize"] != str64(st.RestoredFilesSize) || metrics["tableSizeAfterRestore"] != str64(st.TableSizeAfterRestore) {
			t.Fatalf("restore to %d: metrics %v, stats %s", v, metrics, st)
		}
	}
	// The table shows version 3 already: restoring to it again commits nothing.
	tb := openT(t, dir)
	st, err := tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(3)})
	if err != nil || st.Version != tb.Version() || openT(t, dir).Version() != tb.Version() || st.NumRestoredFiles+st.NumRemovedFiles != 0 {
		t.Fatalf("restore to the state the table shows: %v %s", err, st)
	}
}

func str64(v int64) string { return strconv.FormatInt(v, 10) }

func openAt(t *testing.T, dir string, v int64) *deltalite.Table {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), dir, deltalite.WithVersion(v))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// setCommitTimes dates commit v at base + v hours, so that time travel by
// timestamp has distinct commit times to choose from.
func setCommitTimes(t *testing.T, dir string, base time.Time) {
	t.Helper()
	for v := int64(0); ; v++ {
		p := filepath.Join(dir, protocol.CommitKey(v))
		if _, err := os.Stat(p); err != nil {
			return
		}
		at := base.Add(time.Duration(v) * time.Hour)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRestoreByTimestamp(t *testing.T) {
	ctx := context.Background()
	dir, rows := restoreHistory(t)
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	setCommitTimes(t, dir, base)
	tb := openT(t, dir)
	ts := base.Add(time.Hour + 30*time.Minute) // after version 1, before 2
	st, err := tb.Restore(ctx, deltalite.RestoreOptions{Timestamp: ts})
	if err != nil || st.RestoredVersion != 1 || st.Version != 5 {
		t.Fatalf("restore to %s: %v %s", ts, err, st)
	}
	arrowrows.Diff(t, readRows(t, dir), rows[1])
	_, params, _ := lastCommit(t, dir)
	if params["timestamp"] != "2026-03-01T01:30:00Z" || params["version"] != nil {
		t.Fatalf("parameters %v", params)
	}
	// Before the first commit: nothing to restore to.
	if _, err := tb.Restore(ctx, deltalite.RestoreOptions{Timestamp: base.Add(-time.Hour)}); !errors.Is(err, deltalite.ErrNotFound) {
		t.Fatalf("restore before the table existed: %v", err)
	}
}

func TestRestoreRefusals(t *testing.T) {
	ctx := context.Background()
	dir, _ := restoreHistory(t)
	tb := openT(t, dir)
	for _, c := range []struct {
		opt  deltalite.RestoreOptions
		kind error
		msg  string
	}{
		{deltalite.RestoreOptions{}, deltalite.ErrInvalidArgument, "needs a version or a timestamp"},
		{deltalite.RestoreOptions{Version: restore.ToVersion(1), Timestamp: time.Now()}, deltalite.ErrInvalidArgument, "not both"},
		{deltalite.RestoreOptions{Version: restore.ToVersion(9)}, deltalite.ErrNotFound, "versions go up to 4"},
		{deltalite.RestoreOptions{Version: restore.ToVersion(-1)}, deltalite.ErrNotFound, "version -1"},
	} {
		_, err := tb.Restore(ctx, c.opt)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v, want %v %q", c.opt, err, c.kind, c.msg)
		}
	}
	// To the version the table is at: nothing to commit.
	st, err := tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(4)})
	if err != nil || st.Version != 4 || st.NumRestoredFiles != 0 || openT(t, dir).Version() != 4 {
		t.Fatalf("restore to the current version: %v %s", err, st)
	}
}

func TestRestoreRefusesMissingFile(t *testing.T) {
	ctx := context.Background()
	dir, _ := restoreHistory(t)
	// Version 1's files are all gone by version 4; delete one by hand.
	files := openAt(t, dir, 1).Snapshot().Files()
	gone := files[len(files)-1].Path
	key, err := protocol.ObjectKey("file://"+dir, gone)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, key)); err != nil {
		t.Fatal(err)
	}
	tb := openT(t, dir)
	_, err = tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(1)})
	if !errors.Is(err, deltalite.ErrNotFound) || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "version 1") {
		t.Fatalf("restore with a missing file: %v", err)
	}
	if v := openT(t, dir).Version(); v != 4 {
		t.Fatalf("a refused restore committed version %d", v)
	}
	// Version 3 does not need that file.
	if _, err := tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(3)}); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreConflictsWithConcurrentChange: a commit between the restore's
// read and its commit fails it, a blind append or a vacuum, and nothing
// lands.
func TestRestoreConflictsWithConcurrentChange(t *testing.T) {
	ctx := context.Background()
	dir, _ := restoreHistory(t)
	stale := openT(t, dir).Snapshot()
	mustWrite(t, dir, dmlReader(t, `[{"id":9,"x":9,"s":"i","p":"a"}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	_, _, err := restore.Run(ctx, stale, restore.Options{Version: restore.ToVersion(1)})
	if !errors.Is(err, deltalite.ErrCommitConflict) {
		t.Fatalf("restore over a concurrent append: %v", err)
	}
	if op, _, _ := lastCommit(t, dir); op != "WRITE" || openT(t, dir).Version() != 5 {
		t.Fatalf("the conflicting restore committed: %s", op)
	}
	// A VACUUM START changes no file, but the vacuum may be deleting what
	// the restore adds back: that conflicts too.
	stale = openT(t, dir).Snapshot()
	if _, err := txn.Begin(stale, txn.Operation{Name: txn.OpVacuumStart}, txn.Options{}).Commit(ctx); err != nil {
		t.Fatal(err)
	}
	_, _, err = restore.Run(ctx, stale, restore.Options{Version: restore.ToVersion(1)})
	if !errors.Is(err, deltalite.ErrCommitConflict) || !strings.Contains(err.Error(), "fails on any concurrent commit") {
		t.Fatalf("restore over a concurrent vacuum: %v", err)
	}
	if op, _, _ := lastCommit(t, dir); op != "VACUUM START" {
		t.Fatalf("the conflicting restore committed: %s", op)
	}
}

// TestRestoreDeletionVectors: on Spark's table whose version 2 put a
// deletion vector on version 1's file, restoring to 1 removes the file with
// its DV and adds it back without; restoring to 2 the reverse; and after
// our update rewrote the file, the file with its DV comes back.
func TestRestoreDeletionVectors(t *testing.T) {
	ctx := context.Background()
	dir := copyCorpus(t, "deletion_vectors")
	rows := [][]string{nil, readRowsAt(t, dir, 1), readRowsAt(t, dir, 2)}
	tb := openT(t, dir)
	mustUpdate(t, tb, map[string]string{"int": "int + 1"}, "letter = 'b'", 1) // v3: rewrites the file
	afterUpdate := readRows(t, dir)
	for _, c := range []struct {
		v        int64
		want     []string
		withDV   bool
		restored int64
		removed  int64
	}{{1, rows[1], false, 1, 1}, {2, rows[2], true, 1, 1}, {3, afterUpdate, false, 1, 1}, {2, rows[2], true, 1, 1}} {
		st, err := tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(c.v)})
		if err != nil || st.NumRestoredFiles != c.restored || st.NumRemovedFiles != c.removed {
			t.Fatalf("restore to %d: %v %s", c.v, err, st)
		}
		arrowrows.Diff(t, readRows(t, dir), c.want)
		files := tb.Snapshot().Files()
		if len(files) != 1 || (files[0].DeletionVector != nil) != c.withDV {
			t.Fatalf("restore to %d: files %+v", c.v, files)
		}
	}
	if len(rows[1]) == len(rows[2]) {
		t.Fatal("the corpus table's DV deletes no row")
	}
}

// TestRestoreRefusesVacuumedVersion: after a VACUUM with no retention, a
// restore to a version whose files it deleted is refused naming one of
// them, and the table stays as it was.
func TestRestoreRefusesVacuumedVersion(t *testing.T) {
	ctx := context.Background()
	dir, rows := restoreHistory(t)
	tb := openT(t, dir)
	zero := 0
	if _, err := tb.Vacuum(ctx, deltalite.VacuumOptions{RetentionHours: &zero, NoEnforceRetention: true}); err != nil {
		t.Fatal(err)
	}
	v := tb.Version()
	_, err := tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(2)})
	if !errors.Is(err, deltalite.ErrNotFound) || !strings.Contains(err.Error(), ".parquet") || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("restore to a vacuumed version: %v", err)
	}
	if openT(t, dir).Version() != v {
		t.Fatal("a refused restore committed")
	}
	arrowrows.Diff(t, readRows(t, dir), rows[4])
}

// TestRestoreInCommitTimestampTable: on a table with in-commit timestamps
// the restore commit carries one, later than the previous commit's.
func TestRestoreInCommitTimestampTable(t *testing.T) {
	ctx := context.Background()
	dir := dmlTable(t, map[string]string{"delta.enableInCommitTimestamps": "true"}, dmlRows...)
	rows := readRowsAt(t, dir, 0)
	tb := openT(t, dir)
	if _, err := tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(0)}); err != nil {
		t.Fatal(err)
	}
	arrowrows.Diff(t, readRows(t, dir), rows)
	h, err := tb.History(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	ict, ok := h[0].Info.Raw["inCommitTimestamp"].(float64)
	if h[0].Info.Operation != "RESTORE" || !ok || int64(ict) <= h[1].Timestamp.UnixMilli() {
		t.Fatalf("restore commit %+v after %v", h[0].Info.Raw, h[1].Timestamp)
	}
}

// commitActions lists the action names of each line of commit v (metaData,
// protocol, add, ...).
func commitActions(t *testing.T, st storage.Store, v int64) []string {
	t.Helper()
	data, err := storage.ReadAll(context.Background(), st, protocol.CommitKey(v))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("commit %d: %v", v, err)
		}
		for k := range m {
			names = append(names, k)
		}
	}
	return names
}

// TestRestoreCommitsMetadataOnlyWhenChanged: a restore to a version with
// the table's schema, properties and protocol commits no metaData and no
// protocol action (so it does not fail concurrent blind appends); one
// across a schema change commits the old metaData.
func TestRestoreCommitsMetadataOnlyWhenChanged(t *testing.T) {
	ctx := context.Background()
	dir, rows := restoreHistory(t) // v3 widened the schema
	st := openT(t, dir).Snapshot().Store()
	for _, c := range []struct {
		to       int64
		metadata bool
	}{{3, false}, {1, true}, {0, false}, {4, true}} {
		tb := openT(t, dir)
		if _, err := tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(c.to)}); err != nil {
			t.Fatalf("restore to %d: %v", c.to, err)
		}
		arrowrows.Diff(t, readRows(t, dir), rows[c.to])
		names := commitActions(t, st, tb.Version())
		if slices.Contains(names, "metaData") != c.metadata || slices.Contains(names, "protocol") {
			t.Errorf("restore to %d (from version %d) commits %v, want metaData %v and no protocol", c.to, tb.Version()-1, names, c.metadata)
		}
		if got, want := tb.Metadata().SchemaString, openAt(t, dir, c.to).Metadata().SchemaString; got != want {
			t.Errorf("restore to %d: schema %s, want %s", c.to, got, want)
		}
	}
}

// restoreFirst is a store on which a RESTORE to version 0 commits just
// before this writer's commit of version v lands: a blind append racing a
// restore that wins.
type restoreFirst struct {
	storage.Store
	v    int64
	once sync.Once
	err  error
}

func (s *restoreFirst) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if key == protocol.CommitKey(s.v) {
		s.once.Do(func() {
			tb, err := deltalite.Open(ctx, s.URL(), deltalite.WithStore(s.Store))
			if err == nil {
				_, err = tb.Restore(ctx, deltalite.RestoreOptions{Version: restore.ToVersion(0)})
			}
			s.err = err
		})
		if s.err != nil {
			return s.err
		}
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

// TestBlindAppendRacingRestoreBothLand: a restore that leaves the schema
// as it is commits before a concurrent blind append; the append lands on
// top of it instead of failing with a metadata conflict.
func TestBlindAppendRacingRestoreBothLand(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	for _, b := range dmlRows { // v0, v1
		mustWrite(t, st.URL(), dmlReader(t, b), deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"p"}, Store: st})
	}
	v0 := readRows(t, st.URL(), deltalite.WithStore(st), deltalite.WithVersion(0))
	racer := &restoreFirst{Store: st, v: 2}
	res, err := deltalite.Write(ctx, st.URL(), dmlReader(t, `[{"id":9,"x":9,"s":"i","p":"a"}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, Store: racer})
	if racer.err != nil {
		t.Fatalf("the racing restore: %v", racer.err)
	}
	if err != nil || res.Version != 3 {
		t.Fatalf("the blind append after a restore: %v (%+v)", err, res)
	}
	tb, err := deltalite.Open(ctx, st.URL(), deltalite.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	h, err := tb.History(ctx, 2)
	if err != nil || h[0].Info.Operation != "WRITE" || h[1].Info.Operation != "RESTORE" {
		t.Fatalf("history %+v (%v), want the RESTORE then the WRITE", h, err)
	}
	got := readRows(t, st.URL(), deltalite.WithStore(st))
	added := slices.DeleteFunc(slices.Clone(got), func(r string) bool { return slices.Contains(v0, r) })
	if len(got) != len(v0)+1 || len(added) != 1 || !strings.Contains(added[0], "9") {
		t.Fatalf("rows %v, want version 0's %v and the appended one", got, v0)
	}
}
