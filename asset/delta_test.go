package asset

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

var ctx = context.Background()

// orders builds (id long, region string) rows: n rows for each region.
func orders(regions []string, n int64, first int64) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	id := first
	for _, r := range regions {
		for range n {
			b.Field(0).(*array.Int64Builder).Append(id)
			b.Field(1).(*array.StringBuilder).Append(r)
			id++
		}
	}
	return b.NewRecordBatch()
}

func newHandler(t *testing.T) (*iohandler.Handler, string) {
	t.Helper()
	dir := t.TempDir()
	h, err := iohandler.New(iohandler.Config{TableURI: dir})
	if err != nil {
		t.Fatal(err)
	}
	return h, dir
}

// files counts the table's live files in each region.
func files(t *testing.T, uri string) map[string]int {
	t.Helper()
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, f := range tb.FileURIs() {
		for _, r := range []string{"us", "eu"} {
			if strings.Contains(f, "region="+r+"/") {
				out[r]++
			}
		}
	}
	return out
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// ordersRepo is a repository of one partitioned Delta asset appended to
// (so that each materialization adds a file to its partition), with the
// Delta verbs.
func ordersRepo(t *testing.T, extra ...Option) (*Repository, string) {
	t.Helper()
	h, dir := newHandler(t)
	st := must[*state.File](t)(state.OpenFile(filepath.Join(dir, "_state")))
	r := NewRepository(WithState(st))
	var mu sync.Mutex
	next := int64(0)
	opts := append([]Option{WithHandler(h), WithPartitions(partitions.Static("us", "eu")),
		WithMetadata(map[string]string{"delta/partition_expr": "region", "delta/mode": "append"}), Delta()}, extra...)
	err := r.Register(Define0("orders", func(c *Context) (arrow.RecordBatch, error) {
		mu.Lock()
		defer mu.Unlock()
		next += 10
		return orders(c.PartitionKeys, 2, next), nil
	}, opts...))
	if err != nil {
		t.Fatal(err)
	}
	return r, filepath.Join(dir, "orders")
}

func materialize(t *testing.T, r *Repository, keys ...string) {
	t.Helper()
	if _, err := r.Materialize(ctx, []string{"orders"}, Keys(keys...)); err != nil {
		t.Fatal(err)
	}
}

func action(t *testing.T, r *Repository, verb string, opts ...RunOption) Result {
	t.Helper()
	res, err := r.RunAction(ctx, verb, []string{"orders"}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res[0]
}

// optimize compacts only the key's partition when keyed, every partition
// with the whole-asset choice; vacuum then deletes the replaced files.
func TestDeltaOptimizeAndVacuum(t *testing.T) {
	r, uri := ordersRepo(t)
	for range 3 {
		materialize(t, r, "us")
	}
	materialize(t, r, "eu")
	materialize(t, r, "eu")
	rows := tablerows.Read(t, uri)
	if got := files(t, uri); got["us"] != 3 || got["eu"] != 2 {
		t.Fatalf("files before optimize: %v", got)
	}
	res := action(t, r, "optimize", Keys("us"))
	if res.Status != StatusUnchanged || res.Metadata["files_added"] != 1 || res.Metadata["files_removed"] != 3 {
		t.Fatalf("keyed optimize: %+v", res)
	}
	if got := files(t, uri); got["us"] != 1 || got["eu"] != 2 {
		t.Fatalf("files after a keyed optimize: %v; want us compacted only", got)
	}
	_, err := r.RunAction(ctx, "optimize", []string{"orders"})
	wantErr(t, err, `action "optimize" on partitioned asset "orders" was given no partition key`, "WholeAsset")
	res = action(t, r, "optimize", WholeAsset(), Config("orders", json.RawMessage(`{"target_size": 1048576}`)))
	if res.Metadata["files_added"] != 1 || res.Metadata["files_removed"] != 2 {
		t.Fatalf("whole-asset optimize: %+v", res)
	}
	if got := files(t, uri); got["us"] != 1 || got["eu"] != 1 {
		t.Fatalf("files after a whole-asset optimize: %v", got)
	}
	if got := tablerows.Read(t, uri); !slices.Equal(got, rows) {
		t.Fatalf("optimize changed the rows:\n%v\n%v", got, rows)
	}
	// z_order_by z-orders instead: it rewrites even a partition's single file.
	res = action(t, r, "optimize", Keys("eu"), Config("orders", json.RawMessage(`{"z_order_by": ["id"]}`)))
	if res.Metadata["files_added"] != 1 || res.Metadata["files_removed"] != 1 {
		t.Fatalf("z-order of eu: %+v", res)
	}
	if got := tablerows.Read(t, uri); !slices.Equal(got, rows) {
		t.Fatal("z-order changed the rows")
	}
	_, err = r.RunAction(ctx, "optimize", nil, Keys("us"), Config("orders", json.RawMessage(`{"target": 1}`)))
	wantErr(t, err, `unknown config key "target"`, "allowed: target_size, z_order_by")

	_, err = r.RunAction(ctx, "vacuum", nil, Keys("us"))
	wantErr(t, err, `action "vacuum" is whole-asset on "orders": run it without a partition key`)
	_, err = r.RunAction(ctx, "vacuum", nil, Config("orders", json.RawMessage(`{"retention_hours": 0}`)))
	wantErr(t, err, "retention")
	res = action(t, r, "vacuum", Config("orders", json.RawMessage(`{"retention_hours": 0, "enforce_retention_duration": false}`)))
	if res.Status != StatusUnchanged || res.Metadata["files_deleted"] != 6 {
		t.Fatalf("vacuum: %+v", res)
	}
	if got := tablerows.Read(t, uri); !slices.Equal(got, rows) {
		t.Fatal("vacuum changed the rows")
	}
	// The state of a maintained asset is what its materializations left.
	recs := must[[]state.Record](t)(r.State().List(ctx, "orders"))
	if len(recs) != 2 || recs[0].Key != "eu" || recs[0].Version != 4 || recs[1].Key != "us" || recs[1].Version != 2 {
		t.Fatalf("state: %+v", recs)
	}
}

// delete removes the key's rows and clears its state; without a key (the
// whole-asset choice) every row, keeping the table and its history.
func TestDeltaDelete(t *testing.T) {
	r, uri := ordersRepo(t)
	materialize(t, r, "us", "eu")
	res := action(t, r, "delete", Keys("us"))
	if res.Status != StatusUnmaterialized || res.Metadata["rows_deleted"] != int64(2) {
		t.Fatalf("keyed delete: %+v", res)
	}
	if got := tablerows.Read(t, uri); strings.Contains(strings.Join(got, " "), "us") || len(got) != 2 {
		t.Fatalf("rows after deleting us: %v", got)
	}
	recs := must[[]state.Record](t)(r.State().List(ctx, "orders"))
	if len(recs) != 1 || recs[0].Key != "eu" {
		t.Fatalf("state after deleting us: %+v", recs)
	}
	_, err := r.RunAction(ctx, "delete", nil)
	wantErr(t, err, "no partition key", "whole asset")
	res = action(t, r, "delete", WholeAsset())
	if res.Status != StatusUnmaterialized || res.Metadata["rows_deleted"] != int64(2) {
		t.Fatalf("whole delete: %+v", res)
	}
	tb := must[*deltalite.Table](t)(deltalite.Open(ctx, uri))
	if got := tablerows.Read(t, uri); len(got) != 0 || tb.Version() != 2 {
		t.Fatalf("after deleting every row: rows %v, version %d (want the table kept at v2)", got, tb.Version())
	}
	if hist := must[[]snapshot.Commit](t)(tb.History(ctx, 0)); len(hist) != 3 {
		t.Fatalf("history has %d commits, want 3", len(hist))
	}
	if recs := must[[]state.Record](t)(r.State().List(ctx, "orders")); len(recs) != 0 {
		t.Fatalf("state after the whole delete: %+v", recs)
	}
}

// On a missing table optimize and vacuum report unchanged and create
// nothing; delete still clears the state.
func TestDeltaMissingTable(t *testing.T) {
	r, uri := ordersRepo(t)
	if err := r.State().Put(ctx, state.Record{Asset: "orders", Key: "us", Version: 3}); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"optimize", "vacuum"} {
		opts := []RunOption{}
		if verb == "optimize" {
			opts = append(opts, Keys("us"))
		}
		res := action(t, r, verb, opts...)
		if res.Status != StatusUnchanged || res.Metadata != nil {
			t.Fatalf("%s on a missing table: %+v", verb, res)
		}
	}
	if _, err := os.Stat(uri); !os.IsNotExist(err) {
		t.Fatalf("a verb created %s: %v", uri, err)
	}
	if res := action(t, r, "delete", Keys("us")); res.Status != StatusUnmaterialized {
		t.Fatalf("delete on a missing table: %+v", res)
	}
	if _, ok, _ := r.State().Get(ctx, "orders", "us"); ok {
		t.Fatal("delete on a missing table left the state")
	}
	if _, err := os.Stat(uri); !os.IsNotExist(err) {
		t.Fatalf("delete created %s", uri)
	}
}

func TestDeltaKeyedVerbNeedsPartitionExpr(t *testing.T) {
	h, _ := newHandler(t)
	r := NewRepository()
	err := r.Register(External("orders", WithHandler(h), WithPartitions(partitions.Static("us")), Delta()),
		External("flat", WithHandler(h), Delta()))
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"optimize", "delete"} {
		_, err := r.RunAction(ctx, verb, []string{"orders"}, Keys("us"))
		wantErr(t, err, "keyed "+verb+` on "orders" needs the "delta/partition_expr" metadata key to map the partition to the table's partition columns`)
		_, err = r.RunAction(ctx, verb, []string{"flat"}, Keys("us"))
		wantErr(t, err, `asset "flat" is not partitioned, but partition keys ["us"] were given`)
	}
}

// loggingHandler notes the order in which assets' tables are resolved.
type loggingHandler struct {
	*iohandler.Handler
	mu  *sync.Mutex
	log *[]string
}

func (l loggingHandler) ResolveTableURI(asset string, md map[string]string) (string, error) {
	l.mu.Lock()
	*l.log = append(*l.log, asset)
	l.mu.Unlock()
	return l.Handler.ResolveTableURI(asset, md)
}

// delete runs on the downstream assets first.
func TestDeltaDeleteRunsDownstreamFirst(t *testing.T) {
	h, dir := newHandler(t)
	var log []string
	lh := loggingHandler{Handler: h, mu: &sync.Mutex{}, log: &log}
	r := NewRepository(WithParallelism(4))
	err := r.Register(
		Define0("raw", func(*Context) (arrow.RecordBatch, error) { return orders([]string{"us", "eu"}, 2, 0), nil },
			WithHandler(lh), Delta()),
		Define1("clean", "raw", func(_ *Context, in arrow.Table) (arrow.Table, error) { in.Retain(); return in, nil },
			WithHandler(lh), Delta()),
		Define1("report", "clean", func(_ *Context, in arrow.Table) (arrow.Table, error) { in.Retain(); return in, nil },
			WithHandler(lh), Delta()),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Materialize(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := tablerows.Read(t, filepath.Join(dir, "report")); len(got) != 4 {
		t.Fatalf("report rows %v", got)
	}
	log = nil
	res, err := r.RunAction(ctx, "delete", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(log, []string{"report", "clean", "raw"}) {
		t.Fatalf("delete resolved tables in order %v; want downstream first", log)
	}
	for _, x := range res {
		if x.Status != StatusUnmaterialized {
			t.Fatalf("%+v", x)
		}
		if got := tablerows.Read(t, filepath.Join(dir, x.Asset)); len(got) != 0 {
			t.Fatalf("%s still has rows %v", x.Asset, got)
		}
	}
}

// A custom verb resolves the asset's table, predicate and storage options
// through the handler as the write path does, and may materialize; one
// named as a Delta verb replaces it.
func TestCustomVerbUsesHandlerHelpers(t *testing.T) {
	countRows := Action{Name: "count", Declaration: Declaration{Outcome: MayMaterialize, Partitioning: Required},
		Run: func(c *ActionContext) (ActionResult, error) {
			pred, err := c.PartitionPredicate()
			if err != nil {
				return ActionResult{}, err
			}
			tb, ok, err := c.OpenTable()
			if err != nil || !ok {
				return ActionResult{}, err
			}
			_, batches, err := tb.Scan(scan.WithWhere(pred)).Records(c)
			if err != nil {
				return ActionResult{}, err
			}
			n := int64(0)
			for b, err := range batches {
				if err != nil {
					return ActionResult{}, err
				}
				n += b.NumRows()
			}
			uri, _ := c.TableURI()
			so, _ := c.StorageOptions()
			return ActionResult{Status: StatusMaterialized, Metadata: map[string]any{
				"rows": n, "predicate": pred, "uri": uri, "storage_options": len(so), "delta/version": tb.Version()}}, nil
		}}
	noVacuum := Action{Name: "vacuum", Run: func(*ActionContext) (ActionResult, error) {
		return ActionResult{Metadata: map[string]any{"custom": true}}, nil
	}}
	r, uri := ordersRepo(t, WithActions(countRows, noVacuum))
	materialize(t, r, "us", "eu")
	materialize(t, r, "eu")
	res := action(t, r, "count", Keys("eu"))
	want := map[string]any{"rows": int64(4), "predicate": "region = 'eu'", "uri": uri, "storage_options": 0, "delta/version": int64(1)}
	if res.Status != StatusMaterialized || fmt.Sprint(res.Metadata) != fmt.Sprint(want) {
		t.Fatalf("count: %+v", res)
	}
	if rec, _, _ := r.State().Get(ctx, "orders", "eu"); rec.Version != 1 || rec.Metadata["rows"] != float64(4) {
		t.Fatalf("state recorded by the custom verb: %+v", rec)
	}
	if res := action(t, r, "vacuum"); res.Metadata["custom"] != true {
		t.Fatalf("the custom vacuum did not replace the built-in one: %+v", res)
	}
}

// The verbs commit with the asset's resolved commit properties, as its
// writes do.
func TestDeltaVerbsUseCommitProperties(t *testing.T) {
	r, uri := ordersRepo(t, WithMetadata(map[string]string{"delta/commit_properties": `{"custom_metadata": {"who": "ops"}}`}))
	materialize(t, r, "us")
	materialize(t, r, "us")
	action(t, r, "optimize", Keys("us"))
	action(t, r, "vacuum", Config("orders", json.RawMessage(`{"retention_hours": 0, "enforce_retention_duration": false}`)))
	action(t, r, "delete", Keys("us"))
	tb := must[*deltalite.Table](t)(deltalite.Open(ctx, uri))
	hist := must[[]snapshot.Commit](t)(tb.History(ctx, 0))
	var ops []string
	for _, c := range hist {
		if c.Info.Raw["who"] != "ops" {
			t.Fatalf("commit %d (%s) lacks the custom metadata: %v", c.Version, c.Info.Operation, c.Info.Raw)
		}
		ops = append(ops, c.Info.Operation)
	}
	slices.Sort(ops)
	if strings.Join(ops, ",") != "DELETE,OPTIMIZE,VACUUM END,VACUUM START,WRITE,WRITE" {
		t.Fatalf("operations %v", ops)
	}
}

// The delete verb reads a TIMESTAMP partition key in the handler's
// session time zone, as the handler's writes of that key do: the key
// "2024-03-10 01:30:00" is that wall time in Los Angeles, the instant its
// rows hold. Read as UTC it would match no partition and delete nothing.
func TestDeltaDeleteInSessionTimeZone(t *testing.T) {
	dir := t.TempDir()
	h, err := iohandler.New(iohandler.Config{TableURI: dir, SessionTimeZone: "America/Los_Angeles"})
	if err != nil {
		t.Fatal(err)
	}
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	}, nil)
	r := NewRepository(WithState(must[*state.File](t)(state.OpenFile(filepath.Join(dir, "_state")))))
	err = r.Register(Define0("events", func(c *Context) (arrow.RecordBatch, error) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer b.Release()
		for i, k := range c.PartitionKeys {
			at, err := time.ParseInLocation(time.DateTime, k, la)
			if err != nil {
				return nil, err
			}
			for j := range 2 {
				b.Field(0).(*array.Int64Builder).Append(int64(10*i + j))
				b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(at.UnixMicro()))
			}
		}
		return b.NewRecordBatch(), nil
	}, WithHandler(h), WithPartitions(partitions.Static("2024-03-10 01:30:00", "2024-03-10 03:30:00")),
		WithMetadata(map[string]string{"delta/partition_expr": "ts", "delta/mode": "append"}), Delta()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Materialize(ctx, []string{"events"}, Keys("2024-03-10 01:30:00", "2024-03-10 03:30:00")); err != nil {
		t.Fatal(err)
	}
	res, err := r.RunAction(ctx, "delete", []string{"events"}, Keys("2024-03-10 01:30:00"))
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Metadata["rows_deleted"] != int64(2) {
		t.Fatalf("delete of the 01:30 Los Angeles key: %+v", res[0])
	}
	got := tablerows.Read(t, filepath.Join(dir, "events"))
	if len(got) != 2 || !strings.Contains(strings.Join(got, " "), "2024-03-10T10:30:00") {
		t.Fatalf("rows left: %v, want the two of 03:30 in Los Angeles (10:30 UTC)", got)
	}
}
