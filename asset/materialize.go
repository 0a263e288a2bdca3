package asset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
)

// Status is what a run did to an asset.
type Status string

const (
	StatusUnchanged      Status = "unchanged"
	StatusMaterialized   Status = "materialized"
	StatusUnmaterialized Status = "unmaterialized"
)

// Result is the outcome of one asset in a Materialize or RunAction call.
type Result struct {
	Asset string
	// Keys are the partition keys the asset ran for; none for an
	// unpartitioned asset or a whole-asset action.
	Keys   []string
	Status Status
	// Metadata is the handler's output metadata for a materialization,
	// the action's for an action.
	Metadata map[string]any
	// Err is why the asset failed, or ErrSkipped wrapped when it did not
	// run because an asset it waited for failed; Status is then "".
	Err error
}

// RunOption configures a Materialize or RunAction call.
type RunOption func(*runConfig)

type runConfig struct {
	keys   []string
	whole  bool
	full   bool
	read   map[string]int64
	config map[string]json.RawMessage
}

// Keys runs for these partition keys (a backfill when there are several);
// a multi-dimension key is written "date=2024-01-02,region=us".
func Keys(keys ...string) RunOption {
	return func(c *runConfig) { c.keys = append(c.keys, keys...) }
}

// FullRead makes the inputs read as changes (ReadChanges) load their
// upstream's rows as inserts, as a first materialization does, whatever
// version was read last: a full materialization, for when the changes
// since then are gone (vacuumed, or recorded before the feed was enabled)
// or the asset's output is rebuilt.
func FullRead() RunOption { return func(c *runConfig) { c.full = true } }

// ReadUpTo tells Store that the value stored was computed from upstream's
// changes up to version (as LoadChanges reported it): the materialization
// records it, and the next read of those changes for the asset starts
// after it. For a runtime outside this process (the CLI's asset read
// --consumer, then asset write --read-version).
func ReadUpTo(upstream string, version int64) RunOption {
	return func(c *runConfig) {
		if c.read == nil {
			c.read = map[string]int64{}
		}
		c.read[upstream] = version
	}
}

// WholeAsset is the explicit choice an action declared Optional needs to
// run without a partition key on a partitioned asset.
func WholeAsset() RunOption { return func(c *runConfig) { c.whole = true } }

// Config gives the action's configuration for one asset of the selection,
// as a JSON object its action decodes (and checks: an unknown key is an
// error).
func Config(asset string, cfg json.RawMessage) RunOption {
	return func(c *runConfig) {
		if c.config == nil {
			c.config = map[string]json.RawMessage{}
		}
		c.config[asset] = cfg
	}
}

func runConfigOf(opts []RunOption) runConfig {
	var c runConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Materialize runs the selected assets (every asset with a function when
// selection is empty) for the partition keys of opts, in dependency order
// and independent ones in parallel: each loads its inputs through the
// upstream asset's handler (for the same keys when both are partitioned;
// the whole upstream when either is not), runs its function, stores the
// output through its own handler and records the result in the state.
// Partitioned assets of the selection need keys; unpartitioned ones run
// once, whatever the keys. The input is checked before anything runs. A
// failed asset's downstream assets are skipped; the others still run. The
// results follow the dependency order; the error joins the failures.
func (r *Repository) Materialize(ctx context.Context, selection []string, opts ...RunOption) ([]Result, error) {
	cfg := runConfigOf(opts)
	if cfg.whole || cfg.config != nil {
		return nil, invalid("WholeAsset and Config apply to actions, not to Materialize")
	}
	if cfg.read != nil {
		return nil, invalid("ReadUpTo applies to Store; Materialize records the versions its inputs read")
	}
	order, err := r.selection(selection, func(a *Asset) bool { return a.run != nil })
	if err != nil {
		return nil, err
	}
	partitioned := false
	results := make(map[string]*Result, len(order))
	for _, a := range order {
		if a.run == nil {
			return nil, invalid("asset %q is external: it has no function to materialize", a.name)
		}
		results[a.name] = &Result{Asset: a.name}
		if a.parts == nil {
			continue
		}
		partitioned = true
		if len(cfg.keys) == 0 {
			return nil, invalid("asset %q is partitioned: give the partition keys to materialize (asset.Keys)", a.name)
		}
		if results[a.name].Keys, err = a.runKeys(cfg.keys); err != nil {
			return nil, err
		}
	}
	if len(cfg.keys) > 0 && !partitioned {
		return nil, invalid("partition keys %q were given, but no selected asset is partitioned", cfg.keys)
	}
	errs := r.schedule(ctx, order, r.links(order), func(ctx context.Context, a *Asset) error {
		return r.materialize(ctx, a, results[a.name], cfg.full)
	})
	return collect(order, results, errs)
}

// collect lists the results in order, each with its error, and joins the
// errors.
func collect(order []*Asset, results map[string]*Result, errs map[string]error) ([]Result, error) {
	out := make([]Result, len(order))
	var all []error
	for i, a := range order {
		out[i] = *results[a.name]
		if err := errs[a.name]; err != nil {
			out[i].Err, out[i].Status = err, ""
			all = append(all, err)
		}
	}
	return out, errors.Join(all...)
}

// runKeys checks a run's keys against a's definition and returns them in
// canonical form (a multi key's dimensions in sorted order), each once,
// so that the state and the claims know one key by one name; nil when
// there are none.
func (a *Asset) runKeys(keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	if a.parts == nil {
		return nil, invalid("asset %q is not partitioned, but partition keys %q were given", a.name, keys)
	}
	multi, _ := a.parts.(*partitions.MultiKeys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if err := a.parts.Validate(k); err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "asset %q: partition key %q", a.name, k)
		}
		if multi != nil {
			parts, _ := multi.Split(k) // valid: Validate is Split
			k = multi.Join(parts)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

func (r *Repository) materialize(ctx context.Context, a *Asset, res *Result, full bool) error {
	release, err := r.claim(ctx, &claim{asset: a.name, keys: res.Keys})
	if err != nil {
		return err
	}
	defer release()
	ins := make([]any, len(a.inputs))
	defer func() {
		for _, v := range ins {
			releaseValue(v)
		}
	}()
	var read map[string]int64 // upstream versions read as changes
	for i, in := range a.inputs {
		up, _ := r.Asset(in.upstream)
		ic := iohandler.InputContext{Asset: up.name, Metadata: maps.Clone(up.metadata), Partitions: up.parts}
		if up.parts != nil && a.parts != nil {
			ic.PartitionKeys = res.Keys
		}
		var v any
		if a.changes[up.name] || ic.Metadata[iohandler.KeyRead] == iohandler.ReadChanges {
			var version int64
			if v, version, err = r.loadChanges(ctx, a, up, ic, in.typ, res.Keys, full); err == nil {
				if read == nil {
					read = map[string]int64{}
				}
				read[up.name] = version
			}
		} else {
			v, err = up.handler.Load(ctx, ic, in.typ)
		}
		if err != nil {
			return fmt.Errorf("asset %q: loading input %q: %w", a.name, up.name, err)
		}
		if v != nil && !reflect.TypeOf(v).AssignableTo(in.typ) {
			releaseValue(v)
			return errs.New(errs.Internal, "", "asset %q: the handler of %q loaded a %T, not the %v asked for", a.name, up.name, v, in.typ)
		}
		ins[i] = v
	}
	out, err := a.run(a.context(ctx, res.Keys), ins)
	for i, v := range ins {
		releaseValue(v)
		ins[i] = nil
	}
	if err != nil {
		return fmt.Errorf("asset %q: %w", a.name, err)
	}
	err = r.output(ctx, a, res, out)
	releaseValue(out)
	if err != nil {
		return fmt.Errorf("asset %q: storing the output: %w", a.name, err)
	}
	return r.record(ctx, a.name, res.Keys, res.Metadata, read)
}

// loadChanges loads up's changes since the version a's materialization of
// keys read last (none with full, or before a's first one) and returns
// the version read.
func (r *Repository) loadChanges(ctx context.Context, a, up *Asset, ic iohandler.InputContext, t reflect.Type, keys []string, full bool) (any, int64, error) {
	cl, ok := up.handler.(ChangesLoader)
	if !ok {
		return nil, 0, invalid("asset %q reads the changes of %q, whose handler (%T) cannot load changes", a.name, up.name, up.handler)
	}
	if !full {
		last, err := state.LastRead(ctx, r.store, a.name, up.name, keys)
		if err != nil {
			return nil, 0, err
		}
		ic.LastVersion = last
	}
	return cl.LoadChanges(ctx, ic, t)
}

// Store stores value, computed outside the repository, as a
// materialization of the registered asset name for the partition keys of
// opts (none: the value as the handler stores it without a key, which on
// a partitioned asset is the whole table). It runs as Materialize stores a
// function's output: under a materialization's claim (shared with other
// materializations; it waits while an Exclusive action runs on what it
// covers, in any process sharing a state.File directory), through the
// asset's handler, and recorded in the state with the table version and
// output metadata, so that an Unmaterialize action clears it. The caller
// keeps value: an Arrow value is not released. The deltalite CLI's asset
// write stores its input with it.
func (r *Repository) Store(ctx context.Context, name string, value any, opts ...RunOption) (Result, error) {
	cfg := runConfigOf(opts)
	if cfg.whole || cfg.config != nil {
		return Result{}, invalid("WholeAsset and Config apply to actions, not to Store")
	}
	if cfg.full {
		return Result{}, invalid("FullRead applies to Materialize (inputs read as changes), not to Store")
	}
	order, err := r.selection([]string{name}, nil)
	if err != nil {
		return Result{}, err
	}
	a := order[0]
	res := Result{Asset: a.name}
	if res.Keys, err = a.runKeys(cfg.keys); err != nil {
		return Result{}, err
	}
	release, err := r.claim(ctx, &claim{asset: a.name, keys: res.Keys})
	if err != nil {
		return Result{}, err
	}
	defer release()
	// The handler's error as it is: the caller named the one asset.
	if err := r.output(ctx, a, &res, value); err != nil {
		return Result{}, err
	}
	if err := r.record(ctx, a.name, res.Keys, res.Metadata, cfg.read); err != nil {
		return Result{}, err
	}
	return res, nil
}

// output stores value through a's handler for res.Keys, the caller holding
// the claim and recording the materialization once it succeeds.
func (r *Repository) output(ctx context.Context, a *Asset, res *Result, value any) error {
	oc := iohandler.OutputContext{Asset: a.name, Metadata: maps.Clone(a.metadata), Partitions: a.parts, PartitionKeys: res.Keys}
	md, err := a.handler.HandleOutput(ctx, oc, value)
	if err != nil {
		return err
	}
	res.Status, res.Metadata = StatusMaterialized, md
	return nil
}

// releaseValue releases an Arrow value (a table, batch or reader) the runtime
// owns: an input once the function has returned, an output once stored.
func releaseValue(v any) {
	if r, ok := v.(interface{ Release() }); ok {
		r.Release()
	}
}

// record notes that asset is materialized for keys (the whole asset when
// none) with the output metadata md, having read the changes of upstream
// assets up to the versions of read; without any (Store, an action, a run
// reading no changes) each key keeps the versions it had read, so that
// its next run reads the changes after them.
func (r *Repository) record(ctx context.Context, asset string, keys []string, md map[string]any, read map[string]int64) error {
	if len(keys) == 0 {
		keys = []string{""}
	}
	now := time.Now().UTC()
	recs := make([]state.Record, len(keys))
	for i, k := range keys {
		recs[i] = state.Record{Asset: asset, Key: k, Version: versionOf(md), Metadata: md, MaterializedAt: now, Upstream: read}
		if read == nil {
			prev, found, err := r.store.Get(ctx, asset, k)
			if err != nil {
				return fmt.Errorf("asset %q: recording the materialization: %w", asset, err)
			}
			if found {
				recs[i].Upstream = prev.Upstream
			}
		}
	}
	if err := r.store.Put(ctx, recs...); err != nil {
		return fmt.Errorf("asset %q: recording the materialization: %w", asset, err)
	}
	return nil
}

// versionOf is the table version in the metadata, -1 when there is none.
func versionOf(md map[string]any) int64 {
	switch v := md[iohandler.OutVersion].(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
	}
	return -1
}
