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
