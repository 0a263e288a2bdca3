package txn

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
)

var rowTrackingProto = &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 7,
	WriterFeatures: []string{"appendOnly", "invariants", "domainMetadata", "rowTracking"}}

// addRows is addIn with n rows.
func addRows(n int64) *protocol.Add {
	a := addIn("")
	a.Stats = fmt.Sprintf(`{"numRecords":%d}`, n)
	return a
}

// rowIDsOf returns the (baseRowId, defaultRowCommitVersion) of each add of
// commit v by path, and the high water mark it recorded (-2: none).
func rowIDsOf(t *testing.T, st storage.Store, v int64) (map[string][2]int64, int64) {
	t.Helper()
	ids, mark := map[string][2]int64{}, int64(-2)
	for _, a := range commitOf(t, st, v) {
		switch {
		case a.Add != nil:
			if a.Add.BaseRowID == nil || a.Add.DefaultRowCommitVersion == nil {
				t.Fatalf("commit %d: add %s without row ids", v, a.Add.Path)
			}
			ids[a.Add.Path] = [2]int64{*a.Add.BaseRowID, *a.Add.DefaultRowCommitVersion}
		case a.DomainMetadata != nil && a.DomainMetadata.Domain == protocol.RowTrackingDomain:
			m, err := protocol.RowIDHighWaterMark(a.DomainMetadata.Configuration)
			if err != nil {
				t.Fatal(err)
			}
			mark = m
		}
	}
	return ids, mark
}

func TestRowIDsAssignedAtCommit(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	a, b := addRows(3), addRows(5)
	snap := create(t, st, tableSpec{proto: rowTrackingProto, props: map[string]string{protocol.PropEnableRowTracking: "true"}}, a, b)
	ids, mark := rowIDsOf(t, st, 0)
	if ids[a.Path] != [2]int64{0, 0} || ids[b.Path] != [2]int64{3, 0} || mark != 7 {
		t.Fatalf("version 0: ids %v, mark %d; want %s at 0, %s at 3, mark 7", ids, mark, a.Path, b.Path)
	}
	if a.BaseRowID != nil {
		t.Fatal("the caller's add was changed")
	}
	// The materialized column names are assigned with the feature.
	md := snap.Metadata().Configuration
	if !strings.HasPrefix(md[protocol.PropMaterializedRowID], "_row-id-col-") ||
		!strings.HasPrefix(md[protocol.PropMaterializedRowCommitVersion], "_row-commit-version-col-") {
		t.Fatalf("materialized column names: %v", md)
	}

	// A re-added file keeps its ids; a new one gets ids above the mark.
	re := *snap.Files()[0]
	re.DataChange = false
	c := addRows(2)
	tx := Begin(snap, Operation{Name: OpWrite}, fast())
	tx.Add(addAction(&re), addAction(c))
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, mark = rowIDsOf(t, st, 1)
	if ids[re.Path] != [2]int64{*re.BaseRowID, 0} || ids[c.Path] != [2]int64{8, 1} || mark != 9 {
		t.Fatalf("version 1: ids %v, mark %d", ids, mark)
	}
	if got := res.Snapshot.Metadata().Configuration[protocol.PropMaterializedRowID]; got != md[protocol.PropMaterializedRowID] {
		t.Fatalf("materialized name changed: %q, was %q", got, md[protocol.PropMaterializedRowID])
	}
	if cfg, _ := res.Snapshot.DomainMetadata(protocol.RowTrackingDomain); cfg != `{"rowIdHighWaterMark":9}` {
		t.Fatalf("snapshot's domain: %q", cfg)
	}
}

// A commit that lost the race takes ids above the winner's mark and the
// winner's version + 1 as commit version, as Spark's conflict checker
// reassigns them.
func TestRowIDsReassignedAfterLostRace(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	snap := create(t, st, tableSpec{proto: rowTrackingProto}, addRows(4))
	loser := Begin(snap, Operation{Name: OpWrite}, fast())
	l := addRows(10)
	loser.Add(addAction(l))
	winner := Begin(snap, Operation{Name: OpWrite}, fast())
	w := addRows(6)
	winner.Add(addAction(w))
	if _, err := winner.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := loser.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 2 || res.Attempts != 2 {
		t.Fatalf("loser: version %d after %d attempts", res.Version, res.Attempts)
	}
	wids, wmark := rowIDsOf(t, st, 1)
	lids, lmark := rowIDsOf(t, st, 2)
	if wids[w.Path] != [2]int64{4, 1} || wmark != 9 || lids[l.Path] != [2]int64{10, 2} || lmark != 19 {
		t.Fatalf("winner %v mark %d, loser %v mark %d", wids, wmark, lids, lmark)
	}
}

func TestRowIDsRefusals(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	snap := create(t, st, tableSpec{proto: rowTrackingProto})
	noStats := addRows(1)
	noStats.Stats = ""
	tx := Begin(snap, Operation{Name: OpWrite}, fast())
	tx.Add(addAction(noStats))
	if _, err := tx.Commit(ctx); !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "numRecords") {
		t.Fatalf("an add without numRecords: %v", err)
	}
	tx = Begin(snap, Operation{Name: OpWrite}, fast())
	tx.Add(addAction(addRows(1)), protocol.RowIDHighWaterMarkAction(100))
	if _, err := tx.Commit(ctx); !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), protocol.RowTrackingDomain) {
		t.Fatalf("a caller's high water mark: %v", err)
	}
	// Suspended: no ids.
	st2 := storage.NewMemory()
	create(t, st2, tableSpec{proto: rowTrackingProto, props: map[string]string{protocol.PropRowTrackingSuspended: "true"}}, addRows(2))
	for _, a := range commitOf(t, st2, 0) {
		if a.Add != nil && (a.Add.BaseRowID != nil || a.Add.DefaultRowCommitVersion != nil) ||
			a.DomainMetadata != nil {
			t.Fatalf("suspended row tracking assigned ids: %+v", a)
		}
	}
}

// TestProcessesAppendRowIDs: OS processes appending to one row-tracking
// table at once never give two rows one id: every lost race reassigns the
// loser's ids above the winner's high water mark.
func TestProcessesAppendRowIDs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts writer processes")
	}
	const procs, each = 3, 10
	dir := t.TempDir()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	create(t, st, tableSpec{proto: rowTrackingProto})
	start := time.Now().Add(time.Second)
	for i, out := range storetest.RunProcesses(t, procs, func(i int) []string {
		return []string{envChild + "=" + strconv.Itoa(i), envTable + "=" + dir,
			envStart + "=" + strconv.FormatInt(start.UnixNano(), 10), envCommits + "=" + strconv.Itoa(each)}
	}) {
		if n := strings.Count(out, "committed "); n != each {
			t.Fatalf("writer process %d committed %d times\n%s", i, n, out)
		}
	}
	// Each commit's add (one row) has the next id and its own version.
	seen := map[int64]int64{}
	for v := int64(1); v <= procs*each; v++ {
		ids, mark := rowIDsOf(t, st, v)
		if len(ids) != 1 {
			t.Fatalf("commit %d: adds %v", v, ids)
		}
		for path, id := range ids {
			if other, dup := seen[id[0]]; dup {
				t.Fatalf("row id %d given by commits %d and %d", id[0], other, v)
			}
			seen[id[0]] = v
			if id[1] != v || mark != id[0] {
				t.Fatalf("commit %d: %s has %v, mark %d", v, path, id, mark)
			}
		}
	}
	if cfg, _ := load(t, st).DomainMetadata(protocol.RowTrackingDomain); cfg != fmt.Sprintf(`{"rowIdHighWaterMark":%d}`, procs*each-1) {
		t.Fatalf("high water mark %s after %d rows", cfg, procs*each)
	}
}

// TestRowTrackingPreservedTag: on a table with row tracking enabled, the
// commits that copy or update rows say so in commitInfo.tags as Spark's
// do; appends, metadata commits and tables without it enabled carry no
// tag; a caller's tags are kept beside it and may not set it.
func TestRowTrackingPreservedTag(t *testing.T) {
	ctx := context.Background()
	tagsOf := func(st storage.Store, v int64) any { return commitInfoOf(t, st, v).Raw["tags"] }
	want := map[string]any{protocol.RowTrackingPreservedTag: "true"}

	st := storage.NewMemory()
	snap := create(t, st, tableSpec{proto: rowTrackingProto, props: map[string]string{protocol.PropEnableRowTracking: "true"}}, addRows(2))
	if tags := tagsOf(st, 0); tags != nil {
		t.Fatalf("CREATE TABLE: tags %v, want none (Spark writes none)", tags)
	}
	steps := []struct {
		op     Operation
		tagged bool
	}{
		{Operation{Name: OpWrite}, false},
		{Operation{Name: OpDelete, KeepsRowIDs: true}, true},
		{Operation{Name: OpUpdate, KeepsRowIDs: true}, true},
		{Operation{Name: OpMerge, KeepsRowIDs: true}, true},
		{Operation{Name: OpOptimize, KeepsRowIDs: true}, true},
		{Operation{Name: OpReorg, KeepsRowIDs: true}, true},
		{Operation{Name: OpRestore}, false},
	}
	for _, s := range steps {
		tx := Begin(snap, s.op, fast())
		tx.Add(addAction(addRows(1)))
		res, err := tx.Commit(ctx)
		if err != nil {
			t.Fatalf("%s: %v", s.op.Name, err)
		}
		got := tagsOf(st, res.Version)
		if s.tagged && !reflect.DeepEqual(got, want) || !s.tagged && got != nil {
			t.Errorf("%s: tags %v, want tagged %t", s.op.Name, got, s.tagged)
		}
		snap = res.Snapshot
	}

	// The caller's tags stay beside the engine's; the engine's own is refused.
	opt := fast()
	opt.Metadata = map[string]any{"tags": map[string]string{"job": "nightly"}}
	tx := Begin(snap, Operation{Name: OpDelete, KeepsRowIDs: true}, opt)
	tx.Add(addAction(addRows(1)))
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(st, res.Version); !reflect.DeepEqual(got, map[string]any{"job": "nightly", protocol.RowTrackingPreservedTag: "true"}) {
		t.Errorf("caller's tags: %v", got)
	}
	for _, bad := range []any{map[string]any{protocol.RowTrackingPreservedTag: "false"}, map[string]any{"n": 1}, "x"} {
		opt.Metadata = map[string]any{"tags": bad}
		tx = Begin(res.Snapshot, Operation{Name: OpWrite}, opt)
		tx.Add(addAction(addRows(1)))
		if _, err := tx.Commit(ctx); !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "tag") {
			t.Errorf("caller tags %v: %v, want an invalid argument naming the tag", bad, err)
		}
	}

	// Supported but not enabled: no tag.
	st = storage.NewMemory()
	snap = create(t, st, tableSpec{proto: rowTrackingProto}, addRows(2))
	tx = Begin(snap, Operation{Name: OpDelete}, fast())
	tx.Add(addAction(addRows(1)))
	if res, err = tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(st, res.Version); got != nil {
		t.Errorf("DELETE with row tracking not enabled: tags %v, want none", got)
	}
}
