// Package asset is a small in-process runtime for data assets stored
// through an IO handler (iohandler.Handler stores them as Delta tables).
//
// An asset is a name, a Go function of typed inputs, the upstream assets
// those inputs come from, an IO handler, an optional partitions
// definition and metadata (the handler's delta/* keys). A Repository
// holds assets, checks their graph, materializes a selection for
// partition keys in dependency order (independent assets in parallel, a
// bounded number at a time), and runs actions on them: maintenance verbs
// such as the Delta verbs optimize, vacuum and delete (Delta), or custom
// ones, each with a declaration of its outcome, concurrency, ordering and
// partitioning. What is materialized, at which table version, is recorded
// in a state store (package asset/state).
//
//	h, _ := iohandler.New(iohandler.Config{TableURI: "/data/warehouse"})
//	orders := asset.Define0("orders", func(c *asset.Context) ([]Order, error) { ... },
//		asset.WithHandler(h), asset.WithPartitions(daily), asset.WithMetadata(map[string]string{
//			"delta/partition_expr": "day"}), asset.Delta())
//	totals := asset.Define1("totals", "orders", func(c *asset.Context, o []Order) ([]Total, error) { ... },
//		asset.WithHandler(h))
//	repo := asset.NewRepository(asset.WithState(store))
//	_ = repo.Register(orders, totals)
//	results, err := repo.Materialize(ctx, nil, asset.Keys("2024-01-02"))
//	_, err = repo.RunAction(ctx, "optimize", []string{"orders"}, asset.Keys("2024-01-02"))
package asset

import (
	"context"
	"maps"
	"reflect"

	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
)

// IOHandler stores an asset's output and loads it as another asset's
// input. *iohandler.Handler is one; the runtime needs nothing more.
type IOHandler interface {
	HandleOutput(ctx context.Context, oc iohandler.OutputContext, v any) (iohandler.Metadata, error)
	Load(ctx context.Context, ic iohandler.InputContext, t reflect.Type) (any, error)
}

// Asset is a defined asset. Build it with Define0..Define3 or External and
// register it with a Repository; it is immutable once built.
type Asset struct {
	name     string
	inputs   []input
	run      func(c *Context, in []any) (any, error) // nil for an External asset
	handler  IOHandler
	parts    partitions.Definition
	metadata map[string]string
	actions  map[string]Action
	delta    bool            // the Delta verbs were asked for: the handler must be a DeltaHandler
	changes  map[string]bool // upstream assets read as changes (ReadChanges)
}

// input is one function argument: the upstream asset it is loaded from
// and the Go type it is loaded as.
type input struct {
	upstream string
	typ      reflect.Type
}

// Option configures an asset.
type Option func(*Asset)

// WithHandler sets the IO handler that stores the asset's output (and
// loads it for its downstream assets).
func WithHandler(h IOHandler) Option { return func(a *Asset) { a.handler = h } }

// WithPartitions partitions the asset: it is materialized for partition
// keys of def.
func WithPartitions(def partitions.Definition) Option { return func(a *Asset) { a.parts = def } }

// WithMetadata sets the asset's metadata (the handler's delta/* keys);
// later calls add to and override earlier ones.
func WithMetadata(md map[string]string) Option {
	return func(a *Asset) {
		if a.metadata == nil {
			a.metadata = map[string]string{}
		}
		maps.Copy(a.metadata, md)
	}
}

// ReadChanges makes the asset incremental on the named upstream assets:
// instead of the upstream's table, its input is the upstream's changes
// since the asset's last materialization, as the upstream's handler loads
// them with iohandler's delta/read=changes (the change rows with
// _change_type, _commit_version and _commit_timestamp; the input type an
// Arrow value or a slice of structs with those fields). The first
// materialization, or one run with FullRead, gets the upstream's rows as
// inserts at its current version. The upstream version read is recorded
// with the materialization only when it succeeds, so a failed run's
// changes are read again by the next. An upstream whose metadata holds
// delta/read=changes is read so by every downstream asset.
func ReadChanges(upstreams ...string) Option {
	return func(a *Asset) {
		if a.changes == nil {
			a.changes = map[string]bool{}
		}
		for _, u := range upstreams {
			a.changes[u] = true
		}
	}
}

// ChangesLoader is an IOHandler that loads an asset's changes since a
// version and reports the version it read up to; *iohandler.Handler is
// one. The runtime needs it for the inputs read as changes.
type ChangesLoader interface {
	LoadChanges(ctx context.Context, ic iohandler.InputContext, t reflect.Type) (any, int64, error)
}

// WithActions adds actions to the asset; an action replaces an earlier
// one of the same name (so a custom optimize after Delta() replaces the
// built-in verb).
func WithActions(actions ...Action) Option {
	return func(a *Asset) {
		if a.actions == nil {
			a.actions = map[string]Action{}
		}
		for _, act := range actions {
			a.actions[act.Name] = act
		}
	}
}

func newAsset(name string, inputs []input, run func(*Context, []any) (any, error), opts []Option) *Asset {
	a := &Asset{name: name, inputs: inputs, run: run}
	for _, o := range opts {
		o(a)
	}
	return a
}

// typeOf is the reflect.Type of T, interfaces included.
func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// Arrow values (tables, record batches, readers) passed between the
// runtime and asset functions follow Arrow's reference counting: the
// runtime releases the inputs it loaded once the function returns and the
// output once the handler has stored it, so a function that returns one
// of its inputs (or keeps it) retains it first.

// Define0 defines a source asset: fn takes no input.
func Define0[Out any](name string, fn func(c *Context) (Out, error), opts ...Option) *Asset {
	return newAsset(name, nil, func(c *Context, _ []any) (any, error) { return fn(c) }, opts)
}

// Define1 defines an asset of one input, loaded from the upstream asset
// as In (any type the upstream's handler can load, not necessarily the
// type the upstream produced).
func Define1[In, Out any](name, upstream string, fn func(c *Context, in In) (Out, error), opts ...Option) *Asset {
	ins := []input{{upstream, typeOf[In]()}}
	return newAsset(name, ins, func(c *Context, in []any) (any, error) {
		return fn(c, as[In](in[0]))
	}, opts)
}

// Define2 defines an asset of two inputs, as Define1.
func Define2[In1, In2, Out any](name, upstream1, upstream2 string, fn func(c *Context, in1 In1, in2 In2) (Out, error), opts ...Option) *Asset {
	ins := []input{{upstream1, typeOf[In1]()}, {upstream2, typeOf[In2]()}}
	return newAsset(name, ins, func(c *Context, in []any) (any, error) {
		return fn(c, as[In1](in[0]), as[In2](in[1]))
	}, opts)
}

// Define3 defines an asset of three inputs, as Define1.
func Define3[In1, In2, In3, Out any](name, upstream1, upstream2, upstream3 string, fn func(c *Context, in1 In1, in2 In2, in3 In3) (Out, error), opts ...Option) *Asset {
	ins := []input{{upstream1, typeOf[In1]()}, {upstream2, typeOf[In2]()}, {upstream3, typeOf[In3]()}}
	return newAsset(name, ins, func(c *Context, in []any) (any, error) {
		return fn(c, as[In1](in[0]), as[In2](in[1]), as[In3](in[2]))
	}, opts)
}

// External defines an asset this repository does not materialize: a
// table something else writes, which the repository maintains (its
// actions) and loads for downstream assets.
func External(name string, opts ...Option) *Asset { return newAsset(name, nil, nil, opts) }

// as converts a loaded input to T; the handler loaded it as T's type, so
// only a nil (for an interface or pointer T) needs care.
func as[T any](v any) T {
	t, _ := v.(T)
	return t
}

// Name is the asset's name.
func (a *Asset) Name() string { return a.name }

// Upstream are the assets the inputs are loaded from, in argument order.
func (a *Asset) Upstream() []string {
	out := make([]string, len(a.inputs))
	for i, in := range a.inputs {
		out[i] = in.upstream
	}
	return out
}

// Partitions is the asset's partitions definition, nil when unpartitioned.
func (a *Asset) Partitions() partitions.Definition { return a.parts }

// Metadata is a copy of the asset's metadata.
func (a *Asset) Metadata() map[string]string { return maps.Clone(a.metadata) }

// Context is what an asset function or an action runs with: the run's
// context.Context, the asset, and the partition keys of the run (none for
// an unpartitioned asset or a whole-asset action).
type Context struct {
	context.Context
	Asset         string
	PartitionKeys []string
	Partitions    partitions.Definition
	Metadata      map[string]string
	Handler       IOHandler
}

func (a *Asset) context(ctx context.Context, keys []string) *Context {
	return &Context{Context: ctx, Asset: a.name, PartitionKeys: keys, Partitions: a.parts,
		Metadata: maps.Clone(a.metadata), Handler: a.handler}
}
