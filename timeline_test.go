package deltalite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// TestTimeTravelAfterLatestCommit: a timestamp after the latest commit is
// refused as Spark refuses it (DELTA_TIMESTAMP_GREATER_THAN_COMMIT), naming
// the latest commit's time, by Open, LoadTimestamp and Restore alike, and
// the table is left as it was; the latest commit's own time is allowed.
func TestTimeTravelAfterLatestCommit(t *testing.T) {
	ctx := context.Background()
	dir, rows := restoreHistory(t)
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	setCommitTimes(t, dir, base)
	latest := base.Add(4 * time.Hour) // version 4
	future := latest.Add(time.Millisecond)
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "2026-03-01T04:00:00Z") ||
			!strings.Contains(err.Error(), "2026-03-01T04:00:00.001Z") || !strings.Contains(err.Error(), "version 4") {
			t.Errorf("%s after the latest commit: %v, want an invalid argument naming version 4's time", what, err)
		}
	}
	_, err := deltalite.Open(ctx, dir, deltalite.WithTimestamp(future))
	refused("Open", err)
	tb := openT(t, dir)
	refused("LoadTimestamp", tb.LoadTimestamp(ctx, future))
	_, err = tb.Restore(ctx, deltalite.RestoreOptions{Timestamp: time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)})
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "2026-03-01T04:00:00Z") {
		t.Errorf("Restore to 2999: %v", err)
	}
	if v := openT(t, dir).Version(); v != 4 || tb.Version() != 4 {
		t.Fatalf("a refused restore moved the table to version %d (handle at %d)", v, tb.Version())
	}
	readRows(t, dir) // still readable
	// The latest commit's own time is the latest version (Spark allows it).
	at, err := deltalite.Open(ctx, dir, deltalite.WithTimestamp(latest))
	if err != nil || at.Version() != 4 {
		t.Fatalf("Open at the latest commit's time: %v", err)
	}
	st, err := tb.Restore(ctx, deltalite.RestoreOptions{Timestamp: latest})
	if err != nil || st.Version != 4 || st.RestoredVersion != 4 || openT(t, dir).Version() != 4 {
		t.Fatalf("restore to the latest commit's time: %v %s", err, st)
	}
	if got := readRows(t, dir); len(got) != len(rows[4]) {
		t.Fatalf("rows %v, want %v", got, rows[4])
	}
}

// TestHistoryTimestampsTimeTravel: each timestamp History reports time
// travels to its own version, as in Spark (DESCRIBE HISTORY shows the time
// TIMESTAMP AS OF resolves by): commit file times, not commitInfo's
// earlier clock reading, made increasing where two files share a time;
// and a table's in-commit timestamps where it has them.
func TestHistoryTimestampsTimeTravel(t *testing.T) {
	ctx := context.Background()
	t.Run("file times", func(t *testing.T) {
		dir := dmlTable(t, nil, dmlRows...) // v0, v1
		mustDelete(t, openT(t, dir), "x > 10", 2)
		h, err := openT(t, dir).History(ctx, 0)
		if err != nil || len(h) != 3 {
			t.Fatalf("history: %v %v", h, err)
		}
		// A slow store: each file lands a second after its commitInfo was
		// taken, and versions 1 and 2 land at the same millisecond.
		for _, c := range h {
			at := time.UnixMilli(*c.Info.Timestamp).Add(time.Second)
			if c.Version == 2 {
				at = time.UnixMilli(*h[1].Info.Timestamp).Add(time.Second)
			}
			if err := os.Chtimes(filepath.Join(dir, protocol.CommitKey(c.Version)), at, at); err != nil {
				t.Fatal(err)
			}
		}
		h = checkHistoryTravels(t, dir)
		if got, want := h[0].Timestamp, h[1].Timestamp.Add(time.Millisecond); !got.Equal(want) {
			t.Errorf("version 2 at %v, want %v (a millisecond after version 1's file)", got, want)
		}
	})
	t.Run("in-commit timestamps", func(t *testing.T) {
		dir := dmlTable(t, map[string]string{"delta.enableInCommitTimestamps": "true"}, dmlRows...)
		h := checkHistoryTravels(t, dir)
		if ict := h[0].Info.InCommitTimestamp; ict == nil || h[0].Timestamp.UnixMilli() != *ict {
			t.Errorf("history of an in-commit timestamp table: %v, want %v", h[0].Timestamp, ict)
		}
	})
}

// checkHistoryTravels checks that every version's history timestamp opens
// that version, one millisecond less the version before, and that a
// history of one commit and the snapshot report the same time.
func checkHistoryTravels(t *testing.T, dir string) []snapshot.Commit {
	t.Helper()
	ctx := context.Background()
	h, err := openT(t, dir).History(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range h {
		at, err := deltalite.Open(ctx, dir, deltalite.WithTimestamp(c.Timestamp))
		if err != nil || at.Version() != c.Version {
			t.Errorf("version %d's history time %v opens %v (%v)", c.Version, c.Timestamp, versionOf(at), err)
		}
		if c.Version > 0 {
			before, err := deltalite.Open(ctx, dir, deltalite.WithTimestamp(c.Timestamp.Add(-time.Millisecond)))
			if err != nil || before.Version() != c.Version-1 {
				t.Errorf("a millisecond before version %d's time opens %v (%v)", c.Version, versionOf(before), err)
			}
		}
		ts, err := openAt(t, dir, c.Version).Snapshot().CommitTimestamp(ctx)
		if err != nil || !ts.Equal(c.Timestamp) {
			t.Errorf("version %d: snapshot commit time %v (%v), history %v", c.Version, ts, err, c.Timestamp)
		}
	}
	one, err := openT(t, dir).History(ctx, 1)
	if err != nil || len(one) != 1 || !one[0].Timestamp.Equal(h[0].Timestamp) {
		t.Errorf("history of 1: %v (%v), want %v", one, err, h[0].Timestamp)
	}
	return h
}

func versionOf(tb *deltalite.Table) any {
	if tb == nil {
		return "nothing"
	}
	return tb.Version()
}

// TestSparkAgreesOnTimestampAfterLatestCommit holds the refusal above to
// Spark's on the same table: Spark too refuses a read and a RESTORE at a
// timestamp after the latest commit and reads the latest version at that
// commit's own time, dating the commits by the files' times as we do.
func TestSparkAgreesOnTimestampAfterLatestCommit(t *testing.T) {
	spark := peers.Spark(t)
	dir, rows := restoreHistory(t)
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	setCommitTimes(t, dir, base)
	res := spark.Try(t,
		peers.Op{"op": "read", "path": dir, "timestamp": "2026-03-01 04:00:00.001"},
		peers.Op{"op": "sql", "path": dir, "sql": "RESTORE TABLE {table} TO TIMESTAMP AS OF '2999-01-01'"},
		peers.Op{"op": "read", "path": dir, "timestamp": "2026-03-01 04:00:00"})
	for i, want := range []string{"DELTA_TIMESTAMP_GREATER_THAN_COMMIT", "DELTA_CANNOT_RESTORE_TIMESTAMP_GREATER"} {
		if res[i].OK || !strings.Contains(res[i].Error, want) || !strings.Contains(res[i].Error, "2026-03-01 04:00:00") {
			t.Errorf("Spark op %d: ok=%v %q, want %s naming the latest commit's time", i, res[i].OK, res[i].Error, want)
		}
	}
	if !res[2].OK {
		t.Fatalf("Spark read at the latest commit's time: %s", res[2].Error)
	}
	if got := spark.Read(t, dir, peers.ReadOptions{}); len(got.Rows) != len(rows[4]) {
		t.Errorf("Spark reads %d rows after the refused RESTORE, want version 4's %d", len(got.Rows), len(rows[4]))
	}
	_, err := deltalite.Open(context.Background(), dir, deltalite.WithTimestamp(base.Add(4*time.Hour+time.Millisecond)))
	if !errors.Is(err, deltalite.ErrInvalidArgument) {
		t.Errorf("we read 1 ms after the latest commit: %v", err)
	}
}
