package asset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
)

// orderChange is a change row of the orders table as an incremental
// asset reads it.
type orderChange struct {
	ID              int64     `delta:"id"`
	Amount          int64     `delta:"amount"`
	ChangeType      string    `delta:"_change_type"`
	CommitVersion   int64     `delta:"_commit_version"`
	CommitTimestamp time.Time `delta:"_commit_timestamp"`
}

func (c orderChange) String() string {
	return fmt.Sprintf("%s id=%d amount=%d v%d", c.ChangeType, c.ID, c.Amount, c.CommitVersion)
}

var orderSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "amount", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

func orderRows(t *testing.T, rows string) array.RecordReader {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, orderSchema, strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	rr, _ := array.NewRecordReader(orderSchema, []arrow.RecordBatch{rec})
	return rr
}

// incremental is one process's view of an upstream "orders" table and a
// downstream "seen" reading its changes: a new repository over the state
// directory, as each process builds it. run materializes "seen", its
// function recording the change rows it got into got (and failing when
// fail is set); what it returns is appended to seen's table.
type incremental struct {
	t        *testing.T
	h        *iohandler.Handler
	dir      string // the tables' root
	stateDir string
	got      []string
	fail     bool
}

func newIncremental(t *testing.T) *incremental {
	h, dir := newHandler(t)
	return &incremental{t: t, h: h, dir: dir, stateDir: filepath.Join(t.TempDir(), "state")}
}

func (in *incremental) run(opts ...RunOption) error {
	in.t.Helper()
	st := must[*state.File](in.t)(state.OpenFile(in.stateDir))
	r := NewRepository(WithState(st))
	register(in.t, r,
		External("orders", WithHandler(in.h)),
		Define1("seen", "orders", func(c *Context, changes []orderChange) ([]orderChange, error) {
			in.got = in.got[:0]
			for _, ch := range changes {
				if ch.CommitTimestamp.IsZero() {
					return nil, errors.New("a change without its commit time")
				}
				in.got = append(in.got, ch.String())
			}
			slices.Sort(in.got)
			if in.fail {
				return nil, errors.New("the downstream failed")
			}
			return changes, nil
		}, WithHandler(in.h), WithMetadata(map[string]string{iohandler.KeyMode: iohandler.ModeAppend}), ReadChanges("orders")),
	)
	_, err := r.Materialize(ctx, []string{"seen"}, opts...)
	return err
}

// expect runs the downstream and checks the change rows it got.
func (in *incremental) expect(want ...string) {
	in.t.Helper()
	if err := in.run(); err != nil {
		in.t.Fatal(err)
	}
	in.check(want...)
}

func (in *incremental) check(want ...string) {
	in.t.Helper()
	slices.Sort(want)
	if !slices.Equal(in.got, want) {
		in.t.Fatalf("the downstream got\n  %s\nwant\n  %s", strings.Join(in.got, "\n  "), strings.Join(want, "\n  "))
	}
}

func (in *incremental) table() *deltalite.Table {
	return must[*deltalite.Table](in.t)(deltalite.Open(ctx, in.dir+"/orders"))
}

// TestIncrementalChanges: a downstream asset reading its upstream's changes
// gets, on its first run, the upstream's rows as inserts at its version;
// then, run after run (each a new repository over the state file, as
// another process), exactly the changes committed since its last
// successful run: an append's inserts, a merge's update pre- and
// post-images and inserts, a delete's deletes, nothing when nothing
// changed; a failed run records nothing, so the next reads the same
// changes. The state records the upstream version read.
func TestIncrementalChanges(t *testing.T) {
	in := newIncremental(t)
	uri := in.dir + "/orders"
	if _, err := deltalite.Write(ctx, uri, orderRows(t, `[{"id":1,"amount":10},{"id":2,"amount":20},{"id":3,"amount":30}]`),
		deltalite.WriteOptions{Properties: map[string]string{protocol.PropEnableChangeDataFeed: "true"}}); err != nil {
		t.Fatal(err)
	}
	in.expect("insert id=1 amount=10 v0", "insert id=2 amount=20 v0", "insert id=3 amount=30 v0")

	if _, err := deltalite.Write(ctx, uri, orderRows(t, `[{"id":4,"amount":40}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
		t.Fatal(err)
	}
	if _, err := deltalite.Merge(ctx, uri, orderRows(t, `[{"id":2,"amount":21},{"id":5,"amount":50}]`),
		merge.Options{Predicate: "t.id = s.id", MergeType: merge.TypeUpsert}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.table().Delete(ctx, deltalite.DeleteOptions{Predicate: "id = 1"}); err != nil {
		t.Fatal(err)
	}
	in.expect("insert id=4 amount=40 v1", "update_preimage id=2 amount=20 v2", "update_postimage id=2 amount=21 v2",
		"insert id=5 amount=50 v2", "delete id=1 amount=10 v3")
	st := must[*state.File](t)(state.OpenFile(in.stateDir))
	if rec := must[state.Record](t)(firstRecord(st, "seen")); rec.Upstream["orders"] != 3 {
		t.Fatalf("the state of seen records %v read, want orders at 3", rec.Upstream)
	}
	in.expect() // nothing changed

	if _, err := in.table().Delete(ctx, deltalite.DeleteOptions{Predicate: "id = 3"}); err != nil {
		t.Fatal(err)
	}
	in.fail = true
	if err := in.run(); err == nil || !strings.Contains(err.Error(), "the downstream failed") {
		t.Fatalf("the failing run: %v", err)
	}
	in.check("delete id=3 amount=30 v4")
	in.fail = false
	in.expect("delete id=3 amount=30 v4") // the failed run's changes again
	in.expect()

	// A full materialization reads the table again, as the first run.
	if err := in.run(FullRead()); err != nil {
		t.Fatal(err)
	}
	in.check("insert id=2 amount=21 v4", "insert id=4 amount=40 v4", "insert id=5 amount=50 v4")
}

func firstRecord(st state.Store, asset string) (state.Record, error) {
	recs, err := st.List(ctx, asset)
	if err != nil || len(recs) != 1 {
		return state.Record{}, fmt.Errorf("records of %q: %v %v", asset, recs, err)
	}
	return recs[0], nil
}

// TestIncrementalChangesRefused: changes the upstream does not have are an
// error that says what to do, and the run records nothing: a table that
// does not record its changes, change files VACUUM removed, versions
// committed while the feed was off; a full materialization then reads the
// table.
func TestIncrementalChangesRefused(t *testing.T) {
	in := newIncremental(t)
	uri := in.dir + "/orders"
	if _, err := deltalite.Write(ctx, uri, orderRows(t, `[{"id":1,"amount":10}]`), deltalite.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, in.run(), `asset "orders" is read as changes, but its table does not record them`, "delta.enableChangeDataFeed=true")

	if err := in.table().SetProperties(ctx, map[string]string{protocol.PropEnableChangeDataFeed: "true"}, deltalite.PropertiesOptions{}); err != nil {
		t.Fatal(err)
	}
	in.expect("insert id=1 amount=10 v1")
	if _, err := deltalite.Merge(ctx, uri, orderRows(t, `[{"id":1,"amount":11}]`),
		merge.Options{Predicate: "t.id = s.id", MergeType: merge.TypeUpsert}); err != nil {
		t.Fatal(err)
	}
	cdc, err := filepath.Glob(filepath.Join(uri, "_change_data", "*.parquet"))
	if err != nil || len(cdc) == 0 {
		t.Fatalf("the merge wrote no change data file: %v", err)
	}
	for _, f := range cdc { // as VACUUM removes them once expired
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	in.got = nil
	wantErr(t, in.run(), "change data file of version 2 is missing", "a full materialization reads the whole table again")
	st := must[*state.File](t)(state.OpenFile(in.stateDir))
	if rec := must[state.Record](t)(firstRecord(st, "seen")); rec.Upstream["orders"] != 1 {
		t.Fatalf("a failed run moved the version read: %v", rec.Upstream)
	}
	if err := in.run(FullRead()); err != nil {
		t.Fatal(err)
	}
	in.check("insert id=1 amount=11 v2")
	in.expect()

	// Changes committed while the feed was off (versions 3 to 5) were not
	// recorded: refused, until a full materialization.
	for _, on := range []string{"false", "true"} {
		if err := in.table().SetProperties(ctx, map[string]string{protocol.PropEnableChangeDataFeed: on}, deltalite.PropertiesOptions{}); err != nil {
			t.Fatal(err)
		}
		if on == "false" {
			if _, err := deltalite.Write(ctx, uri, orderRows(t, `[{"id":2,"amount":20}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantErr(t, in.run(), "change data was not recorded for version 3", "a full materialization reads the whole table again")
	if err := in.run(FullRead()); err != nil {
		t.Fatal(err)
	}
	in.check("insert id=1 amount=11 v5", "insert id=2 amount=20 v5")
}
