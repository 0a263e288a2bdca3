package asset

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/deltalite-go/deltalite/iohandler"
)

// fakeHandler keeps []int values in memory, per asset and key ("" for a
// whole asset), and logs what it was asked.
type fakeHandler struct {
	mu      sync.Mutex
	data    map[string]map[string][]int
	version map[string]int64
	loads   []iohandler.InputContext
	stored  []string // "asset[keys]" in store order
	onStore func(asset string)
}

func newFake() *fakeHandler {
	return &fakeHandler{data: map[string]map[string][]int{}, version: map[string]int64{}}
}

func (f *fakeHandler) HandleOutput(_ context.Context, oc iohandler.OutputContext, v any) (iohandler.Metadata, error) {
	rows, ok := v.([]int)
	if !ok {
		return nil, fmt.Errorf("fake handler stores []int, got %T", v)
	}
	f.mu.Lock()
	if f.data[oc.Asset] == nil {
		f.data[oc.Asset] = map[string][]int{}
	}
	keys := oc.PartitionKeys
	if len(keys) == 0 {
		keys = []string{""}
	}
	for _, k := range keys {
		f.data[oc.Asset][k] = slices.Clone(rows)
	}
	f.version[oc.Asset]++
	ver := f.version[oc.Asset]
	f.stored = append(f.stored, fmt.Sprintf("%s%v", oc.Asset, oc.PartitionKeys))
	hook := f.onStore
	f.mu.Unlock()
	if hook != nil {
		hook(oc.Asset)
	}
	return iohandler.Metadata{iohandler.OutVersion: ver, "rows": len(rows)}, nil
}

func (f *fakeHandler) Load(_ context.Context, ic iohandler.InputContext, t reflect.Type) (any, error) {
	if t != reflect.TypeFor[[]int]() {
		return nil, fmt.Errorf("fake handler loads []int, not %v", t)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads = append(f.loads, ic)
	parts, ok := f.data[ic.Asset]
	if !ok {
		return nil, fmt.Errorf("asset %q was never stored", ic.Asset)
	}
	keys := ic.PartitionKeys
	if len(keys) == 0 {
		keys = slices.Sorted(maps.Keys(parts))
	}
	var out []int
	for _, k := range keys {
		out = append(out, parts[k]...)
	}
	return out, nil
}

// events is an ordered log of intervals: each start and end takes the
// next number of one counter, so overlap is decided by order, not time.
type events struct {
	mu   sync.Mutex
	n    int
	ivs  map[string][][2]int // name -> intervals
	open map[string][]int
}

func newEvents() *events { return &events{ivs: map[string][][2]int{}, open: map[string][]int{}} }

func (e *events) start(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	e.open[name] = append(e.open[name], e.n)
}

func (e *events) end(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	s := e.open[name][0]
	e.open[name] = e.open[name][1:]
	e.ivs[name] = append(e.ivs[name], [2]int{s, e.n})
}

func (e *events) intervals(name string) [][2]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.ivs[name])
}

func overlap(a, b [2]int) bool { return a[0] < b[1] && b[0] < a[1] }
