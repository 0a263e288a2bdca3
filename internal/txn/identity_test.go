package txn

import (
	"context"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// withHighWaterMark is md with the id column's identity high watermark set
// to hwm (as a commit that numbered rows writes it).
func withHighWaterMark(md *protocol.Metadata, hwm string) *protocol.Metadata {
	next := *md
	next.SchemaString = strings.Replace(testSchema, `"name":"id","type":"long","nullable":true,"metadata":{}`,
		`"name":"id","type":"long","nullable":true,"metadata":{"delta.identity.start":1,"delta.identity.step":1,"delta.identity.allowExplicitInsert":false`+hwm+`}`, 1)
	return &next
}

// A winner that only numbered identity rows (its metaData differs in the
// high watermark alone) conflicts with a commit that numbered rows too
// (IdentityHighWaterMark, which planning again resolves), and not with one
// that did not; any other metadata change is MetadataChanged.
func TestIdentityHighWaterMarkConflicts(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	base := create(t, st, tableSpec{proto: &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 6}})
	// Version 1: the table gets an identity column without a watermark.
	tx := Begin(base, Operation{Name: OpSetProperties, WritesNoRows: true}, fast())
	tx.Add(protocol.Action{Metadata: withHighWaterMark(base.Metadata(), "")})
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	snap := load(t, st)
	numbered := func(hwm string) *Txn {
		tx := Begin(snap, Operation{Name: OpWrite, KeepsColumnRules: true}, Options{Backoff: noBackoff, MaxRetries: 3})
		tx.Add(protocol.Action{Metadata: withHighWaterMark(snap.Metadata(), `,"delta.identity.highWaterMark":`+hwm)})
		tx.Add(addAction(addIn("a")))
		return tx
	}
	if _, err := numbered("2").Commit(ctx); err != nil { // the winner, version 2
		t.Fatal(err)
	}
	c := conflictRule(t, func() error { _, err := numbered("2").Commit(ctx); return err }())
	if c.Rule != RuleIdentityHighWaterMark || !Replannable(c) {
		t.Fatalf("a second commit numbering from the same watermark: rule %s (replannable %v)", c.Rule, Replannable(c))
	}
	plain := Begin(snap, Operation{Name: OpWrite, KeepsColumnRules: true}, fast())
	plain.Add(addAction(addIn("b")))
	if res, err := plain.Commit(ctx); err != nil || res.Version != 3 {
		t.Fatalf("an append that numbered nothing after the winner: %v %+v", err, res)
	}
	if !SameShape(snap, load(t, st)) {
		t.Fatal("the high watermark alone changed the table's shape")
	}
	// A winner that changed more than the watermark: MetadataChanged, not
	// resolved by planning again.
	now := load(t, st)
	other := *now.Metadata()
	other.Configuration = map[string]string{"delta.appendOnly": "true"}
	tx = Begin(now, Operation{Name: OpSetProperties, WritesNoRows: true}, fast())
	tx.Add(protocol.Action{Metadata: &other})
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	snap = now
	c = conflictRule(t, func() error { _, err := numbered("4").Commit(ctx); return err }())
	if c.Rule != RuleMetadataChanged || Replannable(c) {
		t.Fatalf("numbering after a property change: rule %s (replannable %v)", c.Rule, Replannable(c))
	}
}

// A commit that numbered its rows again past the winner's high watermark
// (NumberedAfter the winner's metaData) commits on its old read version:
// no value can repeat, every other rule still ran against the winner, and
// it keeps the further mark, or takes the winner's. A commit whose
// metaData changes high watermarks alone carries Spark's identity-only
// tag; one that changes other metadata does not.
func TestIdentityNumberedAgainPastWinner(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	base := create(t, st, tableSpec{proto: &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 6}})
	tx := Begin(base, Operation{Name: OpSetProperties, WritesNoRows: true}, fast())
	tx.Add(protocol.Action{Metadata: withHighWaterMark(base.Metadata(), `,"delta.identity.highWaterMark":2`)})
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	snap := load(t, st) // version 1, mark 2
	numbered := func(hwm string, after *protocol.Metadata) *Txn {
		tx := Begin(snap, Operation{Name: OpWrite, KeepsColumnRules: true}, Options{Backoff: noBackoff, MaxRetries: 3})
		tx.Add(protocol.Action{Metadata: withHighWaterMark(snap.Metadata(), `,"delta.identity.highWaterMark":`+hwm)})
		tx.Add(addAction(addIn("a")))
		if after != nil {
			tx.NumberedAfter(after)
		}
		return tx
	}
	if _, err := numbered("4", nil).Commit(ctx); err != nil { // the winner: 3, 4
		t.Fatal(err)
	}
	winner := load(t, st)
	if tags, _ := lastInfo(t, st).Raw["tags"].(map[string]any); tags[IdentityCommitTag] != "true" {
		t.Fatalf("the numbering commit's tags %v", tags)
	}
	// From mark 2 again: 3 and 4 are the winner's.
	if c := conflictRule(t, func() error { _, err := numbered("4", nil).Commit(ctx); return err }()); c.Rule != RuleIdentityHighWaterMark {
		t.Fatalf("numbered from the winner's old mark: %s", c.Rule)
	}
	// Numbered again after the winner's mark 4: 5, 6, 7.
	res, err := numbered("7", winner.Metadata()).Commit(ctx)
	if err != nil || res.Version != 3 {
		t.Fatalf("numbered past the winner: %v %+v", err, res)
	}
	if got := load(t, st).Metadata().SchemaString; !strings.Contains(got, `"delta.identity.highWaterMark":7`) {
		t.Fatalf("schema after: %s", got)
	}
	// A winner that numbered past the mark a commit numbered after; the
	// commit's mark is behind the winner's (it numbered nothing of id):
	// it takes the winner's.
	now := load(t, st)
	tx = Begin(now, Operation{Name: OpWrite, KeepsColumnRules: true}, fast())
	tx.Add(protocol.Action{Metadata: withHighWaterMark(now.Metadata(), `,"delta.identity.highWaterMark":9`)})
	tx.Add(addAction(addIn("b")))
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	same := Begin(now, Operation{Name: OpWrite, KeepsColumnRules: true}, fast())
	same.Add(protocol.Action{Metadata: now.Metadata()})
	same.Add(addAction(addIn("c")))
	if _, err := same.Commit(ctx); err != nil {
		t.Fatalf("a commit whose metaData numbered nothing after a numbering winner: %v", err)
	}
	if got := load(t, st).Metadata().SchemaString; !strings.Contains(got, `"delta.identity.highWaterMark":9`) {
		t.Fatalf("the winner's mark was lost: %s", got)
	}
	// A metaData change beyond the marks is not tagged.
	now = load(t, st)
	other := *now.Metadata()
	other.Configuration = map[string]string{"delta.appendOnly": "false"}
	tx = Begin(now, Operation{Name: OpSetProperties, WritesNoRows: true}, fast())
	tx.Add(protocol.Action{Metadata: &other})
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if tags, _ := lastInfo(t, st).Raw["tags"].(map[string]any); tags[IdentityCommitTag] != nil {
		t.Fatalf("a property change is tagged: %v", tags)
	}
}

// lastInfo is the commitInfo of the table's latest commit.
func lastInfo(t *testing.T, st storage.Store) *protocol.CommitInfo {
	t.Helper()
	snap := load(t, st)
	got, err := readCommit(context.Background(), st, snap.Version())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range got {
		if a.CommitInfo != nil {
			return a.CommitInfo
		}
	}
	t.Fatal("no commitInfo")
	return nil
}
