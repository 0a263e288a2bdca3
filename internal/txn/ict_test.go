package txn

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

var ictProto = &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"inCommitTimestamp"}}

func ictOf(t *testing.T, st storage.Store, v int64) int64 {
	t.Helper()
	ci := commitInfoOf(t, st, v)
	if ci.InCommitTimestamp == nil {
		t.Fatalf("commit %d has no inCommitTimestamp", v)
	}
	return *ci.InCommitTimestamp
}

func clockAt(ts ...time.Time) func() time.Time {
	i := 0
	return func() time.Time {
		t := ts[min(i, len(ts)-1)]
		i++
		return t
	}
}

func TestInCommitTimestampsMonotonic(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	snap := create(t, st, tableSpec{proto: ictProto, props: map[string]string{protocol.PropEnableInCommitTimestamps: "true"}})
	if ictOf(t, st, 0) <= 0 {
		t.Fatal("commit 0 has no in-commit timestamp")
	}
	if _, ok := snap.Properties()[protocol.PropICTEnablementVersion]; ok {
		t.Fatal("a table created with in-commit timestamps got enablement properties")
	}
	// The clock steps back an hour on every commit; timestamps still rise.
	base := time.Now().Add(time.Hour)
	prev := ictOf(t, st, 0)
	for i := range 4 {
		tx := Begin(snap, Operation{Name: OpWrite}, Options{Now: clockAt(base.Add(-time.Duration(i) * time.Hour))})
		tx.Add(addAction(addIn("")))
		res, err := tx.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		snap = res.Snapshot
		got := ictOf(t, st, res.Version)
		want := max(base.Add(-time.Duration(i)*time.Hour).UnixMilli(), prev+1)
		if got != want {
			t.Fatalf("commit %d: inCommitTimestamp %d, want %d (previous %d)", res.Version, got, want, prev)
		}
		prev = got
	}

	// A retry takes the winner's timestamp into account.
	now := time.Now()
	loser := Begin(snap, Operation{Name: OpWrite}, Options{Now: clockAt(now), Backoff: noBackoff})
	loser.Add(addAction(addIn("")))
	winner := Begin(snap, Operation{Name: OpWrite}, Options{Now: clockAt(now.Add(48 * time.Hour))})
	winner.Add(addAction(addIn("")))
	wres, err := winner.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lres, err := loser.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lres.Attempts != 2 || ictOf(t, st, lres.Version) != ictOf(t, st, wres.Version)+1 {
		t.Fatalf("retried commit %d: ICT %d after winner's %d (attempts %d)", lres.Version, ictOf(t, st, lres.Version), ictOf(t, st, wres.Version), lres.Attempts)
	}

	// Time travel by timestamp follows the in-commit timestamps.
	at, err := snapshot.LoadAt(ctx, st, time.UnixMilli(ictOf(t, st, 2)))
	if err != nil || at.Version() != 2 {
		t.Fatalf("LoadAt(ICT of 2) = %v, %v", at, err)
	}
}

func TestInCommitTimestampEnablement(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	snap := create(t, st, tableSpec{proto: ictProto})
	if commitInfoOf(t, st, 0).InCommitTimestamp != nil {
		t.Fatal("ICT written while disabled")
	}
	enable := Begin(snap, Operation{Name: OpSetProperties}, fast())
	md := *snap.Metadata()
	md.Configuration = map[string]string{protocol.PropEnableInCommitTimestamps: "true", protocol.PropICTEnablementVersion: "99"}
	enable.Add(protocol.Action{Metadata: &md})

	// Another writer takes version 1, so the enablement lands at 2.
	other := Begin(snap, Operation{Name: OpWrite}, fast())
	other.Add(addAction(addIn("")))
	if _, err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := enable.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 2 {
		t.Fatalf("enabled at %d, want 2", res.Version)
	}
	props := load(t, st).Properties()
	ict := ictOf(t, st, 2)
	if props[protocol.PropICTEnablementVersion] != "2" || props[protocol.PropICTEnablementTimestamp] != strconv.FormatInt(ict, 10) {
		t.Fatalf("enablement properties %v, want version 2 and timestamp %d", props, ict)
	}
	if md.Configuration[protocol.PropICTEnablementVersion] != "99" {
		t.Fatal("the caller's metadata was modified")
	}
	// Later commits keep the properties and carry timestamps.
	tx := Begin(res.Snapshot, Operation{Name: OpWrite}, fast())
	tx.Add(addAction(addIn("")))
	if r, err := tx.Commit(ctx); err != nil || ictOf(t, st, r.Version) <= ict {
		t.Fatalf("commit after enablement: %v", err)
	}
	if load(t, st).Properties()[protocol.PropICTEnablementVersion] != "2" {
		t.Fatal("enablement version changed")
	}
}
