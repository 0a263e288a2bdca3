package asset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/partitions"
)

// waitQueued returns once n runs of asset wait for a claim.
func waitQueued(t *testing.T, r *Repository, asset string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for r.claims.waiting(asset) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d runs of %q never queued", n, asset)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// slowAsset is an asset whose materialization logs its interval in ev
// (from the function's start to the end of the store) and, while gate is
// open, blocks after signalling entered.
type slowAsset struct {
	ev      *events
	entered chan string
	gate    chan struct{}
}

func (s *slowAsset) fn(c *Context) ([]int, error) {
	s.ev.start("materialize")
	s.entered <- fmt.Sprint(c.PartitionKeys)
	<-s.gate
	return []int{1}, nil
}

func exclusiveAction(ev *events, name string, p Partitioning) Action {
	return Action{Name: name, Declaration: Declaration{Concurrency: Exclusive, Partitioning: p},
		Run: func(c *ActionContext) (ActionResult, error) {
			ev.start(name)
			runtime.Gosched()
			ev.end(name)
			return ActionResult{}, nil
		}}
}

func slowRepo(t *testing.T, def partitions.Definition) (*Repository, *slowAsset) {
	h := newFake()
	s := &slowAsset{ev: newEvents(), entered: make(chan string, 16), gate: make(chan struct{})}
	h.onStore = func(string) { s.ev.end("materialize") }
	r := NewRepository(WithParallelism(8))
	opts := []Option{WithHandler(h)}
	if def != nil {
		opts = append(opts, WithPartitions(def))
	}
	register(t, r, Define0("orders", s.fn, opts...))
	return r, s
}

func noOverlap(t *testing.T, ev *events, a, b string) {
	t.Helper()
	for _, x := range ev.intervals(a) {
		for _, y := range ev.intervals(b) {
			if overlap(x, y) {
				t.Fatalf("%s %v overlaps %s %v", a, x, b, y)
			}
		}
	}
}

// An exclusive action never overlaps a materialization of the same asset:
// started while one runs, it waits for it; and a materialization started
// while the action waits queues behind it.
func TestExclusiveActionNeverOverlapsMaterialization(t *testing.T) {
	ctx := context.Background()
	r, s := slowRepo(t, nil)
	act := exclusiveAction(s.ev, "optimize", Keyless)
	r.assets["orders"].actions = map[string]Action{"optimize": act}
	var wg sync.WaitGroup
	errc := make(chan error, 3)
	wg.Go(func() { _, err := r.Materialize(ctx, nil); errc <- err })
	<-s.entered
	wg.Go(func() { _, err := r.RunAction(ctx, "optimize", nil); errc <- err })
	waitQueued(t, r, "orders", 1)
	// A second materialization arrives while the action waits: it must not
	// overtake it (nor overlap it).
	wg.Go(func() { _, err := r.Materialize(ctx, nil); errc <- err })
	waitQueued(t, r, "orders", 2)
	close(s.gate)
	<-s.entered
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	mats, acts := s.ev.intervals("materialize"), s.ev.intervals("optimize")
	if len(mats) != 2 || len(acts) != 1 {
		t.Fatalf("intervals %v %v", mats, acts)
	}
	noOverlap(t, s.ev, "materialize", "optimize")
	if !(mats[0][1] < acts[0][0] && acts[0][1] < mats[1][0]) {
		t.Fatalf("order: materializations %v, optimize %v; want first, optimize, second", mats, acts)
	}
}

// Two materializations of the same asset may overlap: the second starts
// while the first is blocked inside its function.
func TestMaterializationsOverlap(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, s := slowRepo(t, partitions.Static("us", "eu"))
	var wg sync.WaitGroup
	for _, k := range []string{"us", "us", "eu"} {
		wg.Go(func() {
			if _, err := r.Materialize(ctx, nil, Keys(k)); err != nil {
				t.Error(err)
			}
		})
	}
	for range 3 {
		select {
		case <-s.entered:
		case <-ctx.Done():
			t.Fatal("materializations of one asset excluded each other")
		}
	}
	close(s.gate)
	wg.Wait()
}

// A keyed exclusive action claims only its partitions: it runs beside a
// materialization of another key, waits for one of its own key.
func TestKeyedExclusiveClaimsItsPartition(t *testing.T) {
	ctx := context.Background()
	r, s := slowRepo(t, partitions.Static("us", "eu"))
	r.assets["orders"].actions = map[string]Action{"optimize": exclusiveAction(s.ev, "optimize", Optional)}
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := r.Materialize(ctx, nil, Keys("eu")); err != nil {
			t.Error(err)
		}
	})
	<-s.entered
	// eu is being materialized: an optimize of us runs now.
	if _, err := r.RunAction(ctx, "optimize", nil, Keys("us")); err != nil {
		t.Fatal(err)
	}
	// One of eu waits for it.
	wg.Go(func() {
		if _, err := r.RunAction(ctx, "optimize", nil, Keys("eu")); err != nil {
			t.Error(err)
		}
	})
	waitQueued(t, r, "orders", 1)
	close(s.gate)
	wg.Wait()
	acts := s.ev.intervals("optimize")
	mat := s.ev.intervals("materialize")[0]
	if len(acts) != 2 || !overlap(acts[0], mat) || overlap(acts[1], mat) {
		t.Fatalf("materialize %v, optimize us then eu %v", mat, acts)
	}
}

// Many concurrent materializations and exclusive actions: no exclusive
// run ever overlaps another run of its asset.
func TestExclusiveUnderContention(t *testing.T) {
	ctx := context.Background()
	h := newFake()
	ev := newEvents()
	h.onStore = func(string) { ev.end("materialize") }
	r := NewRepository(WithParallelism(8))
	register(t, r, Define0("orders", func(*Context) ([]int, error) {
		ev.start("materialize")
		runtime.Gosched()
		return []int{1}, nil
	}, WithHandler(h), WithActions(exclusiveAction(ev, "optimize", Keyless), exclusiveAction(ev, "vacuum", Keyless))))
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			var err error
			switch i % 3 {
			case 0:
				_, err = r.RunAction(ctx, []string{"optimize", "vacuum"}[i%2], nil)
			default:
				_, err = r.Materialize(ctx, nil)
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	noOverlap(t, ev, "materialize", "optimize")
	noOverlap(t, ev, "materialize", "vacuum")
	noOverlap(t, ev, "optimize", "vacuum")
	for _, name := range []string{"optimize", "vacuum"} {
		ivs := ev.intervals(name)
		for i := range ivs {
			for j := range i {
				if overlap(ivs[i], ivs[j]) {
					t.Fatalf("two %s runs overlap: %v %v", name, ivs[i], ivs[j])
				}
			}
		}
	}
}

// orderLog is an action that logs the assets it runs on, in order.
func orderLog(name string, o Ordering, log *[]string, mu *sync.Mutex) Action {
	return Action{Name: name, Declaration: Declaration{Ordering: o, Outcome: Unchanged},
		Run: func(c *ActionContext) (ActionResult, error) {
			mu.Lock()
			*log = append(*log, c.Asset)
			mu.Unlock()
			return ActionResult{}, nil
		}}
}

// DownstreamFirst runs an asset's action after its downstream assets'
// (through assets outside the selection too); others go upstream first.
func TestActionOrdering(t *testing.T) {
	h := newFake()
	var log []string
	var mu sync.Mutex
	acts := WithActions(orderLog("drop", DownstreamFirst, &log, &mu), orderLog("touch", UpstreamFirst, &log, &mu))
	id := func(_ *Context, in []int) ([]int, error) { return in, nil }
	r := NewRepository(WithParallelism(4))
	register(t, r,
		Define0("raw", func(*Context) ([]int, error) { return nil, nil }, WithHandler(h), acts),
		Define1("clean", "raw", id, WithHandler(h), acts),
		Define1("report", "clean", id, WithHandler(h), acts),
		Define1("mid", "report", id, WithHandler(h)), // no actions: looked through
		Define1("export", "mid", id, WithHandler(h), acts),
	)
	ctx := context.Background()
	if _, err := r.RunAction(ctx, "drop", nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(log, []string{"export", "report", "clean", "raw"}) {
		t.Fatalf("DownstreamFirst ran %v", log)
	}
	log = nil
	if _, err := r.RunAction(ctx, "touch", []string{"export", "raw", "clean"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(log, []string{"raw", "clean", "export"}) {
		t.Fatalf("UpstreamFirst ran %v", log)
	}
}

func TestActionPartitioningRefusals(t *testing.T) {
	h := newFake()
	var ran []string
	run := func(c *ActionContext) (ActionResult, error) {
		ran = append(ran, fmt.Sprint(c.Asset, c.PartitionKeys))
		return ActionResult{}, nil
	}
	acts := WithActions(
		Action{Name: "opt", Declaration: Declaration{Partitioning: Optional}, Run: run},
		Action{Name: "vac", Declaration: Declaration{Partitioning: Keyless}, Run: run},
		Action{Name: "req", Declaration: Declaration{Partitioning: Required}, Run: run},
	)
	src := func(*Context) ([]int, error) { return nil, nil }
	r := NewRepository()
	register(t, r, Define0("orders", src, WithHandler(h), WithPartitions(partitions.Static("us", "eu")), acts),
		Define0("flat", src, WithHandler(h), acts))
	ctx := context.Background()
	_, err := r.RunAction(ctx, "opt", []string{"orders"})
	wantErr(t, err, `action "opt" on partitioned asset "orders" was given no partition key`, "asset.WholeAsset()", "--whole-asset")
	_, err = r.RunAction(ctx, "vac", []string{"orders"}, Keys("us"))
	wantErr(t, err, `action "vac" is whole-asset on "orders": run it without a partition key`)
	_, err = r.RunAction(ctx, "req", []string{"orders"}, WholeAsset())
	wantErr(t, err, `action "req" on "orders" needs a partition key`)
	_, err = r.RunAction(ctx, "opt", []string{"flat"}, Keys("us"))
	wantErr(t, err, `asset "flat" is not partitioned, but partition keys ["us"] were given`)
	_, err = r.RunAction(ctx, "opt", []string{"orders"}, Keys("us"), WholeAsset())
	wantErr(t, err, "not both")
	_, err = r.RunAction(ctx, "opt", []string{"orders"}, Keys("mars"))
	wantErr(t, err, `partition key "mars"`)
	_, err = r.RunAction(ctx, "nope", nil)
	wantErr(t, err, `no registered asset has the action "nope"`)
	if len(ran) != 0 {
		t.Fatalf("refused actions ran: %v", ran)
	}
	// The allowed forms.
	for _, call := range []func() error{
		func() error { _, err := r.RunAction(ctx, "opt", []string{"orders"}, WholeAsset()); return err },
		func() error { _, err := r.RunAction(ctx, "opt", []string{"orders"}, Keys("eu")); return err },
		func() error { _, err := r.RunAction(ctx, "vac", nil); return err },
		func() error { _, err := r.RunAction(ctx, "req", []string{"flat"}); return err },
		func() error { _, err := r.RunAction(ctx, "opt", []string{"flat"}); return err },
	} {
		if err := call(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"orders[]", "orders[eu]", "flat[]", "orders[]", "flat[]", "flat[]"}
	slices.Sort(want)
	slices.Sort(ran)
	if !slices.Equal(ran, want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
}

// The state follows what an action reports: materialized records the
// keys, unmaterialized clears them (the whole asset without keys), and a
// status the declaration does not allow is an error.
func TestActionOutcomesAndState(t *testing.T) {
	ctx := context.Background()
	h := newFake()
	result := func(o Outcome, s Status) Action {
		return Action{Name: fmt.Sprint(o, s), Declaration: Declaration{Outcome: o, Partitioning: Optional},
			Run: func(*ActionContext) (ActionResult, error) {
				return ActionResult{Status: s, Metadata: map[string]any{"delta/version": 9}}, nil
			}}
	}
	r := NewRepository()
	register(t, r, Define0("orders", func(*Context) ([]int, error) { return []int{1}, nil }, WithHandler(h),
		WithPartitions(partitions.Static("us", "eu", "apac")), WithActions(
			result(MayMaterialize, StatusMaterialized), result(Unmaterialize, ""), result(Unchanged, StatusMaterialized),
			result(MayMaterialize, ""))))
	if _, err := r.Materialize(ctx, nil, Keys("us", "eu", "apac")); err != nil {
		t.Fatal(err)
	}
	res, err := r.RunAction(ctx, "MayMaterialize", nil, Keys("us"))
	if err != nil || res[0].Status != StatusUnchanged {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := r.RunAction(ctx, "MayMaterializematerialized", nil, Keys("eu")); err != nil {
		t.Fatal(err)
	}
	if rec, _, _ := r.State().Get(ctx, "orders", "eu"); rec.Version != 9 {
		t.Fatalf("materialized by an action: %+v", rec)
	}
	res, err = r.RunAction(ctx, "Unmaterialize", nil, Keys("us"))
	if err != nil || res[0].Status != StatusUnmaterialized {
		t.Fatalf("%+v %v", res, err)
	}
	if recs, _ := r.State().List(ctx, "orders"); len(recs) != 2 || recs[0].Key != "apac" || recs[1].Key != "eu" {
		t.Fatalf("after a keyed unmaterialize: %+v", recs)
	}
	_, err = r.RunAction(ctx, "Unchangedmaterialized", nil, Keys("apac"))
	wantErr(t, err, "declares Unchanged but reported materialized")
	if _, err := r.RunAction(ctx, "Unmaterialize", nil, WholeAsset()); err != nil {
		t.Fatal(err)
	}
	if recs, _ := r.State().List(ctx, "orders"); len(recs) != 0 {
		t.Fatalf("after a whole-asset unmaterialize: %+v", recs)
	}
}

func TestActionConfig(t *testing.T) {
	h := newFake()
	type cfg struct {
		RetentionHours int  `json:"retention_hours"`
		Enforce        bool `json:"enforce"`
	}
	var got cfg
	act := Action{Name: "v", Run: func(c *ActionContext) (ActionResult, error) {
		return ActionResult{}, c.DecodeConfig(&got)
	}}
	r := NewRepository()
	register(t, r, Define0("orders", func(*Context) ([]int, error) { return nil, nil }, WithHandler(h), WithActions(act)))
	ctx := context.Background()
	if _, err := r.RunAction(ctx, "v", nil, Config("orders", json.RawMessage(`{"retention_hours": 24}`))); err != nil {
		t.Fatal(err)
	}
	if got.RetentionHours != 24 {
		t.Fatalf("decoded %+v", got)
	}
	_, err := r.RunAction(ctx, "v", nil, Config("orders", json.RawMessage(`{"retention_hour": 1}`)))
	wantErr(t, err, `unknown config key "retention_hour" (did you mean "retention_hours"?); allowed: enforce, retention_hours`)
	_, err = r.RunAction(ctx, "v", nil, Config("orders", json.RawMessage(`[1]`)))
	wantErr(t, err, "config must be a JSON object")
	_, err = r.RunAction(ctx, "v", nil, Config("ordrs", json.RawMessage(`{}`)))
	wantErr(t, err, `config is given for asset "ordrs", which is not in the selection`)
}

// A run waiting for a claim gives up when its context ends, and leaves
// the queue: later runs are not held behind it.
func TestClaimWaitCanceled(t *testing.T) {
	r, s := slowRepo(t, nil)
	r.assets["orders"].actions = map[string]Action{"optimize": exclusiveAction(s.ev, "optimize", Keyless)}
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := r.Materialize(context.Background(), nil); err != nil {
			t.Error(err)
		}
	})
	<-s.entered
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := r.RunAction(ctx, "optimize", nil); errc <- err }()
	waitQueued(t, r, "orders", 1)
	cancel()
	err := <-errc
	wantErr(t, err, `asset "orders": waiting for a conflicting run to finish`)
	if !errors.Is(err, deltalite.ErrCanceled) || r.claims.waiting("orders") != 0 {
		t.Fatalf("err %v, %d still queued", err, r.claims.waiting("orders"))
	}
	close(s.gate)
	wg.Wait()
	if _, err := r.RunAction(context.Background(), "optimize", nil); err != nil || len(s.ev.intervals("optimize")) != 1 {
		t.Fatalf("optimize after the cancel: %v, %v", err, s.ev.intervals("optimize"))
	}
}

// Repositories sharing a state directory (as processes do) order their
// runs through its claims: an exclusive action is refused a claim while
// another repository materializes the asset, and runs once it is done.
func TestSharedStateDirClaims(t *testing.T) {
	dir := t.TempDir()
	open := func() *Repository {
		st, err := state.OpenFile(dir)
		if err != nil {
			t.Fatal(err)
		}
		return NewRepository(WithState(st))
	}
	a, b := open(), open()
	s := &slowAsset{ev: newEvents(), entered: make(chan string, 1), gate: make(chan struct{})}
	h := newFake()
	h.onStore = func(string) { s.ev.end("materialize") }
	register(t, a, Define0("orders", s.fn, WithHandler(h)))
	register(t, b, External("orders", WithHandler(h), WithActions(exclusiveAction(s.ev, "optimize", Keyless))))
	done := make(chan error, 1)
	go func() { _, err := a.Materialize(context.Background(), nil); done <- err }()
	<-s.entered
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := b.RunAction(canceled, "optimize", nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the exclusive action was not held off by the other repository's materialization: %v", err)
	}
	close(s.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := b.RunAction(context.Background(), "optimize", nil); err != nil {
		t.Fatal(err)
	}
	noOverlap(t, s.ev, "materialize", "optimize")
}

// A key given twice in an action's config is refused naming it.
func TestActionConfigDuplicateKey(t *testing.T) {
	h := newFake()
	var got struct {
		RetentionHours int `json:"retention_hours"`
	}
	act := Action{Name: "v", Run: func(c *ActionContext) (ActionResult, error) {
		return ActionResult{}, c.DecodeConfig(&got)
	}}
	r := NewRepository()
	register(t, r, Define0("orders", func(*Context) ([]int, error) { return nil, nil }, WithHandler(h), WithActions(act)))
	_, err := r.RunAction(context.Background(), "v", nil, Config("orders", json.RawMessage(`{"retention_hours": 168, "retention_hours": 0}`)))
	wantErr(t, err, `action "v" on "orders"`, `duplicate key "retention_hours"`)
}
