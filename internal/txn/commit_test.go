package txn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

func TestCreateWritesVersionZero(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	a := addIn("")
	snap := create(t, st, tableSpec{}, a)
	if snap.NumFiles() != 1 || snap.Files()[0].Path != a.Path {
		t.Fatalf("files after create: %v", paths(snap.Files()))
	}
	actions := commitOf(t, st, 0)
	if len(actions) != 4 || actions[0].CommitInfo == nil || actions[1].Protocol == nil || actions[2].Metadata == nil || actions[3].Add == nil {
		t.Fatalf("commit 0 actions in the wrong order: %+v", actions)
	}
	ci := actions[0].CommitInfo
	if ci.Operation != OpCreateTable || ci.ReadVersion != nil || ci.IsBlindAppend == nil || !*ci.IsBlindAppend {
		t.Fatalf("commitInfo of create: %+v", ci.Raw)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(ci.Raw["txnId"].(string)) {
		t.Fatalf("txnId %v is not a UUID", ci.Raw["txnId"])
	}
	if !strings.HasPrefix(ci.Raw["engineInfo"].(string), "deltalite-go/") || ci.Raw["isolationLevel"] != "WriteSerializable" {
		t.Fatalf("commitInfo: %+v", ci.Raw)
	}

	_, err := Create(ctx, st, &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, newMetadata(tableSpec{}), nil, Operation{Name: OpCreateTable}, Options{})
	if !errors.Is(err, errs.ErrTableExists) {
		t.Fatalf("second create: %v, want TableExists", err)
	}
	if got := load(t, st).Version(); got != 0 {
		t.Fatalf("version after refused create: %d", got)
	}
}

func TestCreateRace(t *testing.T) {
	st := storage.NewMemory()
	const n = 8
	errsOut := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errsOut[i] = Create(context.Background(), st, &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2},
				newMetadata(tableSpec{}), []protocol.Action{addAction(addIn(""))}, Operation{Name: OpCreateTable}, Options{})
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errsOut {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, errs.ErrTableExists):
			t.Fatalf("losing create: %v, want TableExists", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d creates won, want 1", won)
	}
	if s := load(t, st); s.Version() != 0 || s.NumFiles() != 1 {
		t.Fatalf("table after race: v%d, %d files", s.Version(), s.NumFiles())
	}
}

func TestCommitInfoFields(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	snap := create(t, st, tableSpec{partitioned: true})
	tx := Begin(snap, Operation{Name: OpWrite, Parameters: map[string]any{"mode": "Append", "partitionBy": []string{"part"}}},
		Options{Metadata: map[string]any{"userMetadata": "nightly load", "job": map[string]any{"id": 7}}, EngineInfo: "test-engine/1"})
	tx.Add(addAction(addIn("a")))
	tx.SetOperationMetrics(map[string]any{"numFiles": 1, "numOutputRows": int64(10), "typed": json.RawMessage(`3`)})
	res, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 1 || res.Attempts != 1 {
		t.Fatalf("result %+v", res)
	}
	ci := commitInfoOf(t, st, 1)
	raw := ci.Raw
	checks := map[string]any{
		"operation": "WRITE", "readVersion": float64(0), "isBlindAppend": true, "engineInfo": "test-engine/1",
		"isolationLevel": "WriteSerializable", "userMetadata": "nightly load",
	}
	for k, want := range checks {
		if raw[k] != want {
			t.Errorf("commitInfo.%s = %#v, want %#v", k, raw[k], want)
		}
	}
	params := raw["operationParameters"].(map[string]any)
	if params["mode"] != "Append" || params["partitionBy"] != `["part"]` {
		t.Errorf("operationParameters %#v: values must be strings", params)
	}
	metrics := raw["operationMetrics"].(map[string]any)
	if metrics["numFiles"] != "1" || metrics["numOutputRows"] != "10" || metrics["typed"] != float64(3) {
		t.Errorf("operationMetrics %#v", metrics)
	}
	if job, ok := raw["job"].(map[string]any); !ok || job["id"] != float64(7) {
		t.Errorf("caller metadata not merged: %#v", raw["job"])
	}
	if ci.Timestamp == nil || ci.InCommitTimestamp != nil {
		t.Errorf("timestamp %v, inCommitTimestamp %v (ICT is off)", ci.Timestamp, ci.InCommitTimestamp)
	}

	// A caller key that the engine owns is refused, not dropped.
	tx = Begin(res.Snapshot, Operation{Name: OpWrite}, Options{Metadata: map[string]any{"readVersion": 99}})
	tx.Add(addAction(addIn("a")))
	if _, err := tx.Commit(ctx); !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "readVersion") {
		t.Fatalf("engine key in caller metadata: %v", err)
	}
}

func TestCommitValidation(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	f := addIn("")
	snap := create(t, st, tableSpec{}, f)
	md := newMetadata(tableSpec{})
	cases := []struct {
		name    string
		build   func(*Txn)
		errPart string
	}{
		{"two metaData", func(tx *Txn) { tx.Add(protocol.Action{Metadata: md}, protocol.Action{Metadata: md}) }, "more than one metaData"},
		{"commitInfo", func(tx *Txn) { tx.Add(protocol.Action{CommitInfo: &protocol.CommitInfo{}}) }, "commitInfo is generated"},
		{"add twice", func(tx *Txn) { a := addIn(""); tx.Add(addAction(a), addAction(a)) }, "more than one file action"},
		{"add and remove", func(tx *Txn) { tx.Add(addAction(f), removeAction(removeOf(f, true))) }, "more than one file action"},
		{"txn twice", func(tx *Txn) {
			tx.Add(protocol.Action{Txn: &protocol.Txn{AppID: "a", Version: 1}}, protocol.Action{Txn: &protocol.Txn{AppID: "a", Version: 2}})
		}, "more than one txn"},
		{"blind claim with remove", func(tx *Txn) { tx.Add(removeAction(removeOf(f, true))); tx.SetBlindAppend(true) }, "not a blind append"},
		{"empty action", func(tx *Txn) { tx.Add(protocol.Action{}) }, "empty"},
		{"partition column not in schema", func(tx *Txn) {
			m := newMetadata(tableSpec{})
			m.PartitionColumns = []string{"nope"}
			tx.Add(protocol.Action{Metadata: m})
		}, "partition column"},
		{"protocol drops a feature", func(tx *Txn) {
			tx.Add(protocol.Action{Protocol: &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 1}})
		}, "drops features"},
		{"ICT without the feature", func(tx *Txn) {
			tx.Add(protocol.Action{Metadata: newMetadata(tableSpec{props: map[string]string{protocol.PropEnableInCommitTimestamps: "true"}})})
		}, "inCommitTimestamp"},
	}
	for _, c := range cases {
		tx := Begin(snap, Operation{Name: OpWrite}, fast())
		c.build(tx)
		_, err := tx.Commit(ctx)
		if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), c.errPart) {
			t.Errorf("%s: %v, want InvalidArgument mentioning %q", c.name, err, c.errPart)
		}
	}
	if v := load(t, st).Version(); v != 0 {
		t.Fatalf("refused commits changed the table: version %d", v)
	}

	tx := Begin(snap, Operation{Name: OpWrite}, fast())
	tx.Add(addAction(addIn("")))
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx); !errors.Is(err, errs.ErrInvalidArgument) {
		t.Fatalf("second Commit of one txn: %v", err)
	}
}

func TestAppTxn(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	snap := create(t, st, tableSpec{})
	ts := int64(1_700_000_000_000)
	for v := int64(1); v <= 3; v++ {
		if AppTxnApplied(snap, "loader", v) {
			t.Fatalf("version %d reported applied before it was committed", v)
		}
		tx := Begin(snap, Operation{Name: OpWrite}, fast())
		tx.ReadAppTxn("loader")
		tx.Add(addAction(addIn("")), protocol.Action{Txn: &protocol.Txn{AppID: "loader", Version: v, LastUpdated: &ts}})
		res, err := tx.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		snap = res.Snapshot
	}
	for v, want := range map[int64]bool{1: true, 3: true, 4: false} {
		if got := AppTxnApplied(snap, "loader", v); got != want {
			t.Errorf("AppTxnApplied(loader, %d) = %v, want %v", v, got, want)
		}
	}
	if AppTxnApplied(snap, "other", 0) {
		t.Error("an unknown app reported applied")
	}
	if got := load(t, st); got.NumFiles() != 3 {
		t.Fatalf("%d files, want 3", got.NumFiles())
	}
}

// racingStore makes another writer take every commit version first: each
// PutIfAbsent of a commit first lands a blind append there.
type racingStore struct {
	storage.Store
	foreign int
}

func (s *racingStore) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if protocol.ParseLogFile(key).Kind == protocol.CommitFile {
		s.foreign++
		blind := true
		ts := int64(1_700_000_000_000)
		other, _ := protocol.EncodeCommit([]protocol.Action{
			{CommitInfo: &protocol.CommitInfo{Timestamp: &ts, Operation: "WRITE", IsBlindAppend: &blind,
				Raw: map[string]any{"txnId": fmt.Sprintf("foreign-%d", s.foreign)}}},
			addAction(addIn("")),
		})
		if err := s.Store.PutIfAbsent(ctx, key, other); err != nil {
			return err
		}
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

func TestRetriesExhausted(t *testing.T) {
	ctx := context.Background()
	mem := storage.NewMemory()
	create(t, mem, tableSpec{})
	racing := &racingStore{Store: mem}
	var pauses []int
	tx := Begin(load(t, racing), Operation{Name: OpWrite},
		Options{MaxRetries: 3, Backoff: func(n int) time.Duration { pauses = append(pauses, n); return 0 }})
	mine := addIn("")
	tx.Add(addAction(mine))
	_, err := tx.Commit(ctx)
	c := conflictRule(t, err)
	if c.Rule != RuleRetriesExhausted || c.WinningVersion != 4 {
		t.Fatalf("conflict %+v, want RetriesExhausted at version 4", c)
	}
	if fmt.Sprint(pauses) != "[1 2 3]" {
		t.Fatalf("backoff called for attempts %v, want [1 2 3]", pauses)
	}
	s := load(t, mem)
	if s.Version() != 4 || s.NumFiles() != 4 {
		t.Fatalf("table v%d with %d files, want the 4 foreign commits only", s.Version(), s.NumFiles())
	}
	if _, ok := paths(s.Files())[mine.Path]; ok {
		t.Fatal("the exhausted commit's file is in the table")
	}

	// No retries at all: the first lost race fails.
	tx = Begin(load(t, racing), Operation{Name: OpWrite}, Options{MaxRetries: -1, Backoff: noBackoff})
	tx.Add(addAction(addIn("")))
	if _, err := tx.Commit(ctx); conflictRule(t, err).Rule != RuleRetriesExhausted {
		t.Fatalf("MaxRetries -1: %v", err)
	}
}

// flakyStore lands a commit but reports a transport error, as a store
// whose response was lost would.
type flakyStore struct{ storage.Store }

func (s flakyStore) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if err := s.Store.PutIfAbsent(ctx, key, data); err != nil {
		return err
	}
	return errors.New("connection reset")
}

func TestCommitLandedDespiteError(t *testing.T) {
	mem := storage.NewMemory()
	create(t, mem, tableSpec{})
	tx := Begin(load(t, flakyStore{mem}), Operation{Name: OpWrite}, fast())
	tx.Add(addAction(addIn("")))
	res, err := tx.Commit(context.Background())
	if err != nil {
		t.Fatalf("a commit that landed reported %v", err)
	}
	if res.Version != 1 || res.Attempts != 1 || load(t, mem).Version() != 1 {
		t.Fatalf("result %+v", res)
	}
}

// TestConcurrentGoroutines has writers append at once through their own
// snapshots: every append lands exactly once at contiguous versions.
func TestConcurrentGoroutines(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			create(t, st, tableSpec{})
			const writers, each = 6, 8
			want := map[string]int{}
			var mu sync.Mutex
			errsOut := make(chan error, writers)
			var retried atomic.Int64
			var wg sync.WaitGroup
			for w := range writers {
				snap := load(t, st)
				wg.Go(func() {
					for i := range each {
						a := addIn("")
						a.Path = fmt.Sprintf("w%d-%d.parquet", w, i)
						mu.Lock()
						want[a.Path]++
						mu.Unlock()
						tx := Begin(snap, Operation{Name: OpWrite}, Options{MaxRetries: 200})
						tx.Add(addAction(a))
						res, err := tx.Commit(ctx)
						if err != nil {
							errsOut <- err
							return
						}
						retried.Add(int64(res.Attempts - 1))
						snap = res.Snapshot
					}
				})
			}
			wg.Wait()
			close(errsOut)
			t.Logf("%d commits, %d retries after lost races", writers*each, retried.Load())
			for err := range errsOut {
				t.Fatal(err)
			}
			s := load(t, st)
			if s.Version() != writers*each {
				t.Fatalf("version %d, want %d", s.Version(), writers*each)
			}
			for v := int64(1); v <= s.Version(); v++ {
				adds := 0
				for _, a := range commitOf(t, st, v) {
					if a.Add != nil {
						adds++
					}
				}
				if adds != 1 {
					t.Fatalf("commit %d has %d adds", v, adds)
				}
			}
			got := paths(s.Files())
			for p := range want {
				if got[p] != 1 {
					t.Errorf("%s present %d times", p, got[p])
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d files, want %d", len(got), len(want))
			}
		})
	}
}

func stores(t *testing.T) map[string]storage.Store {
	local, err := storage.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]storage.Store{"memory": storage.NewMemory(), "local": local}
}

func TestCanceledCommitWritesNothing(t *testing.T) {
	st := storage.NewMemory()
	snap := create(t, st, tableSpec{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tx := Begin(snap, Operation{Name: OpWrite}, fast())
	tx.Add(addAction(addIn("")))
	if _, err := tx.Commit(ctx); !errors.Is(err, errs.ErrCanceled) {
		t.Fatalf("canceled commit: %v", err)
	}
	if v := load(t, st).Version(); v != 0 {
		t.Fatalf("canceled commit landed at %d", v)
	}
}

func TestPanickingPredicateIsAnError(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	snap := create(t, st, tableSpec{partitioned: true}, addIn("a"))
	tx := Begin(snap, Operation{Name: OpWrite}, fast())
	tx.ReadPredicate(func(*protocol.Add) bool { panic("boom") }, "bad")
	tx.Add(addAction(addIn("a")))
	winner := Begin(snap, Operation{Name: OpWrite}, fast())
	winner.SetBlindAppend(false)
	winner.Add(addAction(addIn("b")))
	if _, err := winner.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx); !errors.Is(err, errs.ErrInternal) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("panicking predicate: %v", err)
	}
}
