package asset

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/deltalite-go/deltalite/partitions"
)

// Store stores a value computed elsewhere as a materialization: through
// the handler, for the canonical keys, recorded in the state; it refuses
// bad keys before storing anything.
func TestStore(t *testing.T) {
	ctx := context.Background()
	h := newFake()
	r := NewRepository()
	multi := partitions.Multi(map[string]partitions.Definition{
		"region": partitions.Static("us", "eu"), "tier": partitions.Static("a", "b")})
	register(t, r, External("orders", WithHandler(h), WithPartitions(multi)), External("totals", WithHandler(h)))

	res, err := r.Store(ctx, "orders", []int{1, 2}, Keys("tier=a,region=us", "region=us,tier=a"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusMaterialized || !slices.Equal(res.Keys, []string{"region=us,tier=a"}) || res.Metadata["rows"] != 2 {
		t.Fatalf("result %+v", res)
	}
	rec, ok, err := r.State().Get(ctx, "orders", "region=us,tier=a")
	if err != nil || !ok || rec.Version != 1 || rec.Metadata["rows"] != 2 {
		t.Fatalf("state %+v %v %v", rec, ok, err)
	}
	if _, err := r.Store(ctx, "totals", []int{3}); err != nil {
		t.Fatal(err)
	}
	if rec, ok, _ := r.State().Get(ctx, "totals", ""); !ok || rec.Version != 1 {
		t.Fatalf("whole-asset state %+v %v", rec, ok)
	}

	for _, c := range []struct {
		name string
		opts []RunOption
		want string
	}{
		{"totals", []RunOption{Keys("us")}, `asset "totals" is not partitioned, but partition keys ["us"] were given`},
		{"orders", []RunOption{Keys("region=mars,tier=a")}, `asset "orders": partition key "region=mars,tier=a"`},
		{"order", nil, `asset "order" is not registered (did you mean "orders"?)`},
		{"orders", []RunOption{WholeAsset()}, "WholeAsset and Config apply to actions, not to Store"},
	} {
		if _, err := r.Store(ctx, c.name, []int{9}, c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %d options: %v; want %q", c.name, len(c.opts), err, c.want)
		}
	}
	if !slices.Equal(h.stored, []string{"orders[region=us,tier=a]", "totals[]"}) {
		t.Fatalf("stored %v", h.stored)
	}
}

// A Store waits while an exclusive action runs on its partition, like a
// materialization: it stores only once the action is done.
func TestStoreWaitsForExclusiveAction(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var log []string
	note := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	h := newFake()
	h.onStore = func(string) { note("store") }
	entered, gate := make(chan struct{}), make(chan struct{})
	hold := Action{Name: "hold", Declaration: Declaration{Concurrency: Exclusive, Partitioning: Required},
		Run: func(*ActionContext) (ActionResult, error) {
			close(entered)
			<-gate
			note("hold")
			return ActionResult{}, nil
		}}
	r := NewRepository()
	register(t, r, External("orders", WithHandler(h), WithPartitions(partitions.Static("us", "eu")), WithActions(hold)))
	acted := make(chan error, 1)
	go func() { _, err := r.RunAction(ctx, "hold", nil, Keys("us")); acted <- err }()
	<-entered
	stored := make(chan error, 1)
	go func() { _, err := r.Store(ctx, "orders", []int{1}, Keys("us")); stored <- err }()
	waitQueued(t, r, "orders", 1)
	close(gate)
	if err := <-acted; err != nil {
		t.Fatal(err)
	}
	if err := <-stored; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(log, []string{"hold", "store"}) {
		t.Fatalf("order %v: the store overlapped the exclusive action", log)
	}
}
