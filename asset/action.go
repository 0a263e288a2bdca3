package asset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/jsonkeys"
)

// Outcome is what an action declares it does to the asset's state.
type Outcome int

const (
	// Unchanged: the action leaves what is materialized as it is
	// (maintenance such as optimize).
	Unchanged Outcome = iota
	// Materialized: the action materializes the asset (or its keys).
	Materialized
	// Unmaterialize: the action removes the data; the state is cleared.
	Unmaterialize
	// MayMaterialize: the action reports unchanged or materialized.
	MayMaterialize
)

// Concurrency is what an action excludes while it runs.
type Concurrency int

const (
	// Shared: the action runs beside anything.
	Shared Concurrency = iota
	// Exclusive: a keyless run claims the whole asset, a keyed one its
	// partitions; it never overlaps a materialization (or another
	// exclusive action) of what it claims. The Repository orders the
	// runs of its process; with a state.File store (state.Claimer) also
	// those of every process sharing its directory.
	Exclusive
)

// Ordering is the order an action runs in over a selection.
type Ordering int

const (
	// UpstreamFirst: an asset's action runs after its upstream assets'.
	UpstreamFirst Ordering = iota
	// DownstreamFirst: an asset's action runs after its downstream
	// assets' in the selection (delete: consumers go first).
	DownstreamFirst
)

// Partitioning is whether an action takes a partition key.
type Partitioning int

const (
	// Keyless: the action acts on the whole asset and refuses a key.
	Keyless Partitioning = iota
	// Optional: with keys the action acts on their partitions; without,
	// on a partitioned asset, it needs the explicit WholeAsset choice.
	Optional
	// Required: the action needs a key on a partitioned asset.
	Required
)

// Declaration is what an action promises; the runtime enforces it.
type Declaration struct {
	Outcome      Outcome
	Concurrency  Concurrency
	Ordering     Ordering
	Partitioning Partitioning
	Description  string
}

// Action is a verb an asset can run besides materializing: maintenance
// (optimize, vacuum, delete) or custom work.
type Action struct {
	Name string
	Declaration
	// Run does the work. Its result's Status must fit the declared
	// Outcome; an empty Status takes the Outcome's (unchanged for
	// MayMaterialize).
	Run func(c *ActionContext) (ActionResult, error)
}

// ActionResult is what an action reports.
type ActionResult struct {
	Status   Status
	Metadata map[string]any
}

// ActionContext is what an action runs with: the asset's Context (its
// partition keys, none for a whole-asset run), the action's name and its
// configuration.
type ActionContext struct {
	*Context
	Action string
	// Config is the JSON object given for this asset (nil when none);
	// decode it with DecodeConfig.
	Config json.RawMessage
}

func (act *Action) check(asset, name string) error {
	if name == "" || act.Name != name {
		return invalid("asset %q has an action with an empty name", asset)
	}
	if act.Run == nil {
		return invalid("asset %q: action %q has no Run function", asset, name)
	}
	if act.Outcome < Unchanged || act.Outcome > MayMaterialize || act.Concurrency < Shared || act.Concurrency > Exclusive ||
		act.Ordering < UpstreamFirst || act.Ordering > DownstreamFirst || act.Partitioning < Keyless || act.Partitioning > Required {
		return invalid("asset %q: action %q has a declaration value out of range", asset, name)
	}
	return nil
}

// statuses are the statuses an outcome allows; the first is the default.
func (o Outcome) statuses() []Status {
	switch o {
	case Materialized:
		return []Status{StatusMaterialized}
	case Unmaterialize:
		return []Status{StatusUnmaterialized}
	case MayMaterialize:
		return []Status{StatusUnchanged, StatusMaterialized}
	default:
		return []Status{StatusUnchanged}
	}
}

func (o Outcome) String() string {
	return [...]string{"Unchanged", "Materialized", "Unmaterialize", "MayMaterialize"}[o]
}

// Actions lists the names of the asset's actions, sorted.
func (a *Asset) Actions() []string { return slices.Sorted(maps.Keys(a.actions)) }

// RunAction runs the action verb on the selected assets (every asset that
// has it when selection is empty), for the partition keys of opts or for
// the whole asset, honouring each action's declaration: partitioning is
// checked for every asset before anything runs; an Exclusive action waits
// for (and holds off) materializations and exclusive actions of what it
// claims; DownstreamFirst runs an asset's action after its downstream
// assets' in the selection, others after its upstream assets'. The state
// follows the result: materialized records the keys (the whole asset when
// none), unmaterialized clears them.
func (r *Repository) RunAction(ctx context.Context, verb string, selection []string, opts ...RunOption) ([]Result, error) {
	cfg := runConfigOf(opts)
	if cfg.full || cfg.read != nil {
		return nil, invalid("FullRead and ReadUpTo apply to Materialize and Store (inputs read as changes), not to actions")
	}
	order, err := r.selection(selection, func(a *Asset) bool { _, ok := a.actions[verb]; return ok })
	if err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, invalid("no registered asset has the action %q", verb)
	}
	in := map[string]bool{}
	results := make(map[string]*Result, len(order))
	for _, a := range order {
		in[a.name] = true
		act, ok := a.actions[verb]
		if !ok {
			return nil, invalid("asset %q has no action %q (its actions: %s)", a.name, verb, strings.Join(a.Actions(), ", "))
		}
		keys, err := act.checkRun(a, cfg)
		if err != nil {
			return nil, err
		}
		results[a.name] = &Result{Asset: a.name, Keys: keys}
	}
	for name := range cfg.config {
		if !in[name] {
			return nil, invalid("config is given for asset %q, which is not in the selection of action %q", name, verb)
		}
	}
	waitFor := map[string][]string{}
	for down, ups := range r.links(order) {
		for _, up := range ups {
			if upAsset, _ := r.Asset(up); upAsset.actions[verb].Ordering == DownstreamFirst {
				waitFor[up] = append(waitFor[up], down)
			} else {
				waitFor[down] = append(waitFor[down], up)
			}
		}
	}
	errs := r.schedule(ctx, order, waitFor, func(ctx context.Context, a *Asset) error {
		return r.runAction(ctx, a, a.actions[verb], cfg.config[a.name], results[a.name])
	})
	return collect(order, results, errs)
}

// checkRun checks the run's keys and whole-asset choice against the
// action's partitioning, before anything runs, and returns the keys that
// apply to a (runKeys).
func (act *Action) checkRun(a *Asset, cfg runConfig) ([]string, error) {
	keyed := len(cfg.keys) > 0
	if keyed && cfg.whole {
		return nil, invalid("action %q on %q: give partition keys or the whole-asset choice, not both", act.Name, a.name)
	}
	if keyed && act.Partitioning == Keyless {
		return nil, invalid("action %q is whole-asset on %q: run it without a partition key", act.Name, a.name)
	}
	keys, err := a.runKeys(cfg.keys)
	if err != nil || keyed || a.parts == nil {
		return keys, err
	}
	switch act.Partitioning {
	case Required:
		return nil, invalid("action %q on %q needs a partition key: give one (asset.Keys, CLI --partition-key)", act.Name, a.name)
	case Optional:
		if !cfg.whole {
			return nil, invalid("action %q on partitioned asset %q was given no partition key: to act on every partition, "+
				"choose the whole asset explicitly (asset.WholeAsset(), CLI --whole-asset), or give a partition key", act.Name, a.name)
		}
	}
	return nil, nil
}

func (r *Repository) runAction(ctx context.Context, a *Asset, act Action, cfg json.RawMessage, res *Result) error {
	c := &claim{asset: a.name, exclusive: act.Concurrency == Exclusive, keys: res.Keys}
	release, err := r.claim(ctx, c)
	if err != nil {
		return err
	}
	defer release()
	ac := &ActionContext{Context: a.context(ctx, res.Keys), Action: act.Name, Config: cfg}
	out, err := act.Run(ac)
	if err != nil {
		return fmt.Errorf("action %q on %q: %w", act.Name, a.name, err)
	}
	allowed := act.Outcome.statuses()
	if out.Status == "" {
		out.Status = allowed[0]
	}
	if !slices.Contains(allowed, out.Status) {
		return errs.New(errs.Internal, "", "action %q on %q declares %v but reported %s", act.Name, a.name, act.Outcome, out.Status)
	}
	res.Status, res.Metadata = out.Status, out.Metadata
	switch out.Status {
	case StatusMaterialized:
		return r.record(ctx, a.name, res.Keys, out.Metadata, nil)
	case StatusUnmaterialized:
		if err := r.store.Clear(ctx, a.name, res.Keys...); err != nil {
			return fmt.Errorf("action %q on %q: clearing the state: %w", act.Name, a.name, err)
		}
	}
	return nil
}

// DecodeConfig decodes the action's configuration into v (a pointer to a
// struct with json tags), refusing a key v has no field for with an error
// naming it and the allowed keys, and a key given twice. No configuration
// leaves v as it is.
func (c *ActionContext) DecodeConfig(v any) error {
	if len(bytes.TrimSpace(c.Config)) == 0 || string(bytes.TrimSpace(c.Config)) == "null" {
		return nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(c.Config, &keys); err != nil {
		return invalid("action %q on %q: config must be a JSON object: %v", c.Action, c.Asset, err)
	}
	if err := jsonkeys.Unique(c.Config); err != nil {
		return errs.Wrap(errs.InvalidArgument, "", err, "action %q on %q: config", c.Action, c.Asset)
	}
	allowed := jsonFields(reflect.TypeOf(v).Elem())
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !slices.Contains(allowed, k) {
			return invalid("action %q on %q: unknown config key %q%s; allowed: %s", c.Action, c.Asset, k,
				suggest(k, allowed), strings.Join(allowed, ", "))
		}
	}
	if err := json.Unmarshal(c.Config, v); err != nil {
		return invalid("action %q on %q: config: %v", c.Action, c.Asset, err)
	}
	return nil
}

// jsonFields are the JSON names of t's exported fields, sorted.
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
