package asset

import (
	"context"
	"errors"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/vacuum"
)

// DeltaHandler is an IOHandler that keeps each asset in a Delta table and
// resolves, per asset, what the write path resolves: the table URI, the
// partition predicate and filters of keys, the storage options and the
// writer and commit properties. *iohandler.Handler is one. The Delta
// verbs and custom actions use it through Context's helpers.
type DeltaHandler interface {
	IOHandler
	ResolveTableURI(asset string, md map[string]string) (string, error)
	TablePartitionPredicate(ctx context.Context, asset string, md map[string]string, def partitions.Definition, keys []string) (string, error)
	TablePartitionFilters(ctx context.Context, asset string, md map[string]string, def partitions.Definition, keys []string) ([][]scan.Filter, error)
	StorageOptions() map[string]string
	ResolvedProperties(asset string, md map[string]string) (iohandler.WriterProperties, iohandler.CommitProperties, error)
	// SessionTimeZone is the time zone the handler's writes and reads
	// read a TIMESTAMP in ("" is UTC): the verbs' predicates take it too.
	SessionTimeZone() string
}

// Delta gives the asset the Delta maintenance verbs, resolved against its
// handler (which must be a DeltaHandler) as its writes are:
//
//   - optimize (Unchanged, Exclusive, Optional key): compacts small files,
//     or z-orders when z_order_by is configured; keyed, only the keys'
//     partitions. Config: target_size (bytes; default the writer
//     properties' target file size), z_order_by. Metadata: files_added,
//     files_removed.
//   - vacuum (Unchanged, Exclusive, Keyless): removes files no version
//     within the retention needs. Config: retention_hours,
//     enforce_retention_duration (default true). Metadata: files_deleted.
//   - delete (Unmaterialize, Exclusive, DownstreamFirst, Optional key):
//     deletes the keys' rows by the partition predicate (read in the
//     handler's session time zone, as its writes are), or every row (the
//     table and its history stay); the state is cleared. Metadata:
//     rows_deleted.
//
// On a missing table optimize and vacuum report unchanged and create
// nothing (so a fleet-wide optimize skips assets never materialized);
// delete still clears the state. Rewrites use the writer properties'
// target file size and the commit properties' custom metadata and
// retries; a compression setting applies to writes only.
func Delta() Option {
	return func(a *Asset) {
		a.delta = true
		WithActions(
			Action{Name: "optimize", Run: runOptimize, Declaration: Declaration{Outcome: Unchanged, Concurrency: Exclusive,
				Partitioning: Optional, Description: "Compact small files (z-order when configured)"}},
			Action{Name: "vacuum", Run: runVacuum, Declaration: Declaration{Outcome: Unchanged, Concurrency: Exclusive,
				Partitioning: Keyless, Description: "Remove files no longer referenced by the table"}},
			Action{Name: "delete", Run: runDelete, Declaration: Declaration{Outcome: Unmaterialize, Concurrency: Exclusive,
				Ordering: DownstreamFirst, Partitioning: Optional, Description: "Delete rows (partition-scoped with a key) and clear state"}},
		)(a)
	}
}

// Delta is the asset's handler as a DeltaHandler, or an error naming the
// asset and the handler's type.
func (c *Context) Delta() (DeltaHandler, error) { return deltaHandler(c.Asset, c.Handler) }

func deltaHandler(asset string, h IOHandler) (DeltaHandler, error) {
	dh, ok := h.(DeltaHandler)
	if !ok {
		return nil, invalid("asset %q: Delta actions need a Delta IO handler (*iohandler.Handler), got %T", asset, h)
	}
	return dh, nil
}

// TableURI is the asset's table: {table_uri}/{delta/root_name or name}.
func (c *Context) TableURI() (string, error) {
	h, err := c.Delta()
	if err != nil {
		return "", err
	}
	return h.ResolveTableURI(c.Asset, c.Metadata)
}

// StorageOptions are the options the handler opens the table with.
func (c *Context) StorageOptions() (map[string]string, error) {
	h, err := c.Delta()
	if err != nil {
		return nil, err
	}
	return h.StorageOptions(), nil
}

// sessionTimeZone is the handler's session time zone.
func (c *Context) sessionTimeZone() (string, error) {
	h, err := c.Delta()
	if err != nil {
		return "", err
	}
	return h.SessionTimeZone(), nil
}

// PartitionPredicate is the SQL predicate of the run's partition keys,
// typed against the table's columns when it exists; an error without
// keys (act on the whole table instead) or without delta/partition_expr.
func (c *Context) PartitionPredicate() (string, error) {
	h, err := c.keyed("partition_predicate")
	if err != nil {
		return "", err
	}
	return h.TablePartitionPredicate(c, c.Asset, c.Metadata, c.Partitions, c.PartitionKeys)
}

// PartitionFilters are the run's partition keys as delta-rs partition
// filters (one conjunction per key), typed as PartitionPredicate.
func (c *Context) PartitionFilters() ([][]scan.Filter, error) {
	h, err := c.keyed("partition_filters")
	if err != nil {
		return nil, err
	}
	return h.TablePartitionFilters(c, c.Asset, c.Metadata, c.Partitions, c.PartitionKeys)
}

// keyed is the handler for a helper (or verb) what that needs the run's
// keys mapped to partition columns.
func (c *Context) keyed(what string) (DeltaHandler, error) {
	h, err := c.Delta()
	if err != nil {
		return nil, err
	}
	if len(c.PartitionKeys) > 0 && c.Metadata[iohandler.KeyPartitionExpr] == "" {
		return nil, invalid("keyed %s on %q needs the %q metadata key to map the partition to the table's partition columns",
			what, c.Asset, iohandler.KeyPartitionExpr)
	}
	return h, nil
}

// OpenTable opens the asset's table with the handler's storage options;
// ok is false (and err nil) when there is no table yet.
func (c *Context) OpenTable() (t *deltalite.Table, ok bool, err error) {
	uri, err := c.TableURI()
	if err != nil {
		return nil, false, err
	}
	so, _ := c.StorageOptions()
	t, err = deltalite.Open(c, uri, deltalite.WithStorageOptions(so))
	if errors.Is(err, deltalite.ErrTableNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return t, true, nil
}

// properties are the asset's resolved rewrite settings.
func (c *Context) properties() (iohandler.WriterProperties, iohandler.CommitProperties, error) {
	h, err := c.Delta()
	if err != nil {
		return iohandler.WriterProperties{}, iohandler.CommitProperties{}, err
	}
	return h.ResolvedProperties(c.Asset, c.Metadata)
}

type optimizeConfig struct {
	TargetSize int64    `json:"target_size"`
	ZOrderBy   []string `json:"z_order_by"`
}

func runOptimize(c *ActionContext) (ActionResult, error) {
	var cfg optimizeConfig
	if err := c.DecodeConfig(&cfg); err != nil {
		return ActionResult{}, err
	}
	opts := deltalite.OptimizeOptions{TargetFileSize: cfg.TargetSize, ZOrderBy: cfg.ZOrderBy}
	if len(c.PartitionKeys) > 0 {
		if _, err := c.keyed("optimize"); err != nil {
			return ActionResult{}, err
		}
	}
	t, ok, err := c.OpenTable()
	if err != nil || !ok {
		return ActionResult{}, err
	}
	if len(c.PartitionKeys) > 0 {
		dnf, err := c.PartitionFilters()
		if err != nil {
			return ActionResult{}, err
		}
		opts.PartitionFilters = append(opts.PartitionFilters, dnf...)
	}
	wp, cp, err := c.properties()
	if err != nil {
		return ActionResult{}, err
	}
	if opts.TargetFileSize == 0 {
		opts.TargetFileSize = wp.TargetFileSize
	}
	opts.CommitMetadata, opts.CommitMaxRetries = cp.CustomMetadata, cp.EngineRetries()
	if opts.SessionTimeZone, err = c.sessionTimeZone(); err != nil {
		return ActionResult{}, err
	}
	st, err := t.Optimize(c, opts)
	if err != nil {
		return ActionResult{}, err
	}
	return ActionResult{Status: StatusUnchanged, Metadata: map[string]any{
		"files_added": st.FilesAdded.TotalFiles, "files_removed": st.FilesRemoved.TotalFiles}}, nil
}

type vacuumConfig struct {
	RetentionHours           *int  `json:"retention_hours"`
	EnforceRetentionDuration *bool `json:"enforce_retention_duration"`
}

func runVacuum(c *ActionContext) (ActionResult, error) {
	var cfg vacuumConfig
	if err := c.DecodeConfig(&cfg); err != nil {
		return ActionResult{}, err
	}
	t, ok, err := c.OpenTable()
	if err != nil || !ok {
		return ActionResult{}, err
	}
	_, cp, err := c.properties()
	if err != nil {
		return ActionResult{}, err
	}
	opts := vacuum.Options{RetentionHours: cfg.RetentionHours, CommitMetadata: cp.CustomMetadata, CommitMaxRetries: cp.EngineRetries(),
		NoEnforceRetention: cfg.EnforceRetentionDuration != nil && !*cfg.EnforceRetentionDuration}
	st, err := t.Vacuum(c, opts)
	if err != nil {
		return ActionResult{}, err
	}
	return ActionResult{Status: StatusUnchanged, Metadata: map[string]any{"files_deleted": st.FilesDeleted}}, nil
}

func runDelete(c *ActionContext) (ActionResult, error) {
	if err := c.DecodeConfig(&struct{}{}); err != nil {
		return ActionResult{}, err
	}
	opts := deltalite.DeleteOptions{All: len(c.PartitionKeys) == 0} // a whole-asset delete empties the table
	if len(c.PartitionKeys) > 0 {
		if _, err := c.keyed("delete"); err != nil {
			return ActionResult{}, err
		}
		pred, err := c.PartitionPredicate()
		if err != nil {
			return ActionResult{}, err
		}
		opts.Predicate = pred
	}
	t, ok, err := c.OpenTable()
	if err != nil {
		return ActionResult{}, err
	}
	if !ok {
		return ActionResult{Status: StatusUnmaterialized}, nil // nothing to delete; the state still clears
	}
	wp, cp, err := c.properties()
	if err != nil {
		return ActionResult{}, err
	}
	opts.TargetFileSize, opts.CommitMetadata, opts.CommitMaxRetries = wp.TargetFileSize, cp.CustomMetadata, cp.EngineRetries()
	if opts.SessionTimeZone, err = c.sessionTimeZone(); err != nil {
		return ActionResult{}, err
	}
	st, err := t.Delete(c, opts)
	if err != nil {
		return ActionResult{}, err
	}
	return ActionResult{Status: StatusUnmaterialized, Metadata: map[string]any{"rows_deleted": st.RowsDeleted}}, nil
}
