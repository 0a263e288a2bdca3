package write

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Run writes src to the table snap shows as one commit, as opts ask, and
// returns the table as the write left it (the version it committed, or
// the one a skipped write found). snap is the table as the caller opened
// it, or the table the write creates (Empty): then the table and its rows
// are one commit, version 0. Nothing is visible until the commit; a
// failure leaves the table as it was and deletes the data files it wrote.
func Run(ctx context.Context, snap *snapshot.Snapshot, src array.RecordReader, wo Options) (Result, *snapshot.Snapshot, error) {
	if snap == nil {
		return Result{}, nil, errs.New(errs.InvalidArgument, "", "no table to write to")
	}
	uri := snap.Store().URL()
	if src == nil || src.Schema() == nil {
		return Result{}, nil, errs.New(errs.InvalidArgument, uri, "the source has no schema")
	}
	if err := wo.check(uri); err != nil {
		return Result{}, nil, err
	}
	if wo.Mode == "" {
		wo.Mode = ModeError
	}
	sess, err := op.Session(wo.SessionTimeZone)
	if err != nil {
		return Result{}, nil, err
	}
	w := &job{st: snap.Store(), src: src, wo: wo, snap: snap, sess: sess}
	if w.wo.Allocator == nil {
		w.wo.Allocator = arrowmem.Default
	}
	var res *Result
	switch {
	case snap.IsEmpty():
		res, err = w.update(ctx)
	case wo.Mode == ModeError:
		err = errs.New(errs.TableExists, uri, "a Delta table exists here (version %d); use mode append, overwrite or ignore", snap.Version())
	case wo.Mode == ModeIgnore && wo.IgnoreWhere == "":
		res = &Result{Version: snap.Version(), Skipped: true, post: snap}
	case wo.Mode == ModeCreateOrReplace:
		res, err = w.replace(ctx)
	default:
		res, err = w.update(ctx)
	}
	if err != nil {
		return Result{}, nil, err
	}
	post := res.post
	res.post = nil
	return *res, post, nil
}

// check refuses options no table could take, before anything is read.
func (wo Options) check(uri string) error {
	switch wo.Mode {
	case "", ModeAppend, ModeOverwrite, ModeError, ModeIgnore, ModeCreateOrReplace:
	default:
		return errs.New(errs.InvalidArgument, uri, "unknown write mode %q (use append, overwrite, error, ignore or create_or_replace)", wo.Mode)
	}
	switch wo.SchemaMode {
	case SchemaStrict, SchemaMerge:
	case SchemaOverwrite:
		if wo.Mode != ModeOverwrite {
			return errs.New(errs.InvalidArgument, uri, "schema mode overwrite needs mode overwrite")
		}
	default:
		return errs.New(errs.InvalidArgument, uri, "unknown schema mode %q (use merge or overwrite)", wo.SchemaMode)
	}
	if wo.ReplaceWhere != "" && wo.Mode != ModeOverwrite {
		return errs.New(errs.InvalidArgument, uri, "a replace-where predicate needs mode overwrite")
	}
	if wo.IgnoreWhere != "" && wo.Mode != ModeIgnore {
		return errs.New(errs.InvalidArgument, uri, "an ignore-where predicate (Options.IgnoreWhere) needs mode ignore, not %q", wo.Mode)
	}
	return nil
}

// job is one write: what it was asked and what planning learned.
type job struct {
	st   storage.Store
	src  array.RecordReader
	wo   Options
	snap *snapshot.Snapshot
	// replace is the bound replace-where predicate of an overwrite, and
	// rewrite the files it selects in part (their other rows are kept).
	replaceWhere *replaceWhere
	rewrite      []*protocol.Add
	copiedRows   int64              // rows of w.rewrite written again
	replaced     []*protocol.Remove // the removes of the replace-where's change (op.Write)
	cdc          []*protocol.CDC    // and its change data files
	// ignore is the IgnoreWhere predicate bound to the table the write
	// decided to append to.
	ignore *ignoreWhere
	// rules are the table's rules of new rows, which every source row
	// goes through (writeFiles); given says which columns the source gave.
	rules *colrules.Rules
	given func(string) bool
	// numberedAfter is the metaData whose identity high watermarks the
	// rows were numbered after, once an append numbered them again
	// (renumber); nil: the snapshot's.
	numberedAfter *protocol.Metadata
	// sess is the session of wo.SessionTimeZone, its predicates and the
	// table's rules bound in it.
	sess expr.Session
}

func (w *job) txnOptions() txn.Options {
	return txn.Options{MaxRetries: w.wo.CommitMaxRetries, Metadata: w.wo.CommitMetadata}
}

// update appends to or overwrites an existing table, or fills one being
// created.
func (w *job) update(ctx context.Context) (*Result, error) {
	snap := w.snap
	if skip, err := w.skips(ctx, snap); err != nil || skip {
		if err != nil {
			return nil, err
		}
		return &Result{Version: snap.Version(), Skipped: true, post: snap}, nil
	}
	if len(w.wo.PartitionBy) > 0 {
		want, err := op.PartitionColumns(snap.Schema(), w.wo.PartitionBy)
		if err != nil || !slices.Equal(want, snap.PartitionColumns()) {
			return nil, errs.New(errs.SchemaMismatch, w.st.URL(), "the table is partitioned by [%s], not [%s]",
				strings.Join(snap.PartitionColumns(), ", "), strings.Join(w.wo.PartitionBy, ", "))
		}
	}
	if len(w.wo.ClusterBy) > 0 && !snap.IsEmpty() {
		if err := checkClusteringKept(snap, w.wo.ClusterBy); err != nil {
			return nil, err
		}
	}
	if !snap.IsEmpty() {
		if err := w.checkPropertiesKept(snap); err != nil {
			return nil, err
		}
	}
	md, err := w.metadataFor(snap)
	if err != nil {
		return nil, err
	}
	target, err := schema.Parse(md.SchemaString)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, w.st.URL(), err, "table schema")
	}
	if w.wo.Mode == ModeOverwrite && w.wo.ReplaceWhere != "" {
		if err := w.planReplaceWhere(snap); err != nil {
			return nil, err
		}
	}
	op := w.operation(snap)
	if err := txn.CheckWritable(snap, op); err != nil {
		return nil, err
	}
	res := &Result{Created: snap.IsEmpty()}
	adds, err := w.writeFiles(ctx, target, md, res)
	if err != nil {
		return nil, err
	}
	// What a failed commit leaves to delete: the data files and the
	// change data files.
	written := slices.Clip(adds)
	for _, f := range w.cdc {
		written = append(written, &protocol.Add{Path: f.Path})
	}
	// The identity values the rows took advance the high watermark in
	// the same commit.
	if md, err = w.rules.Metadata(md, snap.ColumnMapping()); err != nil {
		datafile.DeleteAdded(ctx, w.st, written)
		return nil, err
	}
	op.RewritesRows = w.copiedRows > 0
	if snap.IsEmpty() && len(adds) == 0 && op.Name == txn.OpWrite {
		op = withClusterBy(snap, txn.Operation{Name: txn.OpCreateTable, Parameters: map[string]any{"partitionBy": md.PartitionColumns}, KeepsColumnRules: true})
	}
	for renumbers := 0; ; {
		p, err := w.commitPinned(ctx, snap, md, op, adds, res)
		if err == nil && p.skipped != nil {
			datafile.DeleteAdded(ctx, w.st, written)
			return &Result{Version: p.skipped.Version(), Skipped: true, post: p.skipped}, nil
		}
		if err == nil {
			res.Version, res.Warnings, res.post = p.res.Version, p.res.Warnings, p.res.Snapshot
			return res, nil
		}
		if snap.IsEmpty() && errors.Is(err, errs.ErrTableExists) && !w.rules.Numbered() {
			// Another writer created the table first: append or
			// overwrite on top of it as if it had been there all along.
			var skip bool
			if snap, md, skip, err = w.onCreatedFirst(ctx, snap); err == nil {
				if skip {
					datafile.DeleteAdded(ctx, w.st, written)
					return &Result{Version: snap.Version(), Skipped: true, post: snap}, nil
				}
				res.Created, res.FilesRemoved = false, 0
				op = w.operation(snap)
				continue
			}
			// The commit did not land: another writer's table was there.
			datafile.DeleteAdded(ctx, w.st, written)
			return nil, err
		}
		if w.renumbers(err, snap, md) && renumbers < txn.Retries(w.wo.CommitMaxRetries) {
			// Another writer took the identity values this append gave its
			// rows: number them again past it and commit the same plan.
			renumbers++
			if perr := pause(ctx, renumbers); perr != nil {
				datafile.DeleteAdded(ctx, w.st, written)
				return nil, perr
			}
			again, rerr := w.renumber(ctx, snap, md, adds)
			datafile.DeleteAdded(ctx, w.st, written)
			if rerr != nil {
				return nil, rerr
			}
			adds, md, w.numberedAfter = again.adds, again.md, again.base
			written = slices.Clip(adds)
			res.FilesAdded, res.BytesWritten = len(adds), 0
			for _, a := range adds {
				res.BytesWritten += a.Size
			}
			continue
		}
		discard(ctx, w.st, written, err)
		return nil, err
	}
}

// discard deletes the data files of a commit that failed with err when the
// commit certainly did not land; after any other error (a lost response)
// it may have, so they stay, orphans for vacuum at worst.
func discard(ctx context.Context, st storage.Store, adds []*protocol.Add, err error) {
	if txn.NotLanded(err) {
		datafile.DeleteAdded(ctx, st, adds)
	}
}

// checkPropertiesKept refuses properties given for a write to an existing
// table that the table does not already have: they apply only when a
// write creates the table, and ignoring them would leave the caller
// believing, say, that change data feed is on. Properties the table has
// exactly as given are not checked again: the table holds them already
// (perhaps from an engine that checks less), and this write changes none.
func (w *job) checkPropertiesKept(snap *snapshot.Snapshot) error {
	given := map[string]string{}
	for k, v := range w.wo.Properties {
		if old, ok := snap.Properties()[k]; !ok || old != v {
			given[k] = v
		}
	}
	if len(given) == 0 {
		return nil
	}
	config, features, err := op.CheckProperties(w.st.URL(), given)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(config)) {
		if old, ok := snap.Properties()[k]; !ok || old != config[k] {
			has := "the table does not set it"
			if ok {
				has = "the table has " + old
			}
			return errs.New(errs.InvalidArgument, w.st.URL(), "table property %s = %s is not the table's (%s): properties apply when a write creates the table; use mode create_or_replace to change them",
				k, config[k], has)
		}
	}
	for _, f := range features {
		if !snap.Protocol().HasFeature(f) {
			return errs.New(errs.InvalidArgument, w.st.URL(), "the table protocol %s lacks the %s feature the properties ask for: properties apply when a write creates the table; use mode create_or_replace to change them",
				snap.Protocol(), f)
		}
	}
	return nil
}

// operation is the commit's operation as Spark names a write in this mode.
func (w *job) operation(snap *snapshot.Snapshot) txn.Operation {
	if snap.IsEmpty() && w.wo.Mode == ModeCreateOrReplace {
		return withClusterBy(snap, txn.Operation{Name: txn.OpCreateOrReplace, Parameters: map[string]any{"partitionBy": snap.PartitionColumns()}, KeepsColumnRules: true})
	}
	mode := map[Mode]string{ModeAppend: "Append", ModeOverwrite: "Overwrite"}[w.wo.Mode]
	if w.wo.Mode == ModeIgnore && !snap.IsEmpty() {
		mode = "Append" // an ignore-where write that found no row
	} else if mode == "" {
		mode = "ErrorIfExists"
	}
	op := txn.Operation{Name: txn.OpWrite, Parameters: map[string]any{"mode": mode, "partitionBy": snap.PartitionColumns()}}
	op.KeepsColumnRules = true // every source row goes through the rules; kept rows are unchanged
	if w.replaceWhere != nil {
		op.Parameters["predicate"] = w.replaceWhere.pred.String()
		op.WritesChangeData = true // its row change goes through op.Write
		op.KeepsRowIDs = true
	}
	return withClusterBy(snap, op)
}

// withClusterBy records a new clustered table's clustering columns in
// commitInfo (clusterBy), as Spark's CREATE TABLE ... CLUSTER BY does.
func withClusterBy(snap *snapshot.Snapshot, op txn.Operation) txn.Operation {
	if cols, _ := snap.ClusteringColumns(); snap.IsEmpty() && len(cols) > 0 {
		op.Parameters["clusterBy"] = cols
	}
	return op
}

// commit commits the written files to the table snap shows: with an
// overwrite, the files it replaces are removed in the same commit.
func (w *job) commit(ctx context.Context, snap *snapshot.Snapshot, md *protocol.Metadata, op txn.Operation, adds []*protocol.Add, res *Result) (*txn.Result, error) {
	t := txn.Begin(snap, op, w.txnOptions())
	if md != snap.Metadata() {
		t.Add(protocol.Action{Metadata: md})
	}
	metrics := writeMetrics(adds, res.RowsWritten+w.copiedRows)
	if w.wo.Mode == ModeOverwrite {
		removes := w.removals(snap)
		if w.wo.ReplaceWhere == "" {
			t.ReadWholeTable()
		} else {
			t.ReadPredicate(w.replaceWhere.selects, w.replaceWhere.pred.String())
		}
		if w.replaced != nil {
			for _, r := range w.replaced {
				t.Add(protocol.Action{Remove: r})
			}
		} else {
			now := time.Now().UnixMilli()
			for _, f := range removes {
				t.Add(protocol.Action{Remove: protocol.RemoveOf(f, now)})
			}
		}
		res.FilesRemoved = len(removes)
		w.removalMetrics(metrics, snap, removes)
	} else if w.ignore != nil && !snap.IsEmpty() {
		w.readIgnored(t)
	} else if !snap.IsEmpty() {
		// Advancing identity high watermarks keeps an append blind, as
		// Spark counts it (only adds, nothing read).
		t.SetBlindAppend(txn.OnlyHighWaterMarks(snap.Metadata(), md))
	}
	if w.numberedAfter != nil {
		t.NumberedAfter(w.numberedAfter)
	}
	t.Add(addActions(adds)...)
	for _, f := range w.cdc {
		t.Add(protocol.Action{CDC: f})
	}
	if w.wo.AppID != "" {
		t.SetAppTxn(w.wo.AppID, w.wo.AppVersion)
	}
	t.SetOperationMetrics(metrics)
	return t.Commit(ctx)
}

// removals are the live files an overwrite removes: all of them, or those
// a replace-where predicate selects in whole or in part.
func (w *job) removals(snap *snapshot.Snapshot) []*protocol.Add {
	var out []*protocol.Add
	for _, f := range snap.Files() {
		if w.replaceWhere == nil || w.replaceWhere.selects(f) {
			out = append(out, f)
		}
	}
	return out
}

// writeMetrics are Spark's WRITE operationMetrics for the files added.
func writeMetrics(adds []*protocol.Add, rows int64) map[string]any {
	var bytes int64
	for _, a := range adds {
		bytes += a.Size
	}
	return map[string]any{"numFiles": len(adds), "numOutputRows": rows, "numOutputBytes": bytes}
}

// removalMetrics adds what an overwrite removed, as Spark reports it for
// an overwrite (files, bytes) and a replace-where (rows deleted and
// copied; no change data files are written).
func (w *job) removalMetrics(m map[string]any, snap *snapshot.Snapshot, removes []*protocol.Add) {
	var bytes, rows int64
	rowsKnown := true
	for _, f := range removes {
		bytes += f.Size
		n := stats.Parse(f.Stats, snap.Schema(), snap.ColumnMapping()).NumRecords
		if n < 0 {
			rowsKnown = false
		}
		if f.DeletionVector != nil {
			n -= f.DeletionVector.Cardinality
		}
		rows += n
	}
	m["numRemovedFiles"], m["numRemovedBytes"] = len(removes), bytes
	if w.replaceWhere != nil {
		m["numCopiedRows"], m["numAddedChangeFiles"] = w.copiedRows, len(w.cdc)
		if rowsKnown {
			m["numDeletedRows"] = rows - w.copiedRows
		}
	}
}

// onCreatedFirst re-targets a create that lost the race to another
// creator. An append or an overwrite goes on top of the winner's table
// when the files already written fit it: the same partitioning, no column
// mapping (whose physical names differ between tables), and a schema this
// write could have appended to (with SchemaMerge, the evolved schema is
// committed too). Mode ignore skips, or with IgnoreWhere decides on the
// winner's table and appends as an append would. Anything else keeps the
// deltalite.ErrTableExists error.
func (w *job) onCreatedFirst(ctx context.Context, empty *snapshot.Snapshot) (*snapshot.Snapshot, *protocol.Metadata, bool, error) {
	exists := errs.New(errs.TableExists, w.st.URL(), "another writer created the table first")
	if w.wo.Mode == ModeIgnore && w.wo.IgnoreWhere == "" {
		snap, err := snapshot.Load(ctx, w.st)
		return snap, nil, err == nil, err
	}
	if w.wo.Mode != ModeAppend && w.wo.Mode != ModeIgnore && (w.wo.Mode != ModeOverwrite || w.wo.ReplaceWhere != "") {
		return nil, nil, false, exists
	}
	snap, err := snapshot.Load(ctx, w.st)
	if err != nil {
		return nil, nil, false, err
	}
	if skip, err := w.skips(ctx, snap); err != nil || skip {
		return snap, nil, skip, err
	}
	if !slices.Equal(snap.PartitionColumns(), empty.PartitionColumns()) || snap.ColumnMapping() != schema.MappingNone || empty.ColumnMapping() != schema.MappingNone {
		return nil, nil, false, errs.New(errs.TableExists, w.st.URL(),
			"another writer created the table first, partitioned by [%s] with column mapping %q; this write's files do not fit it: write again",
			strings.Join(snap.PartitionColumns(), ", "), snap.ColumnMapping())
	}
	mine := empty.Schema()
	merged, changed, err := schema.Merge(snap.Schema(), mine, schema.MergeOptions{})
	if err == nil {
		for _, f := range mine.Fields {
			if tf := merged.Field(f.Name); tf == nil || tf.Type.String() != f.Type.String() {
				err = fmt.Errorf("column %s is %s in the table, %s in this write", f.Name, tf.Type, f.Type)
				break
			}
		}
	}
	if err == nil && changed && w.wo.SchemaMode != SchemaMerge {
		err = fmt.Errorf("this write has columns or nulls the table's schema does not allow (use schema mode merge to add them)")
	}
	if err != nil {
		return nil, nil, false, errs.Wrap(errs.SchemaMismatch, w.st.URL(), err, "another writer created the table first")
	}
	md := snap.Metadata()
	if changed {
		next := *md
		next.SchemaString = merged.JSON()
		md = &next
	}
	return snap, md, false, nil
}

// metadataFor is the metaData the write commits to snap: snap's own (the
// same pointer, so the commit adds none) unless the schema mode evolves an
// existing table's schema. A table being created has the metaData it was
// made with.
func (w *job) metadataFor(snap *snapshot.Snapshot) (*protocol.Metadata, error) {
	if snap.IsEmpty() {
		return snap.Metadata(), nil
	}
	src, err := op.SourceSchema(w.st.URL(), w.src.Schema())
	if err != nil {
		return nil, err
	}
	var next *schema.Struct
	switch w.wo.SchemaMode {
	case SchemaOverwrite:
		next = src
		for _, c := range snap.PartitionColumns() {
			if next.Field(c) == nil {
				return nil, errs.New(errs.SchemaMismatch, w.st.URL(), "the new schema lacks partition column %q", c)
			}
		}
	case SchemaMerge:
		merged, changed, err := schema.Merge(snap.Schema(), src, schema.MergeOptions{Widen: protocol.TypeWidening(snap.Protocol(), snap.Metadata()),
			Preview: protocol.TypeWideningPreview(snap.Protocol())})
		if err != nil {
			return nil, errs.Wrap(errs.SchemaMismatch, w.st.URL(), err, "merging schemas")
		}
		if !changed {
			return snap.Metadata(), nil
		}
		if next, err = op.WidenTypes(w.st.URL(), snap.Protocol(), snap.Metadata(), merged); err != nil {
			return nil, err
		}
	default:
		return snap.Metadata(), nil
	}
	return snap.Metadata().WithSchema(next, snap.ColumnMapping()), nil
}

// writeFiles streams the source through the data-file writer; an
// overwrite with a replace-where predicate hands the spine its change
// (replaceRows).
func (w *job) writeFiles(ctx context.Context, sc *schema.Struct, md *protocol.Metadata, res *Result) ([]*protocol.Add, error) {
	check, err := w.rowCheck(ctx, sc, md)
	if err != nil {
		return nil, err
	}
	if w.rules, err = colrules.For(md, sc, w.sess); err != nil {
		return nil, errs.Wrap(errs.UnsupportedTable, w.st.URL(), err, "writing")
	}
	w.given = colrules.Given(w.src.Schema())
	given, relaxed := w.given, w.rules.Relaxed(sc)
	source := func(write func(arrow.RecordBatch) error) error {
		for w.src.Next() {
			rec, err := datafile.Conform(w.src.RecordBatch(), relaxed, w.wo.Allocator)
			if err == nil {
				var ruled arrow.RecordBatch
				ruled, err = w.rules.Insert(ctx, rec, given)
				rec.Release()
				rec = ruled
				if err != nil {
					err = errs.Wrap(errs.InvalidArgument, w.st.URL(), err, "nothing was written")
				}
			}
			if err == nil && check != nil {
				err = check(rec)
			}
			if err == nil {
				err = write(rec)
			}
			if rec != nil {
				res.RowsWritten += rec.NumRows()
				rec.Release()
			}
			if err != nil {
				return err
			}
		}
		if err := w.src.Err(); err != nil {
			return errs.Wrap(errs.InvalidArgument, w.st.URL(), err, "reading the source")
		}
		return nil
	}
	var adds []*protocol.Add
	if w.replaceWhere != nil {
		adds, err = w.replaceRows(ctx, sc, source)
	} else {
		adds, err = w.appendRows(ctx, sc, md, source)
	}
	if err != nil {
		return nil, err
	}
	for _, a := range adds {
		res.BytesWritten += a.Size
	}
	res.FilesAdded = len(adds)
	return adds, nil
}

// appendRows writes the source rows into new data files.
func (w *job) appendRows(ctx context.Context, sc *schema.Struct, md *protocol.Metadata, source func(func(arrow.RecordBatch) error) error) ([]*protocol.Add, error) {
	if len(md.PartitionColumns) == 0 {
		// One open file: the writer's buffers bound what it holds, the row
		// group being encoded (and its encoded pages) included. A write to
		// many partitions also holds each open file's encoder, which no
		// knob bounds as tightly: it declares nothing (limits/heap.go).
		heapUse := limits.ExpectHeap(2 * datafile.DefaultMaxUnwrittenBytes)
		defer heapUse.Done()
	}
	mode, err := schema.ParseMode(md.Configuration[protocol.PropColumnMappingMode])
	if err != nil {
		return nil, errs.Wrap(errs.UnsupportedTable, w.st.URL(), err, "column mapping")
	}
	fw, err := datafile.NewWriter(ctx, w.st, datafile.Options{
		Schema:           sc,
		PartitionColumns: md.PartitionColumns,
		ColumnMapping:    mode,
		Properties:       protocol.Properties(md.Configuration),
		TargetFileSize:   w.wo.TargetFileSize,
		Compression:      w.wo.Compression,
		DataChange:       true,
		Allocator:        w.wo.Allocator,
	})
	if err != nil {
		return nil, err
	}
	if err := source(fw.Write); err != nil {
		_ = fw.Abort(ctx)
		return nil, err
	}
	adds, err := fw.Close()
	if err != nil {
		_ = fw.Abort(ctx)
		return nil, err
	}
	return adds, nil
}

func addActions(adds []*protocol.Add) []protocol.Action {
	out := make([]protocol.Action, len(adds))
	for i, a := range adds {
		out[i] = protocol.Action{Add: a}
	}
	return out
}

// checkClusteringKept refuses a write to an existing table naming
// clustering columns other than the table's, as Spark's append with
// clusterBy does (ClusteredTableUtils.validateClusteringColumnsInSnapshot).
func checkClusteringKept(snap *snapshot.Snapshot, clusterBy []string) error {
	have, err := snap.ClusteringColumns()
	if err != nil {
		return errs.Wrap(errs.CorruptTable, snap.Store().URL(), err, "clustering columns")
	}
	same := len(have) == len(clusterBy)
	for i := 0; same && i < len(have); i++ {
		same = strings.EqualFold(have[i], strings.TrimSpace(clusterBy[i]))
	}
	if !same {
		return errs.New(errs.SchemaMismatch, snap.Store().URL(), "the table is clustered by [%s], not [%s]; change its clustering with alter --cluster-by",
			strings.Join(have, ", "), strings.Join(clusterBy, ", "))
	}
	return nil
}
