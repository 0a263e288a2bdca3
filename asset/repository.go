package asset

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/internal/editdist"
	"github.com/deltalite-go/deltalite/internal/errs"
)

// Repository holds assets and runs them. It is safe for concurrent use:
// materializations and actions may run at once, the action declarations
// deciding what may overlap.
type Repository struct {
	mu          sync.RWMutex
	assets      map[string]*Asset
	store       state.Store
	parallelism int
	claims      claims
}

// RepoOption configures a Repository.
type RepoOption func(*Repository)

// WithState records materializations in store (default: in memory, for
// the life of the repository).
func WithState(store state.Store) RepoOption { return func(r *Repository) { r.store = store } }

// WithParallelism bounds how many assets run at once (default GOMAXPROCS).
func WithParallelism(n int) RepoOption { return func(r *Repository) { r.parallelism = n } }

// NewRepository returns an empty repository.
func NewRepository(opts ...RepoOption) *Repository {
	r := &Repository{assets: map[string]*Asset{}, store: state.NewMemory(), parallelism: runtime.GOMAXPROCS(0)}
	for _, o := range opts {
		o(r)
	}
	r.parallelism = max(r.parallelism, 1)
	return r
}

// State is the repository's state store.
func (r *Repository) State() state.Store { return r.store }

// Asset returns the registered asset of that name.
func (r *Repository) Asset(name string) (*Asset, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a, ok := r.assets[name]
	return a, ok
}

// Register adds assets and checks the graph they make with those already
// registered: every asset valid, names unique, every upstream registered,
// no cycle. On an error nothing is registered.
func (r *Repository) Register(assets ...*Asset) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := maps.Clone(r.assets)
	for _, a := range assets {
		if err := a.check(); err != nil {
			return err
		}
		if _, dup := next[a.name]; dup {
			return invalid("asset %q is registered twice: asset names are unique", a.name)
		}
		next[a.name] = a
	}
	if err := checkGraph(next); err != nil {
		return err
	}
	r.assets = next
	return nil
}

func invalid(format string, args ...any) error {
	return errs.New(errs.InvalidArgument, "", format, args...)
}

// check validates one asset on its own.
func (a *Asset) check() error {
	if a == nil {
		return invalid("a nil asset was registered")
	}
	if strings.TrimSpace(a.name) == "" {
		return invalid("an asset has an empty name: name every asset")
	}
	if a.handler == nil {
		return invalid("asset %q has no IO handler: give it one with asset.WithHandler", a.name)
	}
	if a.delta {
		if _, err := deltaHandler(a.name, a.handler); err != nil {
			return err
		}
	}
	for u := range a.changes {
		if !slices.Contains(a.Upstream(), u) {
			return invalid("asset %q reads the changes of %q, which is not one of its inputs (%q)", a.name, u, a.Upstream())
		}
	}
	seen := map[string]bool{}
	for _, in := range a.inputs {
		if in.upstream == a.name {
			return invalid("asset %q depends on itself", a.name)
		}
		if seen[in.upstream] {
			return invalid("asset %q takes %q twice as an input: take it once", a.name, in.upstream)
		}
		seen[in.upstream] = true
	}
	for name, act := range a.actions {
		if err := act.check(a.name, name); err != nil {
			return err
		}
	}
	return nil
}

// checkGraph reports an upstream that is not registered (with the
// closest registered name) or a cycle (naming its assets in order).
func checkGraph(assets map[string]*Asset) error {
	names := slices.Sorted(maps.Keys(assets))
	for _, n := range names {
		for _, up := range assets[n].Upstream() {
			if _, ok := assets[up]; !ok {
				return invalid("asset %q depends on %q, which is not registered%s", n, up, suggest(up, names))
			}
		}
	}
	// Depth-first search; a node met again while on the path closes a cycle.
	const (
		unvisited = iota
		onPath
		done
	)
	mark := map[string]int{}
	var path []string
	var visit func(n string) error
	visit = func(n string) error {
		switch mark[n] {
		case onPath:
			i := slices.Index(path, n)
			return invalid("the asset graph has a cycle: %s: break it by removing one of these dependencies",
				strings.Join(append(slices.Clone(path[i:]), n), " -> "))
		case done:
			return nil
		}
		mark[n] = onPath
		path = append(path, n)
		for _, up := range assets[n].Upstream() {
			if err := visit(up); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		mark[n] = done
		return nil
	}
	for _, n := range names {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}

// suggest is ` (did you mean "x"?)` for the closest of names to s, when
// one is close.
func suggest(s string, names []string) string {
	best, bestD := "", len(s)/2+1
	for _, n := range names {
		if d := editdist.Distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// selection resolves the names of a run to registered assets (all of them
// when names is empty and all is nil; all filters the default), in a
// stable topological order: every asset after its upstream assets.
func (r *Repository) selection(names []string, all func(*Asset) bool) ([]*Asset, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	known := slices.Sorted(maps.Keys(r.assets))
	picked := map[string]bool{}
	if len(names) == 0 {
		for _, n := range known {
			if all == nil || all(r.assets[n]) {
				picked[n] = true
			}
		}
	}
	for _, n := range names {
		if _, ok := r.assets[n]; !ok {
			return nil, invalid("asset %q is not registered%s", n, suggest(n, known))
		}
		picked[n] = true
	}
	var order []*Asset
	placed := map[string]bool{}
	var place func(n string)
	place = func(n string) {
		if placed[n] {
			return
		}
		placed[n] = true
		for _, up := range r.assets[n].Upstream() {
			place(up)
		}
		if picked[n] {
			order = append(order, r.assets[n])
		}
	}
	for _, n := range known {
		place(n)
	}
	return order, nil
}
