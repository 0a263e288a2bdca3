package iohandler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/changes"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/write"
)

// Handler stores asset outputs as Delta tables and loads them back. It is
// immutable once built and safe for concurrent use.
type Handler struct {
	cfg   Config
	merge *merge.Options // the handler's merge spec; nil without one
}

// New validates cfg and builds a handler. Every setting is checked here,
// before any I/O: an unknown mode, schema mode or merge type, a malformed
// merge spec, a negative size. The table URI comes from EnvTableURI when
// cfg.TableURI is empty.
func New(cfg Config) (*Handler, error) {
	bad := func(err error) (*Handler, error) {
		return nil, errs.New(errs.InvalidArgument, "", "handler config: %v", err)
	}
	if strings.TrimSpace(cfg.TableURI) == "" {
		cfg.TableURI = os.Getenv(EnvTableURI)
	}
	if strings.TrimSpace(cfg.TableURI) == "" {
		return bad(fmt.Errorf("table_uri: missing; give the directory or URL under which the tables live (or set %s)", EnvTableURI))
	}
	if strings.TrimSpace(cfg.SessionTimeZone) == "" {
		cfg.SessionTimeZone = os.Getenv(EnvSessionTimeZone)
	}
	if _, err := expr.NewSession(cfg.SessionTimeZone); err != nil {
		return bad(fmt.Errorf("session_time_zone (or %s): %v", EnvSessionTimeZone, err))
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeOverwrite
	}
	if err := checkMode(cfg.Mode, "mode"); err != nil {
		return bad(err)
	}
	if err := checkSchemaMode(cfg.SchemaMode, "schema_mode"); err != nil {
		return bad(err)
	}
	if err := cfg.WriterProperties.check("writer_properties"); err != nil {
		return bad(err)
	}
	if err := cfg.CommitProperties.check("commit_properties"); err != nil {
		return bad(err)
	}
	if err := cfg.Engine.check(); err != nil {
		return bad(err)
	}
	h := &Handler{cfg: cfg}
	h.cfg.StorageOptions = maps.Clone(cfg.StorageOptions)
	h.cfg.TableConfig = maps.Clone(cfg.TableConfig)
	switch {
	case len(cfg.MergeConfig) > 0 && cfg.MergeOptions != nil:
		return bad(errors.New("merge_config and MergeOptions are both set; give one"))
	case len(cfg.MergeConfig) > 0 && string(cfg.MergeConfig) != "null":
		o, err := merge.ParseSpec(cfg.MergeConfig)
		if err != nil {
			return bad(fmt.Errorf("merge_config: %w", err))
		}
		h.merge = &o
	case cfg.MergeOptions != nil:
		o := *cfg.MergeOptions
		if _, err := o.Plan(); err != nil {
			return bad(fmt.Errorf("merge options: %w", err))
		}
		h.merge = &o
	}
	if cfg.Mode == ModeMerge && h.merge == nil {
		return bad(errors.New("merge_config is required when mode is \"merge\""))
	}
	return h, nil
}

// StorageOptions are the options the handler opens tables with (a copy).
func (h *Handler) StorageOptions() map[string]string { return maps.Clone(h.cfg.StorageOptions) }

// SessionTimeZone is the time zone the handler reads a TIMESTAMP in
// (Config.SessionTimeZone, else the environment's; "" is UTC).
func (h *Handler) SessionTimeZone() string { return h.cfg.SessionTimeZone }

// ResolvedProperties are the writer and commit properties of an asset (its
// delta/writer_properties and delta/commit_properties replace the
// handler's), for the maintenance verbs that rewrite or commit.
func (h *Handler) ResolvedProperties(asset string, md map[string]string) (WriterProperties, CommitProperties, error) {
	s, err := h.resolve(asset, md)
	if err != nil {
		return WriterProperties{}, CommitProperties{}, err
	}
	return s.writer, s.commit, nil
}

// OutputContext describes one output to store: the asset, its metadata,
// its partitions definition and the partition keys of the run (none for an
// unpartitioned run).
type OutputContext struct {
	Asset         string
	Metadata      map[string]string
	Partitions    partitions.Definition
	PartitionKeys []string
}

// InputContext describes one input to load, as OutputContext.
type InputContext struct {
	Asset         string
	Metadata      map[string]string
	Partitions    partitions.Definition
	PartitionKeys []string
	// LastVersion is, for a load of changes (delta/read=changes, or
	// LoadChanges), the table version the consumer read last: the changes
	// of the versions after it are loaded. Nil: the consumer never read
	// the table, and its rows are loaded as inserts at its version.
	LastVersion *int64
}

// Metadata is the output metadata of a write (the Key* constants of
// output metadata); values are JSON-able.
type Metadata map[string]any

// Output metadata keys.
const (
	OutTableURI      = "delta/table_uri"        // the table (no userinfo or secret)
	OutMode          = "delta/mode"             // the resolved mode
	OutNumRows       = "delta/num_rows"         // rows this write wrote (merge: inserted + updated)
	OutTableNumRows  = "delta/table_num_rows"   // rows in the table after it (nil when a file lacks statistics)
	OutSizeBytes     = "delta/size_bytes"       // the table's live data bytes
	OutWriteDuration = "delta/write_duration_s" // seconds the write took, 6 decimals
	OutVersion       = "delta/version"          // the table version after the write
	OutSchema        = "delta/schema"           // the table schema as Delta's JSON (json.RawMessage)
	OutNumOutputRows = "delta/num_output_rows"  // merge: rows written (inserted, updated and copied)
	OutMergeStats    = "delta/merge_stats"      // merge: JSON text of the MERGE metrics
	OutSkipped       = "delta/skipped"          // true when nothing was written (ignore, or an app transaction seen)
)

// partitionScope is what a run's keys resolve to.
type partitionScope struct {
	columns []string // the table's partition columns; nil for an unpartitioned asset
	expr    partitions.Expr
	keys    []string
}

// scope checks the run's partition keys against the asset's definition.
func (s *settings) scope(def partitions.Definition, keys []string) (*partitionScope, error) {
	if def == nil {
		if len(keys) > 0 {
			return nil, errs.New(errs.InvalidArgument, "", "asset %q is not partitioned, but partition keys %q were given", s.asset, keys)
		}
		return &partitionScope{}, nil
	}
	if s.expr == nil && len(keys) == 0 {
		return &partitionScope{}, nil
	}
	e, err := s.partitionExpr(def)
	if err != nil {
		return nil, err
	}
	cols, err := partitions.Columns(def, e)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "asset %q: metadata %s", s.asset, KeyPartitionExpr)
	}
	return &partitionScope{columns: cols, expr: e, keys: keys}, nil
}

// tableOrder is the scope's partition columns in the order of the existing
// table's (have) when they are the same columns: the expression's order
// only decides a new table's, so a table that rivers, delta-rs, Spark or
// this handler made with the dimensions in another order takes the write.
// Other columns stay as they are, for the write to refuse naming both.
func (p *partitionScope) tableOrder(have []string) []string {
	if len(p.columns) == len(have) && !slices.ContainsFunc(have, func(c string) bool { return !slices.Contains(p.columns, c) }) {
		return have
	}
	return p.columns
}

// predicate is the SQL predicate of the scope's keys, typed against sc
// when the table exists; "" without keys.
func (p *partitionScope) predicate(asset string, def partitions.Definition, sc *schema.Struct) (string, error) {
	if len(p.keys) == 0 {
		return "", nil
	}
	pred, err := partitions.Predicate(def, p.expr, p.keys, sc)
	if err != nil {
		return "", errs.Wrap(errs.InvalidArgument, "", err, "asset %q: partition keys %q", asset, p.keys)
	}
	return pred, nil
}

// PartitionPredicate is the SQL predicate selecting the rows of the keys,
// in the seed's forms with bounds as strings (for a date or timestamp
// column, TablePartitionPredicate types them). Without keys there is no
// predicate: an error says to act on the whole table instead.
func (h *Handler) PartitionPredicate(md map[string]string, def partitions.Definition, keys []string) (string, error) {
	_, p, err := h.keyScope("", md, def, keys, "partition_predicate")
	if err != nil {
		return "", err
	}
	return p.predicate("", def, nil)
}

// PartitionFilters are the keys as delta-rs partition filters in DNF, one
// conjunction per key (for optimize), with string bounds as
// PartitionPredicate's.
func (h *Handler) PartitionFilters(md map[string]string, def partitions.Definition, keys []string) ([][]scan.Filter, error) {
	_, p, err := h.keyScope("", md, def, keys, "partition_filters")
	if err != nil {
		return nil, err
	}
	return p.filters("", def, nil)
}

// TablePartitionPredicate is PartitionPredicate with bounds typed against
// the asset's table when it exists (a date column compares with DATE
// literals, a timestamp column with instants in the definition's zone);
// it is what the handler's own writes and reads use.
func (h *Handler) TablePartitionPredicate(ctx context.Context, asset string, md map[string]string, def partitions.Definition, keys []string) (string, error) {
	s, p, err := h.keyScope(asset, md, def, keys, "partition_predicate")
	if err != nil {
		return "", err
	}
	sc, err := h.tableSchema(ctx, s)
	if err != nil {
		return "", err
	}
	return p.predicate(asset, def, sc)
}

// TablePartitionFilters is PartitionFilters typed as
// TablePartitionPredicate.
func (h *Handler) TablePartitionFilters(ctx context.Context, asset string, md map[string]string, def partitions.Definition, keys []string) ([][]scan.Filter, error) {
	s, p, err := h.keyScope(asset, md, def, keys, "partition_filters")
	if err != nil {
		return nil, err
	}
	sc, err := h.tableSchema(ctx, s)
	if err != nil {
		return nil, err
	}
	return p.filters(asset, def, sc)
}

// filters are the scope's keys as DNF filters, typed against sc when not
// nil.
func (p *partitionScope) filters(asset string, def partitions.Definition, sc *schema.Struct) ([][]scan.Filter, error) {
	f, err := partitions.Filters(def, p.expr, p.keys, sc)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "asset %q: partition keys %q", asset, p.keys)
	}
	return f, nil
}

// keyScope resolves what the partition helpers need: the asset's settings
// and the keys' scope, which must not be empty.
func (h *Handler) keyScope(asset string, md map[string]string, def partitions.Definition, keys []string, what string) (*settings, *partitionScope, error) {
	if len(keys) == 0 {
		return nil, nil, errs.New(errs.InvalidArgument, "", "%s needs a partition key; this run has none, so there is no predicate to build: operate on the whole table instead", what)
	}
	leaf := asset
	if leaf == "" {
		leaf = "asset" // no table is opened: only the metadata matters
	}
	s, err := h.resolve(leaf, md)
	if err != nil {
		return nil, nil, err
	}
	p, err := s.scope(def, keys)
	if err != nil {
		return nil, nil, err
	}
	return s, p, nil
}

// tableSchema is the schema of the asset's table, nil when there is none.
func (h *Handler) tableSchema(ctx context.Context, s *settings) (*schema.Struct, error) {
	tbl, err := h.open(ctx, s, nil)
	if errors.Is(err, errs.ErrTableNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return tbl.DeltaSchema(), nil
}

// open opens the asset's table (at version when not nil); a missing table
// is deltalite.ErrTableNotFound with (nil, err).
func (h *Handler) open(ctx context.Context, s *settings, version *int64) (*deltalite.Table, error) {
	opts := []deltalite.Option{deltalite.WithStorageOptions(h.cfg.StorageOptions)}
	if version != nil {
		opts = append(opts, deltalite.WithVersion(*version))
	}
	tbl, err := deltalite.Open(ctx, s.tableURI, opts...)
	if err != nil {
		return nil, err
	}
	return tbl, nil
}

// HandleOutput stores v as the asset's output: it resolves the asset's
// settings and the run's partition scope, decides what the mode means
// with a key, hands the write to the type handler of v's type, and
// returns the output metadata.
func (h *Handler) HandleOutput(ctx context.Context, oc OutputContext, v any) (Metadata, error) {
	s, err := h.resolve(oc.Asset, oc.Metadata)
	if err != nil {
		return nil, err
	}
	ps, err := s.scope(oc.Partitions, oc.PartitionKeys)
	if err != nil {
		return nil, err
	}
	th, err := handlerFor(reflect.TypeOf(v), "store")
	if err != nil {
		return nil, errs.New(errs.InvalidArgument, "", "asset %q: %v", oc.Asset, err)
	}
	req := &WriteRequest{Asset: oc.Asset, TableURI: s.tableURI, StorageOptions: h.StorageOptions(), Mode: s.mode,
		SchemaMode: s.schemaMode, PartitionKeys: oc.PartitionKeys, PartitionBy: ps.columns, ClusterBy: s.clusterBy,
		TableConfig: s.tableConfig, Writer: s.writer, Commit: s.commit, SessionTimeZone: h.cfg.SessionTimeZone}
	if h.cfg.Engine != nil {
		req.Engine = *h.cfg.Engine
	}
	if err := h.checkWrite(s, ps, req); err != nil {
		return nil, err
	}
	start := time.Now()
	tbl, err := h.open(ctx, s, nil)
	if err != nil && !errors.Is(err, errs.ErrTableNotFound) {
		return nil, err
	}
	req.Table = tbl
	var sc *schema.Struct
	if tbl != nil {
		sc = tbl.DeltaSchema()
		req.PartitionBy = ps.tableOrder(tbl.PartitionColumns())
	}
	if req.PartitionPredicate, err = ps.predicate(oc.Asset, oc.Partitions, sc); err != nil {
		return nil, err
	}
	switch s.mode {
	case ModeIgnore:
		// The write decides (write.Options.IgnoreWhere) and appends in one
		// commit; asked here first so that a skip neither applies the
		// table configuration nor runs the type handler.
		skip := tbl != nil && req.PartitionPredicate == ""
		if tbl != nil && !skip {
			if skip, err = write.IgnoreSkips(ctx, tbl.Snapshot(), req.PartitionPredicate, req.SessionTimeZone); err != nil {
				return nil, err
			}
		}
		if skip {
			return h.outputMetadata(ctx, s, Metadata{OutNumRows: int64(0), OutSkipped: true}, start)
		}
	case ModeOverwrite:
		req.ReplaceWhere = req.PartitionPredicate
	case ModeMerge:
		if req.Merge, err = h.mergeOptions(s, req); err != nil {
			return nil, err
		}
	}
	if tbl != nil && s.mode != ModeCreateOrReplace {
		if err := applyTableConfig(ctx, s, tbl); err != nil {
			return nil, err
		}
	}
	md, err := th.Write(ctx, req, v)
	if err != nil {
		return nil, forAsset(err, oc.Asset, oc.PartitionKeys)
	}
	return h.outputMetadata(ctx, s, md, start)
}

// checkWrite refuses, before any I/O, what the resolved write cannot do.
func (h *Handler) checkWrite(s *settings, ps *partitionScope, req *WriteRequest) error {
	bad := func(format string, args ...any) error {
		return errs.New(errs.InvalidArgument, "", "asset %q: %s", s.asset, fmt.Sprintf(format, args...))
	}
	switch s.mode {
	case ModeCreateOrReplace:
		if len(ps.keys) > 0 {
			return bad("mode %q replaces the whole table (every partition), so it takes no partition key (got %q); to replace only this partition use mode %q, and to change the schema use mode %q with schema_mode %q without a key",
				ModeCreateOrReplace, ps.keys, ModeOverwrite, ModeOverwrite, SchemaModeOverwrite)
		}
	case ModeMerge:
		if h.merge == nil {
			return bad("mode %q needs merge_config in the handler config", ModeMerge)
		}
		if s.schemaMode == SchemaModeOverwrite {
			return bad("schema_mode %q cannot apply to a merge; use %q to add the source's new columns", SchemaModeOverwrite, SchemaModeMerge)
		}
		if c := strings.ToLower(s.writer.Compression); c != "" && c != "snappy" {
			return bad("writer_properties.compression %q: merges write snappy data files; remove it for this asset", s.writer.Compression)
		}
	}
	if s.schemaMode == SchemaModeOverwrite && s.mode != ModeOverwrite && s.mode != ModeCreateOrReplace {
		return bad("schema_mode %q needs mode %q (got %q)", SchemaModeOverwrite, ModeOverwrite, s.mode)
	}
	return nil
}

// applyTableConfig brings an existing table's properties to the asset's
// table configuration with a metadata commit of its own before the write
// (create_or_replace carries them in its one commit instead): a
// configuration given after creation is applied, never ignored.
func applyTableConfig(ctx context.Context, s *settings, tbl *deltalite.Table) error {
	props := tbl.Snapshot().Properties()
	diff := map[string]string{}
	for k, v := range s.tableConfig {
		if old, ok := props[k]; !ok || old != v {
			diff[k] = v
		}
	}
	if len(diff) == 0 {
		return nil
	}
	err := tbl.SetProperties(ctx, diff, deltalite.PropertiesOptions{CommitMaxRetries: s.commit.EngineRetries(), CommitMetadata: s.commit.CustomMetadata})
	if err != nil {
		return errs.Wrap(errs.InvalidArgument, "", err, "asset %q: applying the table configuration %s to the existing table", s.asset, jsonString(diff))
	}
	return nil
}

// mergeOptions resolves the merge of one write: the handler's spec with
// the asset's predicate, schema mode and properties, scoped to the run's
// partition: the partition predicate (on the target) is ANDed into the ON
// condition and into every NOT MATCHED BY SOURCE clause, so rows of other
// partitions are neither matched nor deleted.
func (h *Handler) mergeOptions(s *settings, req *WriteRequest) (*merge.Options, error) {
	o := *h.merge
	o.Clauses = append([]merge.Clause(nil), h.merge.Clauses...)
	if s.mergePred != "" {
		o.Predicate = s.mergePred
	}
	if s.schemaMode == SchemaModeMerge {
		o.SchemaMode = merge.SchemaModeMerge
	}
	o.TargetFileSize = s.writer.TargetFileSize
	o.CommitMetadata = s.commit.CustomMetadata
	o.CommitMaxRetries = s.commit.EngineRetries()
	o.AppID, o.AppVersion = s.commit.AppTxn()
	o.MaxBufferedBytes = req.Engine.MaxBufferedBytes
	o.MaxParallelFiles = req.Engine.MaxParallelFiles
	o.MaxSourceBytes = req.Engine.MaxSourceBytes
	o.ReadBatchSize = req.Engine.ReadBatchSize
	o.StorageOptions = req.StorageOptions
	o.SessionTimeZone = req.SessionTimeZone
	if req.PartitionPredicate != "" {
		scoped, err := scopeMerge(o, req.PartitionPredicate)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "asset %q: scoping the merge to partition keys %q", s.asset, req.PartitionKeys)
		}
		o = scoped
	}
	if _, err := o.Plan(); err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "asset %q: merge", s.asset)
	}
	return &o, nil
}

// round6 rounds seconds to 6 decimals, as the seed reports durations.
func round6(d time.Duration) float64 {
	return math.Round(d.Seconds()*1e6) / 1e6
}

// outputMetadata completes a type handler's metadata with what the table
// now shows.
func (h *Handler) outputMetadata(ctx context.Context, s *settings, md Metadata, start time.Time) (Metadata, error) {
	out := Metadata{}
	maps.Copy(out, md)
	out[OutWriteDuration] = round6(time.Since(start))
	out[OutTableURI] = errs.RedactURL(s.tableURI)
	out[OutMode] = s.mode
	tbl, err := h.open(ctx, s, nil)
	if errors.Is(err, errs.ErrTableNotFound) {
		// A merge into a missing table that inserted nothing created none.
		out[OutVersion], out[OutSizeBytes], out[OutTableNumRows], out[OutSchema] = int64(-1), int64(0), int64(0), nil
		return out, nil
	}
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "asset %q: reading the table after the write", s.asset)
	}
	sum := tbl.Summary()
	out[OutVersion] = sum.Version
	out[OutSizeBytes] = sum.SizeBytes
	if sum.NumRows != nil {
		out[OutTableNumRows] = *sum.NumRows
	} else {
		out[OutTableNumRows] = nil
	}
	out[OutSchema] = sum.Schema
	if _, ok := out[OutSkipped]; !ok {
		out[OutSkipped] = false
	}
	return out, nil
}

// Load reads the asset's table as a value of type t (the non-generic form
// of LoadInput, for runtimes): the columns of delta/columns, the rows of
// the run's partition keys (the predicate pushed into the scan), at
// delta/version when set. With delta/read=changes it reads the changes
// as LoadChanges does.
func (h *Handler) Load(ctx context.Context, ic InputContext, t reflect.Type) (any, error) {
	v, _, err := h.load(ctx, ic, t, false)
	return v, err
}

// LoadChanges reads the asset's changes since ic.LastVersion as a value of
// type t (an Arrow value or a struct slice): the change rows of the
// versions after it up to the table's (or delta/version), with the
// columns of delta/columns and _change_type, _commit_version and
// _commit_timestamp, for the rows of the run's partition keys; with no
// LastVersion, the table's rows as inserts at its version. It returns that
// version: the consumer's LastVersion next time. The table must record its
// changes (delta.enableChangeDataFeed=true); changes it no longer has
// (recorded before the feed was enabled, or their files vacuumed) are an
// error that says to read the whole table again (LastVersion nil).
func (h *Handler) LoadChanges(ctx context.Context, ic InputContext, t reflect.Type) (any, int64, error) {
	return h.load(ctx, ic, t, true)
}

// load is Load, or LoadChanges when changes is true or the metadata asks
// for them; it returns the version read.
func (h *Handler) load(ctx context.Context, ic InputContext, t reflect.Type, changes bool) (any, int64, error) {
	s, err := h.resolve(ic.Asset, ic.Metadata)
	if err != nil {
		return nil, 0, err
	}
	changes = changes || s.read == ReadChanges
	ps, err := s.scope(ic.Partitions, ic.PartitionKeys)
	if err != nil {
		return nil, 0, err
	}
	th, err := handlerFor(t, "load")
	if err == nil && changes && th != builtin {
		err = fmt.Errorf("changes load as Arrow values or struct slices; %s is read by %T, which reads tables", t, th)
	}
	if err != nil {
		return nil, 0, errs.New(errs.InvalidArgument, "", "asset %q: %v", ic.Asset, err)
	}
	tbl, err := h.open(ctx, s, s.version)
	if err != nil {
		if errors.Is(err, errs.ErrTableNotFound) {
			return nil, 0, errs.New(errs.TableNotFound, s.tableURI, "asset %q has no table yet; materialize it before loading it", ic.Asset)
		}
		return nil, 0, err
	}
	req := &ReadRequest{Asset: ic.Asset, TableURI: s.tableURI, StorageOptions: h.StorageOptions(),
		Columns: s.columns, Version: s.version, PartitionKeys: ic.PartitionKeys, Table: tbl, SessionTimeZone: h.cfg.SessionTimeZone}
	if changes {
		if req.Changes, err = changesRead(ic, tbl); err != nil {
			return nil, 0, err
		}
	}
	if h.cfg.Engine != nil {
		req.Engine = *h.cfg.Engine
	}
	if req.Predicate, err = ps.predicate(ic.Asset, ic.Partitions, tbl.DeltaSchema()); err != nil {
		return nil, 0, err
	}
	out, err := th.Read(ctx, req, t)
	if err != nil {
		return nil, 0, forAsset(err, ic.Asset, ic.PartitionKeys)
	}
	return out, tbl.Version(), nil
}

// changesRead checks that the consumer's last version can be read from:
// the table records its changes, and is not older than the version read.
func changesRead(ic InputContext, tbl *deltalite.Table) (*ChangesRead, error) {
	if !changes.Enabled(tbl.Snapshot().Metadata()) {
		return nil, errs.New(errs.InvalidArgument, "", "asset %q is read as changes, but its table does not record them: set %s=true in its %s, or read the table (%s=%q)",
			ic.Asset, protocol.PropEnableChangeDataFeed, KeyTableConfiguration, KeyRead, ReadTable)
	}
	if ic.LastVersion != nil && *ic.LastVersion > tbl.Version() {
		return nil, errs.New(errs.InvalidArgument, "", "asset %q: version %d was read last, but the table is at version %d (recreated, or delta/version reads an older one): "+
			"run a full materialization, which reads the whole table again", ic.Asset, *ic.LastVersion, tbl.Version())
	}
	return &ChangesRead{After: ic.LastVersion}, nil
}

// forAsset names the asset (and the run's keys) in an error from below,
// keeping its kind for errors.Is.
func forAsset(err error, asset string, keys []string) error {
	kind := errs.Internal
	var e *errs.Error
	if errors.As(err, &e) {
		if strings.Contains(e.Msg, fmt.Sprintf("asset %q", asset)) {
			return err
		}
		kind = e.Kind
	}
	if len(keys) > 0 {
		return errs.Wrap(kind, "", err, "asset %q, partition keys %q", asset, keys)
	}
	return errs.Wrap(kind, "", err, "asset %q", asset)
}

// LoadInput reads the asset's table as a T (see Handler.Load).
func LoadInput[T any](ctx context.Context, h *Handler, ic InputContext) (T, error) {
	var zero T
	v, err := h.Load(ctx, ic, reflect.TypeFor[T]())
	if err != nil {
		return zero, err
	}
	out, ok := v.(T)
	if !ok {
		return zero, errs.New(errs.Internal, "", "asset %q: the type handler returned %T for %s", ic.Asset, v, reflect.TypeFor[T]())
	}
	return out, nil
}
