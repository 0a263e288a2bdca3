package txn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// env is the table every conflict case starts from: partitions a (files
// a1, a2) and b (file b1) at version 0.
type env struct {
	snap  *snapshot.Snapshot
	files map[string]*protocol.Add
}

type build func(e env) *Txn

func txnOn(e env, op string) *Txn { return Begin(e.snap, Operation{Name: op}, fast()) }

func blindAppend(part string) build {
	return func(e env) *Txn {
		tx := txnOn(e, OpWrite)
		tx.Add(addAction(addIn(part)))
		return tx
	}
}

// nonBlindAppend adds data that depends on the table (INSERT ... SELECT
// from itself): not a blind append, though it removes nothing.
func nonBlindAppend(part string) build {
	return func(e env) *Txn {
		tx := blindAppend(part)(e)
		tx.SetBlindAppend(false)
		return tx
	}
}

func fullOverwrite(e env) *Txn {
	tx := txnOn(e, OpWrite)
	tx.ReadWholeTable()
	for _, f := range e.snap.Files() {
		tx.Add(removeAction(removeOf(f, true)))
	}
	tx.Add(addAction(addIn("a")))
	return tx
}

func inPartition(p string) func(*protocol.Add) bool {
	return func(a *protocol.Add) bool { return a.PartitionValues["part"] == p }
}

func partitionOverwrite(part string) build {
	return func(e env) *Txn {
		tx := txnOn(e, OpWrite)
		tx.ReadPredicate(inPartition(part), "part = '"+part+"'")
		for _, f := range e.snap.Files() {
			if f.PartitionValues["part"] == part {
				tx.Add(removeAction(removeOf(f, true)))
			}
		}
		tx.Add(addAction(addIn(part)))
		return tx
	}
}

// deleteFiles is a DELETE that read and drops whole files.
func deleteFiles(names ...string) build {
	return func(e env) *Txn {
		tx := txnOn(e, OpDelete)
		for _, n := range names {
			tx.ReadFiles(e.files[n])
			tx.Add(removeAction(removeOf(e.files[n], true)))
		}
		return tx
	}
}

// removeOnly removes files without declaring reads, so only the
// delete-delete rule can catch an overlap.
func removeOnly(names ...string) build {
	return func(e env) *Txn {
		tx := txnOn(e, OpDelete)
		for _, n := range names {
			tx.Add(removeAction(removeOf(e.files[n], true)))
		}
		return tx
	}
}

func compaction(names ...string) build {
	return func(e env) *Txn {
		tx := txnOn(e, OpOptimize)
		part := e.files[names[0]].PartitionValues["part"]
		for _, n := range names {
			tx.ReadFiles(e.files[n])
			tx.Add(removeAction(removeOf(e.files[n], false)))
		}
		a := addIn(part)
		a.DataChange = false
		tx.Add(addAction(a))
		return tx
	}
}

// compactionWhere is OPTIMIZE WHERE part = ...: it reads the partition.
func compactionWhere(names ...string) build {
	return func(e env) *Txn {
		tx := compaction(names...)(e)
		part := e.files[names[0]].PartitionValues["part"]
		tx.ReadPredicate(inPartition(part), "part = '"+part+"'")
		return tx
	}
}

// mergeInto reads partition part and rewrites file name of it.
func mergeInto(part, name string) build {
	return func(e env) *Txn {
		tx := txnOn(e, OpMerge)
		tx.ReadPredicate(inPartition(part), "part = '"+part+"'")
		tx.ReadFiles(e.files[name])
		tx.Add(removeAction(removeOf(e.files[name], true)), addAction(addIn(part)))
		return tx
	}
}

// dvReAdd is a DELETE or UPDATE in deletion-vector mode: it read file
// name and re-adds it under its path with a new deletion vector (seed
// tells the vectors of two such commits apart), which removes its old add.
func dvReAdd(name string, seed int) build {
	return func(e env) *Txn {
		tx := txnOn(e, OpDelete)
		f := e.files[name]
		tx.ReadFiles(f)
		re := *f
		off := int32(1 + 100*seed)
		re.DeletionVector = &protocol.DeletionVector{StorageType: "u", PathOrInlineDv: fmt.Sprintf("ab%018d", seed), Offset: &off, SizeInBytes: 40, Cardinality: 1}
		re.Stats = stats.Loosened(f.Stats, 0)
		tx.Add(removeAction(removeOf(f, true)), addAction(&re))
		return tx
	}
}

func setProperty(e env) *Txn {
	tx := txnOn(e, OpSetProperties)
	md := *e.snap.Metadata()
	md.Configuration = map[string]string{"owner": "someone"}
	tx.Add(protocol.Action{Metadata: &md})
	return tx
}

func withProtocol(p *protocol.Protocol, inner build) build {
	return func(e env) *Txn {
		tx := inner(e)
		tx.Add(protocol.Action{Protocol: p})
		return tx
	}
}

func appTxn(app string, read bool) build {
	return func(e env) *Txn {
		tx := blindAppend("a")(e)
		if read {
			tx.ReadAppTxn(app)
		}
		tx.Add(protocol.Action{Txn: &protocol.Txn{AppID: app, Version: 1}})
		return tx
	}
}

func domain(d string) build {
	return func(e env) *Txn {
		tx := txnOn(e, OpWrite)
		tx.Add(protocol.Action{DomainMetadata: &protocol.DomainMetadata{Domain: d, Configuration: `{"k":1}`}})
		return tx
	}
}

func emptyCommit(e env) *Txn { return txnOn(e, OpWrite) }

// rawCommit writes a commit another engine made, bypassing our checks,
// and returns no transaction.
func rawCommit(actions ...protocol.Action) build {
	return func(e env) *Txn {
		st := e.snap.Store()
		latest, err := snapshot.Load(context.Background(), st)
		if err != nil {
			panic(err)
		}
		ts := int64(1_700_000_000_000)
		data, _ := protocol.EncodeCommit(append([]protocol.Action{{CommitInfo: &protocol.CommitInfo{Timestamp: &ts, Operation: "UPGRADE"}}}, actions...))
		if err := st.PutIfAbsent(context.Background(), protocol.CommitKey(latest.Version()+1), data); err != nil {
			panic(err)
		}
		return nil
	}
}

var (
	domainProto     = &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"appendOnly", "invariants", "domainMetadata"}}
	compatibleProto = &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"appendOnly", "invariants", "domainMetadata"}}
	dvProto         = &protocol.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"deletionVectors"}, WriterFeatures: []string{"deletionVectors"}}
	unknownProto    = &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"appendOnly", "invariants", "rowTracking"}}
)

// TestConflictMatrix commits winners from the same read version as the
// current transaction, then the current one, and checks which rule (if
// any) stops it: the table of the Delta concurrency documentation.
func TestConflictMatrix(t *testing.T) {
	cases := []struct {
		name    string
		serial  bool // delta.isolationLevel = Serializable
		proto   *protocol.Protocol
		winners []build
		current build
		want    Rule // "" = commits at the version after the winners
	}{
		{name: "append vs append", winners: []build{blindAppend("a")}, current: blindAppend("a")},
		{name: "append vs overwrite", winners: []build{fullOverwrite}, current: blindAppend("a")},
		{name: "append vs compaction", winners: []build{compaction("a1", "a2")}, current: blindAppend("a")},
		{name: "append vs delete", winners: []build{deleteFiles("a1")}, current: blindAppend("a")},
		{name: "append vs metadata", winners: []build{setProperty}, current: blindAppend("a"), want: RuleMetadataChanged},
		{name: "append under Serializable vs append", serial: true, winners: []build{blindAppend("a")}, current: blindAppend("a")},

		{name: "overwrite vs blind append (WriteSerializable)", winners: []build{blindAppend("b")}, current: fullOverwrite},
		{name: "overwrite vs blind append (Serializable)", serial: true, winners: []build{blindAppend("b")}, current: fullOverwrite, want: RuleConcurrentAppend},
		{name: "overwrite vs non-blind append", winners: []build{nonBlindAppend("b")}, current: fullOverwrite, want: RuleConcurrentAppend},
		{name: "overwrite vs overwrite", winners: []build{fullOverwrite}, current: fullOverwrite, want: RuleConcurrentAppend},
		{name: "overwrite vs compaction", winners: []build{compaction("b1")}, current: fullOverwrite, want: RuleConcurrentAppend},
		{name: "overwrite vs delete", winners: []build{deleteFiles("b1")}, current: fullOverwrite, want: RuleConcurrentDeleteRead},

		{name: "partition overwrite vs append elsewhere", winners: []build{blindAppend("b")}, current: partitionOverwrite("a")},
		{name: "partition overwrite vs append elsewhere (Serializable)", serial: true, winners: []build{blindAppend("b")}, current: partitionOverwrite("a")},
		{name: "partition overwrite vs blind append same partition", winners: []build{blindAppend("a")}, current: partitionOverwrite("a")},
		{name: "partition overwrite vs append same partition (Serializable)", serial: true, winners: []build{blindAppend("a")}, current: partitionOverwrite("a"), want: RuleConcurrentAppend},
		{name: "partition overwrite vs overwrite of another partition", winners: []build{partitionOverwrite("b")}, current: partitionOverwrite("a")},
		{name: "partition overwrite vs overwrite of the same partition", winners: []build{partitionOverwrite("a")}, current: partitionOverwrite("a"), want: RuleConcurrentAppend},
		{name: "partition overwrite vs delete in it", winners: []build{deleteFiles("a2")}, current: partitionOverwrite("a"), want: RuleConcurrentDeleteRead},
		{name: "partition overwrite vs delete elsewhere", winners: []build{deleteFiles("b1")}, current: partitionOverwrite("a")},
		{name: "partition overwrite vs compaction elsewhere", winners: []build{compaction("b1")}, current: partitionOverwrite("a")},
		{name: "partition overwrite vs compaction in it", winners: []build{compaction("a1", "a2")}, current: partitionOverwrite("a"), want: RuleConcurrentAppend},

		{name: "merge vs blind append into its partition", winners: []build{blindAppend("a")}, current: mergeInto("a", "a1")},
		{name: "merge vs non-blind append into its partition", winners: []build{nonBlindAppend("a")}, current: mergeInto("a", "a1"), want: RuleConcurrentAppend},
		{name: "merge vs non-blind append elsewhere", winners: []build{nonBlindAppend("b")}, current: mergeInto("a", "a1")},
		{name: "merge vs delete of a file it read", winners: []build{deleteFiles("a1")}, current: mergeInto("a", "a1"), want: RuleConcurrentDeleteRead},

		{name: "delete vs delete of the same file (read)", winners: []build{deleteFiles("a1")}, current: deleteFiles("a1"), want: RuleConcurrentDeleteRead},
		{name: "delete vs delete of the same file", winners: []build{removeOnly("a1")}, current: removeOnly("a1"), want: RuleConcurrentDeleteDelete},
		{name: "delete vs delete of another file", winners: []build{removeOnly("a1")}, current: removeOnly("a2")},

		{proto: dvProto, name: "DV re-add vs DV re-add of the same file", winners: []build{dvReAdd("a1", 1)}, current: dvReAdd("a1", 2), want: RuleConcurrentDeleteRead},
		{proto: dvProto, name: "DV re-add vs delete of the same file", winners: []build{deleteFiles("a1")}, current: dvReAdd("a1", 1), want: RuleConcurrentDeleteRead},
		{proto: dvProto, name: "delete vs DV re-add of the same file", winners: []build{dvReAdd("a1", 1)}, current: deleteFiles("a1"), want: RuleConcurrentDeleteRead},
		{proto: dvProto, name: "delete without reads vs DV re-add of the same file", winners: []build{dvReAdd("a1", 1)}, current: removeOnly("a1"), want: RuleConcurrentDeleteDelete},
		{proto: dvProto, name: "compaction vs DV re-add of its file", winners: []build{dvReAdd("a2", 1)}, current: compaction("a1", "a2"), want: RuleConcurrentDeleteRead},
		{proto: dvProto, name: "DV re-add vs compaction of its file", winners: []build{compaction("a1", "a2")}, current: dvReAdd("a1", 1), want: RuleConcurrentDeleteRead},
		{proto: dvProto, name: "merge of a partition vs DV re-add in it", winners: []build{dvReAdd("a2", 1)}, current: mergeInto("a", "a1"), want: RuleConcurrentAppend},
		{proto: dvProto, name: "DV re-add vs DV re-add of another file", winners: []build{dvReAdd("a2", 1)}, current: dvReAdd("a1", 2)},
		{proto: dvProto, name: "DV re-add vs blind append", winners: []build{blindAppend("a")}, current: dvReAdd("a1", 1)},
		{proto: dvProto, name: "DV re-add vs blind append (Serializable)", serial: true, winners: []build{blindAppend("a")}, current: dvReAdd("a1", 1)},
		{proto: dvProto, name: "blind append vs DV re-add", winners: []build{dvReAdd("a1", 1)}, current: blindAppend("a")},

		{name: "compaction vs blind append", winners: []build{blindAppend("a")}, current: compaction("a1", "a2")},
		{name: "compaction vs non-blind append (snapshot isolation)", winners: []build{nonBlindAppend("a")}, current: compaction("a1", "a2")},
		{name: "partition compaction vs non-blind append into it", winners: []build{nonBlindAppend("a")}, current: compactionWhere("a1", "a2")},
		{name: "partition compaction vs append into it (Serializable)", serial: true, winners: []build{blindAppend("a")}, current: compactionWhere("a1", "a2")},
		{name: "compaction vs append (Serializable)", serial: true, winners: []build{nonBlindAppend("a")}, current: compaction("a1", "a2")},
		{name: "compaction vs delete of its file", winners: []build{deleteFiles("a2")}, current: compaction("a1", "a2"), want: RuleConcurrentDeleteRead},
		{name: "compaction vs compaction", winners: []build{compaction("a1", "a2")}, current: compaction("a1", "a2"), want: RuleConcurrentDeleteRead},
		{name: "empty commit vs overwrite", winners: []build{fullOverwrite}, current: emptyCommit},

		{name: "app txn read vs same app", winners: []build{appTxn("app", false)}, current: appTxn("app", true), want: RuleConcurrentTransaction},
		{name: "app txn write vs same app", winners: []build{appTxn("app", false)}, current: appTxn("app", false), want: RuleConcurrentTransaction},
		{name: "app txn vs another app", winners: []build{appTxn("other", false)}, current: appTxn("app", true)},

		{name: "domain vs same domain", proto: domainProto, winners: []build{domain("x")}, current: domain("x"), want: RuleConcurrentDomainChange},
		{name: "domain vs other domain", proto: domainProto, winners: []build{domain("y")}, current: domain("x")},

		{name: "append vs compatible protocol upgrade", winners: []build{withProtocol(compatibleProto, emptyCommit)}, current: blindAppend("a")},
		{name: "append vs protocol needing an unknown feature", winners: []build{rawCommit(protocol.Action{Protocol: unknownProto})}, current: blindAppend("a"), want: RuleProtocolChanged},
		{name: "protocol change vs protocol change", winners: []build{withProtocol(compatibleProto, emptyCommit)}, current: withProtocol(compatibleProto, blindAppend("a")), want: RuleProtocolChanged},

		{name: "overwrite after two harmless winners conflicts with the third", winners: []build{blindAppend("a"), blindAppend("b"), deleteFiles("b1")}, current: fullOverwrite, want: RuleConcurrentDeleteRead},
		{name: "partition overwrite after three harmless winners", winners: []build{blindAppend("a"), deleteFiles("b1"), nonBlindAppend("b")}, current: partitionOverwrite("a")},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := storage.NewMemory()
			spec := tableSpec{partitioned: true, proto: c.proto}
			if c.serial {
				spec.props = map[string]string{protocol.PropIsolationLevel: "Serializable"}
			}
			files := map[string]*protocol.Add{"a1": addIn("a"), "a2": addIn("a"), "b1": addIn("b")}
			e := env{snap: create(t, st, spec, files["a1"], files["a2"], files["b1"]), files: files}
			cur := c.current(e)
			var conflictAt int64 = -1
			for i, w := range c.winners {
				tx := w(e)
				if tx == nil {
					continue
				}
				if _, err := tx.Commit(ctx); err != nil {
					t.Fatalf("winner %d: %v", i, err)
				}
			}
			res, err := cur.Commit(ctx)
			if c.want == "" {
				if err != nil {
					t.Fatalf("want a commit, got %v", err)
				}
				want := int64(len(c.winners) + 1)
				if res.Version != want || res.Attempts != 2 || res.Snapshot.Version() != want {
					t.Fatalf("committed at %d after %d attempts (snapshot v%d), want %d after 2", res.Version, res.Attempts, res.Snapshot.Version(), want)
				}
				ci := commitInfoOf(t, st, want)
				if *ci.ReadVersion != 0 || ci.Operation != cur.op.Name {
					t.Fatalf("commitInfo of the retried commit: %+v", ci.Raw)
				}
				// The post-commit snapshot matches a fresh load.
				fresh := load(t, st)
				if got, want := paths(res.Snapshot.Files()), paths(fresh.Files()); len(got) != len(want) {
					t.Fatalf("result snapshot files %v, loaded %v", got, want)
				}
				return
			}
			if err == nil {
				t.Fatalf("committed at %d, want %s", res.Version, c.want)
			}
			cf := conflictRule(t, err)
			conflictAt = int64(len(c.winners))
			if cf.Rule != c.want || cf.WinningVersion != conflictAt {
				t.Fatalf("conflict %s at version %d (%v), want %s at %d", cf.Rule, cf.WinningVersion, err, c.want, conflictAt)
			}
			if v := load(t, st).Version(); v != int64(len(c.winners)) {
				t.Fatalf("the conflicting commit landed: version %d", v)
			}
		})
	}
}

// TestDeletionVectorReAddsNeverBothLand: two deletes from one snapshot each
// re-add file P with a deletion vector of their own. Were both to land, the
// later vector would replace the earlier and its deleted rows come back.
// The second fails with a conflict that planning again resolves (the
// operation then unions its rows with the winner's vector), and the table
// holds P once, with the winner's vector; a blind append between them
// conflicts with neither.
func TestDeletionVectorReAddsNeverBothLand(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	files := map[string]*protocol.Add{"a1": addIn("a"), "a2": addIn("a"), "b1": addIn("b")}
	e := env{snap: create(t, st, tableSpec{partitioned: true, proto: dvProto}, files["a1"], files["a2"], files["b1"]), files: files}
	first, second := dvReAdd("a1", 1)(e), dvReAdd("a1", 2)(e)
	if _, err := blindAppend("a")(e).Commit(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := first.Commit(ctx)
	if err != nil || res.Version != 2 {
		t.Fatalf("first DV re-add after a blind append: %v, %+v", err, res)
	}
	_, err = second.Commit(ctx)
	if err == nil {
		t.Fatal("both DV re-adds of one file landed")
	}
	if cf := conflictRule(t, err); cf.Rule != RuleConcurrentDeleteRead || cf.WinningVersion != 2 || !strings.Contains(cf.Detail, files["a1"].Path) {
		t.Fatalf("conflict %+v, want %s at version 2 naming %s", cf, RuleConcurrentDeleteRead, files["a1"].Path)
	}
	if !Replannable(err) || !NotLanded(err) {
		t.Fatalf("a lost DV race must be replannable and certainly not landed: %v", err)
	}
	snap := load(t, st)
	var entries []*protocol.Add
	for _, f := range snap.Files() {
		if f.Path == files["a1"].Path {
			entries = append(entries, f)
		}
	}
	if snap.Version() != 2 || len(entries) != 1 || entries[0].DeletionVector == nil || entries[0].DeletionVector.PathOrInlineDv != fmt.Sprintf("ab%018d", 1) {
		t.Fatalf("version %d, entries of P %+v; want one, with the winner's vector", snap.Version(), entries)
	}
}

// TestOneFileActionPerPath: as Spark's checkNoDuplicateActions, a commit
// adds a path at most once and removes it at most once, whatever the
// deletion vectors: two adds of P with different vectors would leave two
// live entries and P's rows twice. An add and a remove of P with the same
// vector is refused too; with different vectors it is a DV re-add.
func TestOneFileActionPerPath(t *testing.T) {
	st := storage.NewMemory()
	f := addIn("a")
	e := env{snap: create(t, st, tableSpec{partitioned: true, proto: dvProto}, f), files: map[string]*protocol.Add{"a1": f}}
	withDV := func(seed int) *protocol.Add {
		re := *f
		re.DeletionVector = &protocol.DeletionVector{StorageType: "u", PathOrInlineDv: fmt.Sprintf("ab%018d", seed), Offset: new(int32(1)), SizeInBytes: 40, Cardinality: 1}
		re.Stats = stats.Loosened(f.Stats, 0)
		return &re
	}
	cases := map[string][]protocol.Action{
		"two adds, two vectors": {removeAction(removeOf(f, true)), addAction(withDV(1)), addAction(withDV(2))},
		"two removes":           {removeAction(removeOf(f, true)), removeAction(removeOf(withDV(1), true))},
		"add and remove, same vector": func() []protocol.Action {
			r := removeOf(f, true)
			r.DeletionVector = withDV(1).DeletionVector
			return []protocol.Action{removeAction(r), addAction(withDV(1))}
		}(),
	}
	for name, acts := range cases {
		tx := txnOn(e, OpDelete)
		tx.Add(acts...)
		_, err := tx.Commit(context.Background())
		if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), f.Path) {
			t.Errorf("%s: want an invalid-argument error naming %s, got %v", name, f.Path, err)
		}
	}
	if v := load(t, st).Version(); v != 0 {
		t.Fatalf("a refused commit landed: version %d", v)
	}
	tx := dvReAdd("a1", 1)(e)
	if _, err := tx.Commit(context.Background()); err != nil {
		t.Fatalf("a DV re-add: %v", err)
	}
}

// TestDeletionVectorAddChecks: as Spark's commit check, an add with a
// deletion vector needs a protocol with deletionVectors, the table's
// delta.enableDeletionVectors true (but for an in-place metadata update
// such as ROW TRACKING BACKFILL; RESTORE is not one), statistics with
// numRecords and, but for RESTORE, tightBounds false; nothing lands
// otherwise.
func TestDeletionVectorAddChecks(t *testing.T) {
	ctx := context.Background()
	withStats := func(f *protocol.Add, js string) *protocol.Add {
		re := *f
		re.DeletionVector = &protocol.DeletionVector{StorageType: "u", PathOrInlineDv: fmt.Sprintf("ab%018d", 7), Offset: new(int32(1)), SizeInBytes: 40, Cardinality: 1}
		re.Stats = js
		return &re
	}
	for _, c := range []struct {
		name     string
		proto    *protocol.Protocol
		op       string
		stats    string
		want     string // "" = commits
		disabled string // delta.enableDeletionVectors, when not "true"
		inPlace  bool
	}{
		{"no deletionVectors feature", nil, OpDelete, `{"numRecords":1,"tightBounds":false}`, "does not support the deletionVectors feature", "", false},
		{"no statistics", dvProto, OpDelete, "", "numRecords", "", false},
		{"no numRecords", dvProto, OpDelete, `{"tightBounds":false}`, "numRecords", "", false},
		{"tight bounds", dvProto, OpDelete, `{"numRecords":1,"tightBounds":true}`, "tight bounds", "", false},
		{"bounds not marked", dvProto, OpUpdate, `{"numRecords":1}`, "tight bounds", "", false},
		{"loose bounds", dvProto, OpDelete, `{"numRecords":1,"tightBounds":false}`, "", "", false},
		{"restore keeps the add as it was", dvProto, OpRestore, `{"numRecords":1}`, "", "", false},
		{"vectors disabled", dvProto, OpDelete, `{"numRecords":1,"tightBounds":false}`, "delta.enableDeletionVectors is not true", "false", false},
		{"restore with vectors disabled", dvProto, OpRestore, `{"numRecords":1}`, "delta.enableDeletionVectors is not true", "false", false},
		{"backfill with vectors disabled", dvProto, "ROW TRACKING BACKFILL", `{"numRecords":1,"tightBounds":false}`, "", "false", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := storage.NewMemory()
			f := addIn("a")
			spec := tableSpec{partitioned: true, proto: c.proto}
			if c.disabled != "" {
				spec.props = map[string]string{protocol.PropEnableDeletionVectors: c.disabled}
			}
			snap := create(t, st, spec, f)
			tx := Begin(snap, Operation{Name: c.op, InPlaceFileMetadataUpdate: c.inPlace}, fast())
			tx.Add(removeAction(removeOf(f, true)), addAction(withStats(f, c.stats)))
			_, err := tx.Commit(ctx)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), f.Path) {
				t.Fatalf("want an invalid-argument error naming %s and %q, got %v", f.Path, c.want, err)
			}
			if v := load(t, st).Version(); v != 0 {
				t.Fatalf("a refused commit landed: version %d", v)
			}
		})
	}
}
