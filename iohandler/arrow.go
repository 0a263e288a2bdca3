package iohandler

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/changes"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/structarrow"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/scan"
)

// arrowHandler is the built-in type handler: arrow.Table,
// arrow.RecordBatch, array.RecordReader and slices of structs ([]S or
// []*S, through internal/structarrow: columns from exported fields and
// `delta:"name"` tags) on this engine.
type arrowHandler struct{}

// builtin is consulted after every registered type handler.
var builtin TypeHandler = arrowHandler{}

var (
	tableType  = reflect.TypeFor[arrow.Table]()
	batchType  = reflect.TypeFor[arrow.RecordBatch]()
	readerType = reflect.TypeFor[array.RecordReader]()
)

func (arrowHandler) TypeNames() []string {
	return []string{"arrow.Table", "arrow.RecordBatch", "array.RecordReader", "[]S or []*S of a struct S"}
}

// structSlice reports a []S or []*S of a struct S.
func structSlice(t reflect.Type) bool {
	if t.Kind() != reflect.Slice {
		return false
	}
	e := t.Elem()
	if e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	return e.Kind() == reflect.Struct
}

// Handles takes the three interfaces (a read names one) and any type that
// implements one (a write's value).
func (arrowHandler) Handles(t reflect.Type) bool {
	switch t {
	case tableType, batchType, readerType:
		return true
	}
	return t.Implements(tableType) || t.Implements(batchType) || t.Implements(readerType) || structSlice(t)
}

// readerOf streams v as record batches; the caller releases the reader.
func readerOf(v any, batchRows int) (array.RecordReader, error) {
	if structSlice(reflect.TypeOf(v)) {
		return structarrow.NewSliceReader(v, nil, batchRows)
	}
	switch x := v.(type) {
	case array.RecordReader:
		x.Retain()
		return x, nil
	case arrow.Table:
		return array.NewTableReader(x, -1), nil
	case arrow.RecordBatch:
		return array.NewRecordReader(x.Schema(), []arrow.RecordBatch{x})
	}
	return nil, fmt.Errorf("the Arrow handler cannot store a %T", v)
}

func (arrowHandler) Write(ctx context.Context, req *WriteRequest, v any) (Metadata, error) {
	rr, err := readerOf(v, req.Engine.ReadBatchSize)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "asset %q", req.Asset)
	}
	defer rr.Release()
	return writeArrow(ctx, req, rr)
}

// writeArrow writes the stream rr as req asks.
func writeArrow(ctx context.Context, req *WriteRequest, rr array.RecordReader) (Metadata, error) {
	if req.Mode == ModeMerge {
		return mergeArrow(ctx, req, rr)
	}
	var res *deltalite.WriteResult
	var err error
	if req.Table != nil {
		res, err = req.Table.Write(ctx, rr, req.WriteOptions())
	} else {
		res, err = deltalite.Write(ctx, req.TableURI, rr, req.WriteOptions())
	}
	if err != nil {
		return nil, err
	}
	return Metadata{OutNumRows: res.RowsWritten, OutSkipped: res.Skipped}, nil
}

// mergeArrow merges rr into the table, creating a missing table from what
// the insert clauses insert; a keyed merge refuses source rows outside its
// keys (keyedSource).
func mergeArrow(ctx context.Context, req *WriteRequest, rr array.RecordReader) (Metadata, error) {
	rr = keyedSource(ctx, req, rr)
	var stats merge.Stats
	var err error
	if req.Table != nil {
		stats, err = req.Table.Merge(ctx, rr, *req.Merge)
	} else {
		stats, err = mergeCreating(ctx, req, rr)
	}
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(stats)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "merge stats")
	}
	return Metadata{OutNumRows: stats.TargetRowsInserted + stats.TargetRowsUpdated, OutNumOutputRows: stats.OutputRows,
		OutMergeStats: string(js), OutSkipped: stats.Skipped}, nil
}

// mergeCreating merges rr into a table that does not exist yet: every
// source row is unmatched, so the table (the source's schema, the
// request's partitioning and configuration) and the rows the insert
// clauses insert are one commit, version 0. A merge that would insert
// nothing creates nothing.
func mergeCreating(ctx context.Context, req *WriteRequest, rr array.RecordReader) (merge.Stats, error) {
	clauses, err := req.Merge.Plan()
	if err != nil {
		return merge.Stats{}, err
	}
	inserts := false
	for _, c := range clauses {
		inserts = inserts || c.When == merge.NotMatched
	}
	if !inserts {
		return merge.Stats{}, errs.New(errs.TableNotFound, req.TableURI, "asset %q has no table yet and its merge has no insert clause to create it from; write it first (mode %q)", req.Asset, ModeOverwrite)
	}
	o := *req.Merge
	o.CreateIfMissing, o.PartitionBy, o.ClusterBy, o.Properties = true, req.PartitionBy, req.ClusterBy, req.TableConfig
	return deltalite.Merge(ctx, req.TableURI, rr, o)
}

func (arrowHandler) Read(ctx context.Context, req *ReadRequest, t reflect.Type) (any, error) {
	rr, err := readArrow(ctx, req)
	if err != nil {
		return nil, err
	}
	if structSlice(t) {
		defer rr.Release()
		out, err := structarrow.CollectSlice(rr, t)
		if err != nil {
			return nil, errs.Wrap(errs.SchemaMismatch, "", err, "asset %q: reading into %s", req.Asset, t)
		}
		return out, nil
	}
	switch t {
	case readerType:
		return rr, nil
	case tableType:
		defer rr.Release()
		return collect(rr, func(sc *arrow.Schema, recs []arrow.RecordBatch) (any, error) {
			return array.NewTableFromRecords(sc, recs), nil
		})
	case batchType:
		defer rr.Release()
		return collect(rr, func(sc *arrow.Schema, recs []arrow.RecordBatch) (any, error) {
			return concatBatches(sc, recs)
		})
	}
	rr.Release()
	return nil, errs.New(errs.InvalidArgument, "", "asset %q: the Arrow handler reads arrow.Table, arrow.RecordBatch or array.RecordReader, not %s", req.Asset, t)
}

// readArrow streams the request's rows: the columns asked for, the
// partition predicate pushed into the scan (it may read a column the
// projection leaves out).
func readArrow(ctx context.Context, req *ReadRequest) (array.RecordReader, error) {
	if req.Changes != nil {
		return readChanges(ctx, req)
	}
	var opts []scan.Option
	if req.Columns != nil {
		opts = append(opts, scan.WithColumns(req.Columns...))
	}
	if req.Predicate != "" {
		opts = append(opts, scan.WithWhere(req.Predicate), scan.WithSessionTimeZone(req.SessionTimeZone))
	}
	if req.Engine.ReadBatchSize > 0 {
		opts = append(opts, scan.WithBatchSize(req.Engine.ReadBatchSize))
	}
	if req.Engine.ReadParallelism > 0 {
		opts = append(opts, scan.WithParallelism(req.Engine.ReadParallelism))
	}
	rr, err := req.Table.Scan(opts...).RecordReader(ctx)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "asset %q: reading %s", req.Asset, errs.RedactURL(req.TableURI))
	}
	return rr, nil
}

// readChanges streams the change rows req.Changes asks for: the columns
// asked for and the change columns, the partition predicate applied.
func readChanges(ctx context.Context, req *ReadRequest) (array.RecordReader, error) {
	opts := deltalite.ChangesOptions{Where: req.Predicate, BatchSize: req.Engine.ReadBatchSize, SessionTimeZone: req.SessionTimeZone}
	if req.Columns != nil {
		// Columns naming none of the change columns get all three after them.
		change := []string{changes.ChangeTypeColumn, changes.CommitVersionColumn, changes.CommitTimestampColumn}
		opts.Columns = slices.Clone(req.Columns)
		if !slices.ContainsFunc(opts.Columns, func(c string) bool { return slices.Contains(change, c) }) {
			opts.Columns = append(opts.Columns, change...)
		}
	}
	head, after := req.Table.Version(), req.Changes.After
	var rr array.RecordReader
	var err error
	switch {
	case after == nil:
		rr, err = changes.Initial(ctx, req.Table.Snapshot(), opts)
	case *after == head: // nothing new: no rows, in the changes' schema
		opts.FromVersion, opts.ToVersion = head, &head
		if rr, err = req.Table.Changes(ctx, opts); err == nil {
			sc := rr.Schema()
			rr.Release()
			rr, err = array.NewRecordReader(sc, nil)
		}
	default:
		opts.FromVersion = *after + 1
		rr, err = req.Table.Changes(ctx, opts)
	}
	if err != nil {
		return nil, req.Changes.explain(errs.Wrap(errs.InvalidArgument, "", err, "asset %q: reading the changes of %s", req.Asset, errs.RedactURL(req.TableURI)))
	}
	if after == nil {
		return rr, nil
	}
	// A change file found missing while reading says what to do too.
	return &explainedReader{RecordReader: rr, c: req.Changes}, nil
}

// explainedReader is a changes reader whose error says what the consumer
// can do.
type explainedReader struct {
	array.RecordReader
	c *ChangesRead
}

func (r *explainedReader) Err() error { return r.c.explain(r.RecordReader.Err()) }

// collect reads every batch of rr and builds the result from them.
func collect(rr array.RecordReader, build func(*arrow.Schema, []arrow.RecordBatch) (any, error)) (any, error) {
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for rr.Next() {
		r := rr.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	if err := rr.Err(); err != nil {
		return nil, err
	}
	return build(rr.Schema(), recs)
}

// concatBatches joins batches into one.
func concatBatches(sc *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	tbl := array.NewTableFromRecords(sc, recs)
	defer tbl.Release()
	cols := make([]arrow.Array, 0, sc.NumFields())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i := range sc.NumFields() {
		var c arrow.Array
		switch chunks := tbl.Column(i).Data().Chunks(); len(chunks) {
		case 0:
			c = array.MakeArrayOfNull(memory.DefaultAllocator, sc.Field(i).Type, 0)
		case 1:
			c = chunks[0]
			c.Retain()
		default:
			var err error
			if c, err = array.Concatenate(chunks, memory.DefaultAllocator); err != nil {
				return nil, errs.Wrap(errs.Internal, "", err, "joining batches of column %q", sc.Field(i).Name)
			}
		}
		cols = append(cols, c)
	}
	return array.NewRecordBatch(sc, cols, tbl.NumRows()), nil
}
