package optimize

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/extsort"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/zorder"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Tags of the add actions a z-order writes, as Delta on Databricks records
// them (AddFile.Tags ZCUBE_ID, ZCUBE_ZORDER_BY, ZCUBE_ZORDER_CURVE): the
// run that wrote the file, its columns as a JSON array, and the curve.
const (
	TagZCubeID     = "ZCUBE_ID"
	TagZOrderBy    = "ZCUBE_ZORDER_BY"
	TagZOrderCurve = "ZCUBE_ZORDER_CURVE"
	zOrderCurve    = "zorder"
)

// zOrderBatchShare is the share of the sort budget one decoded batch takes
// at most, so that a batch is small next to what the sort holds.
const zOrderBatchShare = 16

// zOrderColumns resolves the ZOrderBy (or clustering) names against the
// table: each a top-level column, or a field of struct columns (s.a, as
// schema.ParseColumnPath reads it), not a partition column, of a type
// z-order encodes, with min/max statistics in the table's statistics
// columns; it returns their logical paths and the JSON array of their
// dotted names that records them (Spark's ZCUBE_ZORDER_BY: ["s.a","id"]).
func zOrderColumns(snap *snapshot.Snapshot, names []string) ([][]string, string, error) {
	sc := snap.Schema()
	bad := func(format string, args ...any) error { return errs.New(errs.InvalidArgument, "", format, args...) }
	var paths [][]string
	var dotted []string
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, "", bad("z-order by: an empty column name (give columns as c1,c2)")
		}
		fields, err := zOrderField(sc, name)
		if err != nil {
			return nil, "", err
		}
		f := fields[len(fields)-1]
		path := make([]string, len(fields))
		for i, f := range fields {
			path[i] = f.Name
		}
		logical := schema.QuoteColumnPath(path)
		for _, p := range snap.PartitionColumns() {
			if strings.EqualFold(p, logical) {
				return nil, "", bad("z-order by %q: it is a partition column; z-order only by data columns (each partition is z-ordered on its own)", logical)
			}
		}
		if slices.ContainsFunc(dotted, func(d string) bool { return strings.EqualFold(d, logical) }) {
			return nil, "", bad("z-order by %q: the column is named twice", logical)
		}
		dt, err := schema.ToArrow(&schema.Struct{Fields: []*schema.Field{f}}, schema.ArrowOptions{})
		if err != nil {
			return nil, "", errs.Wrap(errs.InvalidArgument, "", err, "z-order by %q", logical)
		}
		if err := zorder.Supported(dt.Field(0).Type); err != nil {
			return nil, "", errs.Wrap(errs.InvalidArgument, "", err, "z-order by %q", logical)
		}
		ok, err := datafile.HasMinMax(sc, snap.PartitionColumns(), snap.ColumnMapping(), protocol.Properties(snap.Properties()), path)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", bad("z-order by %q: the table collects no min/max statistics for it, so z-ordering by it cannot skip files; "+
				"add it to %s or raise %s to cover it", logical, protocol.PropDataSkippingStatsColumns, protocol.PropDataSkippingNumIndexedCols)
		}
		paths = append(paths, path)
		dotted = append(dotted, logical)
	}
	if len(paths) == 0 {
		return nil, "", bad("z-order by: the column list is empty; name the columns to z-order by (c1,c2)")
	}
	js, err := json.Marshal(dotted)
	if err != nil {
		return nil, "", errs.Wrap(errs.Internal, "", err, "z-order by")
	}
	return paths, string(js), nil
}

// zOrderField resolves a z-order name to the fields along its path.
func zOrderField(sc *schema.Struct, name string) ([]*schema.Field, error) {
	fields, err := sc.ColumnPath(name)
	if err == nil {
		return fields, nil
	}
	if path, perr := schema.ParseColumnPath(name); perr == nil && len(path) == 1 {
		return nil, errs.New(errs.InvalidArgument, "", "z-order by %q: no such column in the table (columns: %s)", name, columnList(sc))
	}
	return nil, errs.New(errs.InvalidArgument, "", "z-order by %q: %v (columns: %s)", name, err, columnList(sc))
}

// zOrderIndices are the positions of a z-order column's fields in the
// logical Arrow schema: the top-level column, then each struct's child.
func zOrderIndices(sc *arrow.Schema, path []string) ([]int, error) {
	idx := sc.FieldIndices(path[0])
	if len(idx) != 1 {
		return nil, errs.New(errs.Internal, "", "z-order column %q is not in the table's Arrow schema once", path[0])
	}
	out := []int{idx[0]}
	dt := sc.Field(idx[0]).Type
	for _, n := range path[1:] {
		st, ok := dt.(*arrow.StructType)
		if !ok {
			return nil, errs.New(errs.Internal, "", "z-order column %s: %s is not a struct", schema.QuoteColumnPath(path), dt)
		}
		k, ok := st.FieldIdx(n)
		if !ok {
			return nil, errs.New(errs.Internal, "", "z-order column %s: no field %q", schema.QuoteColumnPath(path), n)
		}
		out = append(out, k)
		dt = st.Field(k).Type
	}
	return out, nil
}

func columnList(sc *schema.Struct) string {
	names := make([]string, len(sc.Fields))
	for i, f := range sc.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// zOrdered reports whether a file was written by a z-order by exactly
// these columns (zOrderBy, the JSON array) and is untouched since: a
// rewrite of its rows (DELETE, UPDATE, MERGE) writes a new file without
// the tags, and a deletion vector marks rows removed after the z-order.
func zOrdered(a *protocol.Add, zOrderBy string) bool {
	return a.DeletionVector == nil && a.Tags[TagZCubeID] != "" && a.Tags[TagZOrderBy] == zOrderBy
}

// planZOrder makes one bin per selected partition of the files to
// z-order: every live file, less (unless force) those an earlier z-order
// by the same columns wrote and nothing touched since. Those stay as they
// are, so that a run after appends orders only the new files (into a
// z-cube of their own), and a run with nothing new rewrites nothing.
func planZOrder(snap *snapshot.Snapshot, parts []*partition, zOrderBy string, force bool) compaction {
	return planCubes(snap, parts, func(a *protocol.Add) bool { return !force && zOrdered(a, zOrderBy) })
}

// planCubes makes one bin (one z-cube to write) per selected partition of
// its live files but those that stay.
func planCubes(snap *snapshot.Snapshot, parts []*partition, stays func(*protocol.Add) bool) compaction {
	var c compaction
	for _, p := range parts {
		c.considered += len(p.files)
		b := &bin{partition: p}
		for _, a := range p.files {
			if !stays(a) {
				b.files = append(b.files, a)
				b.bytes += a.Size
			}
		}
		c.skipped += len(p.files) - len(b.files)
		if len(b.files) == 0 {
			continue
		}
		b.rows = liveRows(snap, b.files)
		c.bins = append(c.bins, b)
		c.partitions++
	}
	return c
}

// zOrderBin rewrites one bin's rows sorted along the z-curve of the
// z-order columns. The engine's readers hand each batch to the sorter
// (writing none of it), then its Append writes the sorted rows through
// the same writer, into files of about equal size near the target; the
// engine keeps its guarantees (budgets, deletion vectors applied, files
// of a failure deleted). The adds are tagged as one z-cube; spilled is
// what the sort wrote to temporary files.
func (c *config) zOrderBin(ctx context.Context, snap *snapshot.Snapshot, b *bin, ro rewrite.Options, sortBytes int64) (_ op.Written, spilled int64, err error) {
	logical, err := schema.ToArrow(snap.Schema(), schema.ArrowOptions{})
	if err != nil {
		return op.Written{}, 0, errs.Wrap(errs.InvalidArgument, "", err, "table schema")
	}
	// With row tracking the rows are sorted with their identity, which
	// the writer keeps (rewrite.Batch.WithIdentity).
	identity, err := rewrite.IdentityFields(snap)
	if err != nil {
		return op.Written{}, 0, err
	}
	sorted := arrow.NewSchema(append(logical.Fields(), identity...), nil)
	sorter, err := extsort.New(ctx, sorted, extsort.Options{MaxBytes: sortBytes, TempDir: c.TempDir, Allocator: ro.Allocator})
	if err != nil {
		return op.Written{}, 0, err
	}
	defer sorter.Close()
	idx := make([][]int, len(c.zCols))
	for i, path := range c.zCols {
		if idx[i], err = zOrderIndices(logical, path); err != nil {
			return op.Written{}, 0, err
		}
	}
	if b.rows > 0 {
		// Batches small next to the sort budget: decoded rows take about
		// four times their Parquet bytes.
		perRow := max(4*float64(b.bytes)/float64(b.rows), 1)
		ro.ReadBatchSize = min(cmp.Or(ro.ReadBatchSize, DefaultReadBatchSize), max(int(float64(sortBytes/zOrderBatchShare)/perRow), 1))
	}
	var mu sync.Mutex // readers of several files may call at once
	sortRows := func(_ context.Context, bt rewrite.Batch) (rewrite.Output, error) {
		cols := make([]arrow.Array, 0, len(idx))
		defer func() {
			for _, a := range cols {
				a.Release()
			}
		}()
		for _, path := range idx {
			a, err := zorder.Field(bt.Rec, path)
			if err != nil {
				return rewrite.Output{}, err
			}
			cols = append(cols, a)
		}
		keys, err := zorder.Keys(cols)
		if err != nil {
			return rewrite.Output{}, errs.Wrap(errs.InvalidArgument, bt.File.Path, err, "z-order")
		}
		rows := bt.WithIdentity()
		defer rows.Release()
		mu.Lock()
		defer mu.Unlock()
		if err := sorter.Add(rows, keys); err != nil {
			return rewrite.Output{}, err
		}
		return rewrite.Output{Keep: make([]bool, bt.Rec.NumRows())}, nil // written sorted by Append
	}
	emit := func(_ context.Context, write func(arrow.RecordBatch) error) error { return sorter.Emit(write) }
	res, err := op.Write(ctx, snap, op.Change{Files: b.files, Rows: sortRows, Insert: emit, Rearrange: true}, ro)
	if err != nil {
		return op.Written{}, 0, err
	}
	if err := sorter.Close(); err != nil {
		deleteAdded(ctx, snap, res.Adds)
		return op.Written{}, 0, err
	}
	res.RowsKept, res.RowsDropped, res.RowsAppended = res.RowsAppended, 0, 0
	cube := uuid.NewString()
	for _, a := range res.Adds {
		if a.Tags == nil {
			a.Tags = map[string]string{}
		}
		a.Tags[TagZCubeID] = cube
		a.Tags[TagZOrderBy] = c.zOrderBy
		a.Tags[TagZOrderCurve] = zOrderCurve
		if c.clustering {
			provider := protocol.ClusteringProviderLiquid
			a.ClusteringProvider = &provider
		}
	}
	return res, sorter.Stats().SpilledBytes, nil
}
