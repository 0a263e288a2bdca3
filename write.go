package deltalite

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/deltalite-go/deltalite/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/stats"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/txn"
)

// WriteMode says what Write does when the table exists (or not).
type WriteMode string

const (
	// ModeAppend adds rows; it creates the table when there is none.
	ModeAppend WriteMode = "append"
	// ModeOverwrite replaces the table's rows, or only those ReplaceWhere
	// selects; it creates the table when there is none.
	ModeOverwrite WriteMode = "overwrite"
	// ModeError fails with ErrTableExists when the table exists.
	ModeError WriteMode = "error"
	// ModeIgnore writes nothing when the table exists.
	ModeIgnore WriteMode = "ignore"
	// ModeCreateOrReplace replaces schema, partitioning, properties and
	// rows in one commit, keeping the history.
	ModeCreateOrReplace WriteMode = "create_or_replace"
)

// SchemaMode says how Write treats a source schema that differs from the
// table's.
type SchemaMode string

const (
	// SchemaStrict (the default) requires the source to fit the table.
	SchemaStrict SchemaMode = ""
	// SchemaMerge adds new source columns (nullable) and relaxes
	// nullability, in the same commit as the data.
	SchemaMerge SchemaMode = "merge"
	// SchemaOverwrite replaces the schema; only with ModeOverwrite.
	SchemaOverwrite SchemaMode = "overwrite"
)

// WriteOptions configure Write. An empty Mode means ModeError, as in
// delta-rs's write_deltalake, so that nothing is changed by accident.
type WriteOptions struct {
	Mode       WriteMode
	SchemaMode SchemaMode
	// PartitionBy names partition columns for a new table (or a
	// create_or_replace); for an existing table it must match, if given.
	PartitionBy []string
	// ReplaceWhere limits an overwrite to the rows the SQL predicate
	// selects, e.g. `day = '2026-01-01'`. Written rows must satisfy it.
	ReplaceWhere string
	// Properties are table properties for a new table (delta.* and user
	// keys), checked as Delta checks them; a property that needs a table
	// feature adds it, or is refused when this engine cannot write the
	// feature. For an existing table they must be the table's own.
	Properties map[string]string
	// Name and Description of a new table.
	Name, Description string
	// TargetFileSize overrides delta.targetFileSize (bytes).
	TargetFileSize int64
	// Compression of data files: "snappy" (default) or "zstd" (also gzip, lz4, none).
	Compression string
	// CommitMaxRetries bounds retries after lost commit races (default 15).
	CommitMaxRetries int
	// CommitMetadata is merged into commitInfo.
	CommitMetadata map[string]any
	// AppID and AppVersion make the write idempotent: a write whose
	// (AppID, AppVersion) the table has already seen is skipped.
	AppID      string
	AppVersion int64
	// Allocator for Arrow buffers (default Go allocator).
	Allocator memory.Allocator
}

// WriteResult reports a write.
type WriteResult struct {
	Version      int64 // the version committed (or the current one when skipped)
	Created      bool  // the write created the table
	Skipped      bool  // nothing was written (ModeIgnore on an existing table, or an AppID/AppVersion already applied)
	FilesAdded   int
	FilesRemoved int
	RowsWritten  int64
	BytesWritten int64
	Warnings     []error // failures after the commit (checkpoint, log cleanup); the commit stands
}

// Write writes a stream of record batches to the Delta table at uri as one
// commit, creating the table when the mode allows. Nothing is visible
// until the commit; a failure leaves the table as it was (data files
// written before the failure are orphans that vacuum removes).
func Write(ctx context.Context, uri string, src array.RecordReader, wo WriteOptions, opts ...Option) (*WriteResult, error) {
	return write1(ctx, uri, src, nil, wo, opts)
}

// CreateOptions configure Create.
type CreateOptions struct {
	PartitionBy []string
	// Properties are checked as WriteOptions.Properties for a new table.
	Properties        map[string]string
	Name, Description string
	CommitMetadata    map[string]any
}

// Create makes an empty table with the given schema at uri; it fails with
// ErrTableExists when a table is there already.
func Create(ctx context.Context, uri string, sc *schema.Struct, co CreateOptions, opts ...Option) (*Table, error) {
	if sc == nil || len(sc.Fields) == 0 {
		return nil, errs.New(errs.InvalidArgument, uri, "a table needs at least one column")
	}
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, uri, err, "schema")
	}
	empty, err := array.NewRecordReader(as, nil)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, uri, err, "empty source")
	}
	defer empty.Release()
	wo := WriteOptions{Mode: ModeError, PartitionBy: co.PartitionBy, Properties: co.Properties,
		Name: co.Name, Description: co.Description, CommitMetadata: co.CommitMetadata}
	if _, err := write1(ctx, uri, empty, sc, wo, opts); err != nil {
		return nil, err
	}
	return Open(ctx, uri, opts...)
}

func write1(ctx context.Context, uri string, src array.RecordReader, sc *schema.Struct, wo WriteOptions, opts []Option) (*WriteResult, error) {
	if src == nil || src.Schema() == nil {
		return nil, errs.New(errs.InvalidArgument, uri, "the source has no schema")
	}
	if wo.Mode == "" {
		wo.Mode = ModeError
	}
	switch wo.Mode {
	case ModeAppend, ModeOverwrite, ModeError, ModeIgnore, ModeCreateOrReplace:
	default:
		return nil, errs.New(errs.InvalidArgument, uri, "unknown write mode %q (use append, overwrite, error, ignore or create_or_replace)", wo.Mode)
	}
	switch wo.SchemaMode {
	case SchemaStrict, SchemaMerge:
	case SchemaOverwrite:
		if wo.Mode != ModeOverwrite {
			return nil, errs.New(errs.InvalidArgument, uri, "schema mode overwrite needs mode overwrite")
		}
	default:
		return nil, errs.New(errs.InvalidArgument, uri, "unknown schema mode %q (use merge or overwrite)", wo.SchemaMode)
	}
	if wo.ReplaceWhere != "" && wo.Mode != ModeOverwrite {
		return nil, errs.New(errs.InvalidArgument, uri, "a replace-where predicate needs mode overwrite")
	}
	_, st, err := resolve(ctx, uri, opts)
	if err != nil {
		return nil, err
	}
	snap, err := snapshot.Load(ctx, st)
	if err != nil && !errors.Is(err, errs.ErrTableNotFound) {
		return nil, err
	}
	w := &writeJob{ctx: ctx, st: st, src: src, wo: wo, snap: snap, schema: sc}
	if w.wo.Allocator == nil {
		w.wo.Allocator = memory.DefaultAllocator
	}
	if snap == nil {
		return w.create()
	}
	switch wo.Mode {
	case ModeError:
		return nil, errs.New(errs.TableExists, st.URL(), "a Delta table exists here (version %d); use mode append, overwrite or ignore", snap.Version())
	case ModeIgnore:
		return &WriteResult{Version: snap.Version(), Skipped: true}, nil
	case ModeCreateOrReplace:
		return w.replace()
	}
	return w.update()
}

type writeJob struct {
	ctx  context.Context
	st   storage.Store
	src  array.RecordReader
	wo   WriteOptions
	snap *snapshot.Snapshot
	// schema is the schema of a new table when the caller gave it as Delta
	// types (Create); nil means: from the source's Arrow schema.
	schema *schema.Struct
	// replace is the bound replace-where predicate of an overwrite, and
	// rewrite the files it selects in part (their other rows are kept).
	replaceWhere *replaceWhere
	rewrite      []*protocol.Add
	copiedRows   int64 // rows of w.rewrite written again
}

func (w *writeJob) txnOptions() txn.Options {
	return txn.Options{MaxRetries: w.wo.CommitMaxRetries, Metadata: w.wo.CommitMetadata}
}

// newMetadata builds the metaData of a new (or replaced) table from the
// source schema and the options.
func (w *writeJob) newMetadata(id string) (*protocol.Metadata, *protocol.Protocol, error) {
	sc := w.schema
	if sc == nil {
		var err error
		if sc, err = schema.FromArrow(w.src.Schema()); err != nil {
			return nil, nil, errs.Wrap(errs.SchemaMismatch, w.st.URL(), err, "source schema")
		}
	}
	return newTable(w.st.URL(), id, sc, newTableOptions{PartitionBy: w.wo.PartitionBy, Properties: w.wo.Properties,
		Name: w.wo.Name, Description: w.wo.Description})
}

// newTableOptions describe a table to create.
type newTableOptions struct {
	PartitionBy       []string
	Properties        map[string]string
	Name, Description string
}

// newTable builds the protocol and metaData of a new table with schema sc
// (which it does not modify): partition columns resolved, column mapping
// ids assigned when a mapping mode is asked for, and the minimal protocol
// with the features the schema and properties need.
func newTable(uri, id string, sc *schema.Struct, o newTableOptions) (*protocol.Metadata, *protocol.Protocol, error) {
	sc = sc.Clone()
	parts, err := partitionColumns(sc, o.PartitionBy)
	if err != nil {
		return nil, nil, errs.Wrap(errs.InvalidArgument, uri, err, "partition columns")
	}
	props, features, err := checkProperties(uri, o.Properties)
	if err != nil {
		return nil, nil, err
	}
	mode, err := schema.ParseMode(props[protocol.PropColumnMappingMode])
	if err != nil {
		return nil, nil, errs.Wrap(errs.InvalidArgument, uri, err, "table properties")
	}
	if mode != schema.MappingNone {
		props[protocol.PropColumnMappingMaxID] = fmt.Sprint(schema.AssignColumnMapping(sc, 0))
	}
	p := protocol.MinimalProtocol(append(protocol.RequiredFeatures(sc, props), features...))
	if bad := protocol.UnsupportedReaderFeatures(&p); len(bad) > 0 {
		return nil, nil, errs.New(errs.UnsupportedTable, uri, "the table would need %s, which this engine cannot read", strings.Join(bad, ", "))
	}
	created := time.Now().UnixMilli()
	md := &protocol.Metadata{
		ID:               id,
		Format:           protocol.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString:     sc.JSON(),
		PartitionColumns: parts,
		Configuration:    props,
		CreatedTime:      &created,
	}
	if o.Name != "" {
		md.Name = &o.Name
	}
	if o.Description != "" {
		md.Description = &o.Description
	}
	return md, &p, nil
}

// checkProperties validates the table properties a write or create was
// given (protocol.CheckProperties), before any file is written: it returns
// the configuration to store and the table features the properties add.
func checkProperties(uri string, props map[string]string) (map[string]string, []string, error) {
	config, features, err := protocol.CheckProperties(props, txn.WritableFeature)
	var e *errs.Error
	if errors.As(err, &e) && e.Path == "" {
		e.Path = uri
	}
	return config, features, err
}

// partitionColumns resolves the requested partition columns against the
// schema (case-insensitively, keeping the schema's spelling).
func partitionColumns(sc *schema.Struct, names []string) ([]string, error) {
	out := []string{}
	for _, n := range names {
		f := sc.Field(strings.TrimSpace(n))
		if f == nil {
			return nil, fmt.Errorf("partition column %q is not in the schema (%s)", n, fieldNames(sc))
		}
		if slices.Contains(out, f.Name) {
			return nil, fmt.Errorf("partition column %q is listed twice", f.Name)
		}
		out = append(out, f.Name)
	}
	if len(out) > 0 && len(out) == len(sc.Fields) {
		return nil, fmt.Errorf("every column is a partition column: a table needs at least one data column")
	}
	return out, nil
}

func fieldNames(sc *schema.Struct) string {
	names := make([]string, len(sc.Fields))
	for i, f := range sc.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// create writes a new table: the rows are planned and written against the
// table about to be created (snapshot.Empty), so the table and its first
// files are one commit, version 0.
func (w *writeJob) create() (*WriteResult, error) {
	md, p, err := w.newMetadata(uuid.NewString())
	if err != nil {
		return nil, err
	}
	if w.snap, err = snapshot.Empty(w.st, p, md); err != nil {
		return nil, err
	}
	return w.update()
}

// update appends to or overwrites an existing table, or fills one being
// created.
func (w *writeJob) update() (*WriteResult, error) {
	snap := w.snap
	if w.wo.AppID != "" && txn.AppTxnApplied(snap, w.wo.AppID, w.wo.AppVersion) {
		return &WriteResult{Version: snap.Version(), Skipped: true}, nil
	}
	if len(w.wo.PartitionBy) > 0 {
		want, err := partitionColumns(snap.Schema(), w.wo.PartitionBy)
		if err != nil || !slices.Equal(want, snap.PartitionColumns()) {
			return nil, errs.New(errs.SchemaMismatch, w.st.URL(), "the table is partitioned by [%s], not [%s]",
				strings.Join(snap.PartitionColumns(), ", "), strings.Join(w.wo.PartitionBy, ", "))
		}
	}
	if !snap.IsEmpty() {
		if err := w.checkPropertiesKept(snap); err != nil {
			return nil, err
		}
	}
	md := snap.Metadata()
	if !snap.IsEmpty() {
		evolved, err := w.evolvedMetadata()
		if err != nil {
			return nil, err
		}
		if evolved != nil {
			md = evolved
		}
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
	res := &WriteResult{Created: snap.IsEmpty()}
	adds, err := w.writeFiles(target, md, res)
	if err != nil {
		return nil, err
	}
	op.RewritesRows = w.copiedRows > 0
	if snap.IsEmpty() && len(adds) == 0 && op.Name == txn.OpWrite {
		op = txn.Operation{Name: txn.OpCreateTable, Parameters: map[string]any{"partitionBy": md.PartitionColumns}}
	}
	for {
		r, err := w.commit(snap, md, op, adds, res)
		if err == nil {
			res.Version, res.Warnings = r.Version, r.Warnings
			return res, nil
		}
		if snap.IsEmpty() && errors.Is(err, errs.ErrTableExists) {
			// Another writer created the table first: append or
			// overwrite on top of it as if it had been there all along.
			var skip bool
			if snap, md, skip, err = w.onCreatedFirst(snap); err == nil {
				if skip {
					w.abort(adds)
					return &WriteResult{Version: snap.Version(), Skipped: true}, nil
				}
				res.Created, res.FilesRemoved = false, 0
				op = w.operation(snap)
				continue
			}
		}
		w.abort(adds)
		return nil, err
	}
}

// checkPropertiesKept refuses properties given for a write to an existing
// table that the table does not already have: they apply only when a
// write creates the table, and ignoring them would leave the caller
// believing, say, that change data feed is on.
func (w *writeJob) checkPropertiesKept(snap *snapshot.Snapshot) error {
	if len(w.wo.Properties) == 0 {
		return nil
	}
	config, features, err := checkProperties(w.st.URL(), w.wo.Properties)
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
func (w *writeJob) operation(snap *snapshot.Snapshot) txn.Operation {
	if snap.IsEmpty() && w.wo.Mode == ModeCreateOrReplace {
		return txn.Operation{Name: txn.OpCreateOrReplace, Parameters: map[string]any{"partitionBy": snap.PartitionColumns()}}
	}
	mode := map[WriteMode]string{ModeAppend: "Append", ModeOverwrite: "Overwrite"}[w.wo.Mode]
	if mode == "" {
		mode = "ErrorIfExists"
	}
	op := txn.Operation{Name: txn.OpWrite, Parameters: map[string]any{"mode": mode, "partitionBy": snap.PartitionColumns()}}
	if w.replaceWhere != nil {
		op.Parameters["predicate"] = w.replaceWhere.pred.String()
	}
	return op
}

// commit commits the written files to the table snap shows: with an
// overwrite, the files it replaces are removed in the same commit.
func (w *writeJob) commit(snap *snapshot.Snapshot, md *protocol.Metadata, op txn.Operation, adds []*protocol.Add, res *WriteResult) (*txn.Result, error) {
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
		now := time.Now().UnixMilli()
		for _, f := range removes {
			t.Add(protocol.Action{Remove: protocol.RemoveOf(f, now)})
		}
		res.FilesRemoved = len(removes)
		w.removalMetrics(metrics, snap, removes)
	} else if !snap.IsEmpty() {
		t.SetBlindAppend(md == snap.Metadata())
	}
	t.Add(addActions(adds)...)
	if w.wo.AppID != "" {
		t.SetAppTxn(w.wo.AppID, w.wo.AppVersion)
	}
	t.SetOperationMetrics(metrics)
	return t.Commit(w.ctx)
}

// removals are the live files an overwrite removes: all of them, or those
// a replace-where predicate selects in whole or in part.
func (w *writeJob) removals(snap *snapshot.Snapshot) []*protocol.Add {
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
func (w *writeJob) removalMetrics(m map[string]any, snap *snapshot.Snapshot, removes []*protocol.Add) {
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
		m["numCopiedRows"], m["numAddedChangeFiles"] = w.copiedRows, 0
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
// committed too). Mode ignore skips. Anything else keeps the
// errs.TableExists error.
func (w *writeJob) onCreatedFirst(empty *snapshot.Snapshot) (*snapshot.Snapshot, *protocol.Metadata, bool, error) {
	exists := errs.New(errs.TableExists, w.st.URL(), "another writer created the table first")
	if w.wo.Mode == ModeIgnore {
		snap, err := snapshot.Load(w.ctx, w.st)
		return snap, nil, err == nil, err
	}
	if w.wo.Mode != ModeAppend && (w.wo.Mode != ModeOverwrite || w.wo.ReplaceWhere != "") {
		return nil, nil, false, exists
	}
	snap, err := snapshot.Load(w.ctx, w.st)
	if err != nil {
		return nil, nil, false, err
	}
	if w.wo.AppID != "" && txn.AppTxnApplied(snap, w.wo.AppID, w.wo.AppVersion) {
		return snap, nil, true, nil
	}
	if !slices.Equal(snap.PartitionColumns(), empty.PartitionColumns()) || snap.ColumnMapping() != schema.MappingNone || empty.ColumnMapping() != schema.MappingNone {
		return nil, nil, false, errs.New(errs.TableExists, w.st.URL(),
			"another writer created the table first, partitioned by [%s] with column mapping %q; this write's files do not fit it: write again",
			strings.Join(snap.PartitionColumns(), ", "), snap.ColumnMapping())
	}
	mine := empty.Schema()
	merged, changed, err := schema.Merge(snap.Schema(), mine)
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

// replace is create_or_replace on an existing table: new metadata (same
// table id), every old file removed, the new ones added, one commit.
func (w *writeJob) replace() (*WriteResult, error) {
	md, p, err := w.newMetadata(w.snap.Metadata().ID)
	if err != nil {
		return nil, err
	}
	op := txn.Operation{Name: txn.OpCreateOrReplace, Parameters: map[string]any{"partitionBy": md.PartitionColumns}}
	if err := txn.CheckWritable(w.snap, op); err != nil {
		return nil, err
	}
	// Never downgrade the protocol: keep every old feature too.
	old := w.snap.Protocol()
	if old.MinReaderVersion > p.MinReaderVersion || old.MinWriterVersion > p.MinWriterVersion || len(protocol.DroppedFeatures(old, p)) > 0 {
		merged := protocol.MinimalProtocol(slices.Concat(p.EffectiveWriterFeatures(), p.EffectiveReaderFeatures(),
			old.EffectiveWriterFeatures(), old.EffectiveReaderFeatures()))
		p = &merged
	}
	sc := mustSchema(md)
	res := &WriteResult{}
	adds, err := w.writeFiles(sc, md, res)
	if err != nil {
		return nil, err
	}
	t := txn.Begin(w.snap, op, w.txnOptions())
	t.ReadWholeTable()
	if p.MinReaderVersion != old.MinReaderVersion || p.MinWriterVersion != old.MinWriterVersion ||
		!slices.Equal(p.ReaderFeatures, old.ReaderFeatures) || !slices.Equal(p.WriterFeatures, old.WriterFeatures) {
		t.Add(protocol.Action{Protocol: p})
	}
	t.Add(protocol.Action{Metadata: md})
	now := time.Now().UnixMilli()
	for _, f := range w.snap.Files() {
		t.Add(protocol.Action{Remove: protocol.RemoveOf(f, now)})
		res.FilesRemoved++
	}
	t.Add(addActions(adds)...)
	metrics := writeMetrics(adds, res.RowsWritten)
	w.removalMetrics(metrics, w.snap, w.snap.Files())
	t.SetOperationMetrics(metrics)
	r, err := t.Commit(w.ctx)
	if err != nil {
		w.abort(adds)
		return nil, err
	}
	res.Version, res.Warnings = r.Version, r.Warnings
	return res, nil
}

func mustSchema(md *protocol.Metadata) *schema.Struct {
	sc, err := schema.Parse(md.SchemaString)
	if err != nil {
		panic(err) // built by newMetadata from a valid schema
	}
	return sc
}

// evolvedMetadata returns new metadata when the schema mode changes the
// schema, nil when the table's stays.
func (w *writeJob) evolvedMetadata() (*protocol.Metadata, error) {
	snap := w.snap
	src, err := schema.FromArrow(w.src.Schema())
	if err != nil {
		return nil, errs.Wrap(errs.SchemaMismatch, w.st.URL(), err, "source schema")
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
		merged, changed, err := schema.Merge(snap.Schema(), src)
		if err != nil {
			return nil, errs.Wrap(errs.SchemaMismatch, w.st.URL(), err, "merging schemas")
		}
		if !changed {
			return nil, nil
		}
		next = merged
	default:
		return nil, nil
	}
	md := *snap.Metadata()
	md.Configuration = maps.Clone(md.Configuration)
	if snap.ColumnMapping() != schema.MappingNone {
		maxID, _ := protocol.Properties(md.Configuration).Int(protocol.PropColumnMappingMaxID, 0)
		md.Configuration[protocol.PropColumnMappingMaxID] = fmt.Sprint(schema.AssignColumnMapping(next, maxID))
	}
	md.SchemaString = next.JSON()
	return &md, nil
}

// writeFiles streams the source through the data-file writer.
func (w *writeJob) writeFiles(sc *schema.Struct, md *protocol.Metadata, res *WriteResult) ([]*protocol.Add, error) {
	mode, err := schema.ParseMode(md.Configuration[protocol.PropColumnMappingMode])
	if err != nil {
		return nil, errs.Wrap(errs.UnsupportedTable, w.st.URL(), err, "column mapping")
	}
	fw, err := datafile.NewWriter(w.ctx, w.st, datafile.Options{
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
	check, err := w.rowCheck(sc, md)
	if err != nil {
		return nil, err
	}
	for w.src.Next() {
		rec, err := datafile.Conform(w.src.RecordBatch(), sc, w.wo.Allocator)
		if err == nil && check != nil {
			err = check(rec)
		}
		if err == nil {
			err = fw.Write(rec)
		}
		if rec != nil {
			res.RowsWritten += rec.NumRows()
			rec.Release()
		}
		if err != nil {
			_ = fw.Abort(w.ctx)
			return nil, err
		}
	}
	if err := w.src.Err(); err != nil {
		_ = fw.Abort(w.ctx)
		return nil, errs.Wrap(errs.InvalidArgument, w.st.URL(), err, "reading the source")
	}
	if err := w.keptRows(fw.Write); err != nil {
		_ = fw.Abort(w.ctx)
		return nil, err
	}
	adds, err := fw.Close()
	if err != nil {
		_ = fw.Abort(w.ctx)
		return nil, err
	}
	for _, a := range adds {
		res.BytesWritten += a.Size
	}
	res.FilesAdded = len(adds)
	return adds, nil
}

// abort deletes data files written for a commit that did not happen.
func (w *writeJob) abort(adds []*protocol.Add) {
	keys := make([]string, 0, len(adds))
	for _, a := range adds {
		if k, err := protocol.DecodePath(a.Path); err == nil {
			keys = append(keys, k)
		}
	}
	_ = w.st.Delete(context.WithoutCancel(w.ctx), keys...)
}

func addActions(adds []*protocol.Add) []protocol.Action {
	out := make([]protocol.Action, len(adds))
	for i, a := range adds {
		out[i] = protocol.Action{Add: a}
	}
	return out
}
