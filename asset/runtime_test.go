package asset

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
)

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

// wantErr fails unless err's message holds every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one with %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q lacks %q", err, p)
		}
	}
}

func register(t *testing.T, r *Repository, assets ...*Asset) {
	t.Helper()
	if err := r.Register(assets...); err != nil {
		t.Fatal(err)
	}
}

// A diamond a -> (b, c) -> d runs in dependency order, each input loaded
// through the upstream's handler, outputs stored, state recorded.
func TestMaterializeDiamond(t *testing.T) {
	ctx := context.Background()
	h := newFake()
	var mu sync.Mutex
	var ran []string
	note := func(n string) { mu.Lock(); ran = append(ran, n); mu.Unlock() }
	r := NewRepository()
	register(t, r,
		Define2("d", "b", "c", func(c *Context, b, cc []int) ([]int, error) { note("d"); return []int{sum(b), sum(cc)}, nil }, WithHandler(h)),
		Define1("b", "a", func(c *Context, a []int) ([]int, error) { note("b"); return []int{sum(a) * 10}, nil }, WithHandler(h)),
		Define0("a", func(c *Context) ([]int, error) { note("a"); return []int{1, 2, 3}, nil }, WithHandler(h)),
		Define1("c", "a", func(c *Context, a []int) ([]int, error) { note("c"); return []int{len(a)}, nil }, WithHandler(h)),
	)
	res, err := r.Materialize(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range res {
		names = append(names, x.Asset)
		if x.Status != StatusMaterialized || x.Metadata["delta/version"] != int64(1) {
			t.Fatalf("result %+v", x)
		}
	}
	if strings.Join(names, ",") != "a,b,c,d" {
		t.Fatalf("results in order %v", names)
	}
	if ran[0] != "a" || ran[3] != "d" {
		t.Fatalf("ran in order %v", ran)
	}
	if got := h.data["d"][""]; !slices.Equal(got, []int{60, 3}) {
		t.Fatalf("d stored %v", got)
	}
	rec, ok, _ := r.State().Get(ctx, "d", "")
	if !ok || rec.Version != 1 || rec.Metadata["rows"] != 2 {
		t.Fatalf("state of d: %+v %v", rec, ok)
	}
	// A selection of d alone loads b and c from storage and runs d only.
	ran = nil
	if _, err := r.Materialize(ctx, []string{"d"}); err != nil || !slices.Equal(ran, []string{"d"}) {
		t.Fatalf("ran %v, %v", ran, err)
	}
	if rec, _, _ := r.State().Get(ctx, "d", ""); rec.Version != 2 {
		t.Fatalf("state of d after the second run: %+v", rec)
	}
}

// Independent assets run at once: each waits until the other has started,
// which would never happen if they ran one after the other.
func TestIndependentAssetsRunInParallel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h := newFake()
	var wg sync.WaitGroup
	wg.Add(2)
	both := func(c *Context) ([]int, error) {
		wg.Done()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
			return []int{1}, nil
		case <-c.Done():
			return nil, errors.New("the other independent asset never started while this one ran")
		}
	}
	r := NewRepository(WithParallelism(2))
	register(t, r, Define0("x", both, WithHandler(h)), Define0("y", both, WithHandler(h)))
	if _, err := r.Materialize(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// WithParallelism bounds how many assets run at once.
func TestParallelismBound(t *testing.T) {
	h := newFake()
	var now, peak atomic.Int32
	fn := func(c *Context) ([]int, error) {
		n := now.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		runtime.Gosched()
		now.Add(-1)
		return []int{1}, nil
	}
	r := NewRepository(WithParallelism(1))
	for i := range 6 {
		register(t, r, Define0(fmt.Sprintf("s%d", i), fn, WithHandler(h)))
	}
	if _, err := r.Materialize(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if peak.Load() != 1 {
		t.Fatalf("%d assets ran at once with parallelism 1", peak.Load())
	}
}

func TestGraphErrors(t *testing.T) {
	h := newFake()
	src := func(name string) *Asset {
		return Define0(name, func(*Context) ([]int, error) { return nil, nil }, WithHandler(h))
	}
	dep := func(name, up string) *Asset {
		return Define1(name, up, func(*Context, []int) ([]int, error) { return nil, nil }, WithHandler(h))
	}
	r := NewRepository()
	register(t, r, src("orders"))
	wantErr(t, r.Register(dep("daily", "ordrs")), `asset "daily" depends on "ordrs", which is not registered (did you mean "orders"?)`)
	wantErr(t, r.Register(dep("p", "q"), dep("q", "s"), dep("s", "p")), "cycle: p -> q -> s -> p")
	wantErr(t, r.Register(src("orders")), `asset "orders" is registered twice`)
	wantErr(t, r.Register(dep("self", "self")), `asset "self" depends on itself`)
	wantErr(t, r.Register(Define0("bare", func(*Context) ([]int, error) { return nil, nil })), `asset "bare" has no IO handler`)
	wantErr(t, r.Register(Define0("flat", func(*Context) ([]int, error) { return nil, nil }, WithHandler(h), Delta())),
		`asset "flat": Delta actions need a Delta IO handler`)
	// Nothing of a refused registration stays.
	for _, n := range []string{"daily", "p", "q", "s", "self", "bare", "flat"} {
		if _, ok := r.Asset(n); ok {
			t.Fatalf("%q was registered by a failed Register", n)
		}
	}
	_, err := r.Materialize(context.Background(), []string{"order"})
	wantErr(t, err, `asset "order" is not registered (did you mean "orders"?)`)
}

// A partitioned downstream reads the same keys of a partitioned upstream;
// an unpartitioned downstream reads all of them.
func TestPartitionedInputs(t *testing.T) {
	ctx := context.Background()
	h := newFake()
	regions := partitions.Static("us", "eu", "apac")
	r := NewRepository()
	register(t, r,
		Define0("sales", func(c *Context) ([]int, error) {
			return []int{len(strings.Join(c.PartitionKeys, ""))}, nil // one run of several keys stores one value for each
		}, WithHandler(h), WithPartitions(regions)),
		Define1("sales_x10", "sales", func(c *Context, s []int) ([]int, error) { return []int{sum(s) * 10}, nil },
			WithHandler(h), WithPartitions(regions)),
		Define1("total", "sales", func(c *Context, s []int) ([]int, error) { return []int{sum(s)}, nil }, WithHandler(h)),
	)
	if _, err := r.Materialize(ctx, []string{"sales"}, Keys("us", "apac")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Materialize(ctx, []string{"sales"}, Keys("eu")); err != nil {
		t.Fatal(err)
	}
	res, err := r.Materialize(ctx, []string{"sales_x10", "total"}, Keys("eu"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res[0].Keys, []string{"eu"}) || res[1].Keys != nil {
		t.Fatalf("result keys %v %v", res[0].Keys, res[1].Keys)
	}
	if got := h.data["sales_x10"]["eu"]; !slices.Equal(got, []int{20}) {
		t.Fatalf("sales_x10[eu] = %v; want the eu input only", got)
	}
	if got := h.data["total"][""]; !slices.Equal(got, []int{14}) { // all keys: 2 (eu) + 6 (apac) + 6 (us)
		t.Fatalf("total = %v; want the sum over every key", got)
	}
	for _, ic := range h.loads {
		if ic.Asset != "sales" || ic.Partitions == nil {
			t.Fatalf("load %+v", ic)
		}
	}
	recs, _ := r.State().List(ctx, "sales")
	if len(recs) != 3 || recs[0].Key != "apac" || recs[0].Version != 1 || recs[1].Key != "eu" || recs[1].Version != 2 {
		t.Fatalf("state of sales %+v", recs)
	}
}

func TestMaterializeRefusesBadKeysBeforeRunning(t *testing.T) {
	h := newFake()
	var ran atomic.Int32
	fn := func(*Context) ([]int, error) { ran.Add(1); return []int{1}, nil }
	r := NewRepository()
	register(t, r, Define0("part", fn, WithHandler(h), WithPartitions(partitions.Static("us"))), Define0("flat", fn, WithHandler(h)),
		External("ext", WithHandler(h)))
	ctx := context.Background()
	_, err := r.Materialize(ctx, nil)
	wantErr(t, err, `asset "part" is partitioned: give the partition keys`)
	_, err = r.Materialize(ctx, []string{"flat"}, Keys("us"))
	wantErr(t, err, "no selected asset is partitioned")
	_, err = r.Materialize(ctx, nil, Keys("mars"))
	wantErr(t, err, `asset "part": partition key "mars"`)
	_, err = r.Materialize(ctx, []string{"ext"})
	wantErr(t, err, `asset "ext" is external`)
	_, err = r.Materialize(ctx, nil, Keys("us"), WholeAsset())
	wantErr(t, err, "apply to actions")
	if ran.Load() != 0 {
		t.Fatal("an asset ran although the call was refused")
	}
	// Keys apply to the partitioned assets; the unpartitioned ones run once.
	res, err := r.Materialize(ctx, nil, Keys("us"))
	if err != nil || len(res) != 2 || ran.Load() != 2 {
		t.Fatalf("%+v %v", res, err)
	}
}

// A failed asset skips its downstream assets, not the independent ones,
// and a panic is an error naming the asset.
func TestFailureSkipsDownstream(t *testing.T) {
	h := newFake()
	r := NewRepository()
	register(t, r,
		Define0("bad", func(*Context) ([]int, error) { panic("boom") }, WithHandler(h)),
		Define1("after", "bad", func(*Context, []int) ([]int, error) { return []int{1}, nil }, WithHandler(h)),
		Define0("fine", func(*Context) ([]int, error) { return []int{1}, nil }, WithHandler(h)),
	)
	res, err := r.Materialize(context.Background(), nil)
	wantErr(t, err, `asset "bad"`, "boom", `asset "after": skipped because "bad" failed`)
	byName := map[string]Result{}
	for _, x := range res {
		byName[x.Asset] = x
	}
	if !errors.Is(byName["after"].Err, ErrSkipped) || byName["after"].Status != "" {
		t.Fatalf("after: %+v", byName["after"])
	}
	if byName["fine"].Status != StatusMaterialized || byName["fine"].Err != nil {
		t.Fatalf("fine: %+v", byName["fine"])
	}
	if _, ok := h.data["after"]; ok {
		t.Fatal("a skipped asset was stored")
	}
}

// counted is a value with a Release method that counts its calls.
type counted struct{ n *atomic.Int32 }

func (c counted) Release() { c.n.Add(1) }

// countedHandler stores anything and loads a counted value.
type countedHandler struct{ n *atomic.Int32 }

func (h countedHandler) HandleOutput(context.Context, iohandler.OutputContext, any) (iohandler.Metadata, error) {
	return nil, nil
}

func (h countedHandler) Load(context.Context, iohandler.InputContext, reflect.Type) (any, error) {
	return counted(h), nil
}

// The runtime releases the inputs it loaded and the outputs it stored.
func TestArrowValuesReleased(t *testing.T) {
	var n atomic.Int32
	h := countedHandler{&n}
	r := NewRepository()
	register(t, r,
		Define0("a", func(*Context) (counted, error) { return counted{&n}, nil }, WithHandler(h)),
		Define1("b", "a", func(_ *Context, in counted) ([]int, error) { return nil, nil }, WithHandler(h)))
	if _, err := r.Materialize(context.Background(), []string{"a"}); err != nil || n.Load() != 1 {
		t.Fatalf("after storing a: %d releases, %v", n.Load(), err)
	}
	if _, err := r.Materialize(context.Background(), []string{"b"}); err != nil || n.Load() != 2 {
		t.Fatalf("after loading a into b: %d releases, %v", n.Load(), err)
	}
}

// A multi-dimension key is known by one name whatever the order its
// dimensions were written in: the handler, the state and the claims get
// the canonical form, each key once.
func TestMultiKeysCanonical(t *testing.T) {
	ctx := context.Background()
	h := newFake()
	def := partitions.Multi(map[string]partitions.Definition{"region": partitions.Static("us", "eu"), "kind": partitions.Static("a", "b")})
	r := NewRepository()
	register(t, r, Define0("m", func(c *Context) ([]int, error) { return []int{len(c.PartitionKeys)}, nil }, WithHandler(h), WithPartitions(def),
		WithActions(Action{Name: "touch", Declaration: Declaration{Partitioning: Required}, Run: func(c *ActionContext) (ActionResult, error) {
			return ActionResult{Metadata: map[string]any{"keys": c.PartitionKeys}}, nil
		}})))
	res, err := r.Materialize(ctx, nil, Keys("region=us,kind=a", "kind=a,region=us", "kind=b,region=eu"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"kind=a,region=us", "kind=b,region=eu"}; !slices.Equal(res[0].Keys, want) || !slices.Equal(h.data["m"]["kind=a,region=us"], []int{2}) {
		t.Fatalf("keys %v, stored %v", res[0].Keys, h.data["m"])
	}
	recs, _ := r.State().List(ctx, "m")
	if len(recs) != 2 || recs[0].Key != "kind=a,region=us" {
		t.Fatalf("state %+v", recs)
	}
	res, err = r.RunAction(ctx, "touch", nil, Keys("region=eu,kind=b"))
	if err != nil || fmt.Sprint(res[0].Metadata["keys"]) != "[kind=b,region=eu]" {
		t.Fatalf("%+v %v", res, err)
	}
	_, err = r.Materialize(ctx, nil, Keys("region=us"))
	wantErr(t, err, `asset "m": partition key "region=us"`, `no key for dimension "kind"`)
}

// A partitioned downstream of an unpartitioned upstream loads it whole.
func TestPartitionedDownstreamOfUnpartitioned(t *testing.T) {
	h := newFake()
	r := NewRepository()
	register(t, r,
		Define0("dim", func(*Context) ([]int, error) { return []int{1, 2, 3}, nil }, WithHandler(h)),
		Define1("fact", "dim", func(c *Context, d []int) ([]int, error) { return []int{sum(d)}, nil },
			WithHandler(h), WithPartitions(partitions.Static("us", "eu"))))
	if _, err := r.Materialize(context.Background(), nil, Keys("eu")); err != nil {
		t.Fatal(err)
	}
	if len(h.loads) != 1 || h.loads[0].PartitionKeys != nil || h.loads[0].Partitions != nil || !slices.Equal(h.data["fact"]["eu"], []int{6}) {
		t.Fatalf("loads %+v, fact %v", h.loads, h.data["fact"])
	}
}
