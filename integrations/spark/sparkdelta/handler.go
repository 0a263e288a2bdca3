package sparkdelta

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/write"
)

var dataFrameType = reflect.TypeFor[sql.DataFrame]()

// TypeHandler is the IO handler's Spark path: an asset whose value is a
// Spark DataFrame is written and read by Spark, through its session,
// against the table URIs the handler resolves. Register it once:
//
//	iohandler.RegisterTypeHandler(sparkdelta.NewTypeHandler(session))
//
// Modes overwrite (a partition key's run replaces its partition),
// append, error, ignore and merge (scoped to the key's partition, as the
// handler resolves it) work as on the Arrow path, except that a keyed
// ignore decides before Spark's commit, so concurrent runs of one empty
// partition may all append; create_or_replace is refused. Storage options, writer and commit properties are not Spark's
// to take: Spark reads its credentials from its Hadoop configuration.
type TypeHandler struct {
	session sql.SparkSession
}

// NewTypeHandler returns the Spark type handler on session.
func NewTypeHandler(session sql.SparkSession) *TypeHandler {
	return &TypeHandler{session: session}
}

// TypeNames names the type in the IO handler's error for a type no
// handler takes.
func (*TypeHandler) TypeNames() []string { return []string{"sql.DataFrame (Spark Connect)"} }

// Handles takes sql.DataFrame (a read names it) and what implements it.
func (*TypeHandler) Handles(t reflect.Type) bool {
	return t == dataFrameType || t.Implements(dataFrameType)
}

// Write writes the DataFrame v as req resolves it.
func (h *TypeHandler) Write(ctx context.Context, req *iohandler.WriteRequest, v any) (iohandler.Metadata, error) {
	df, ok := v.(sql.DataFrame)
	if !ok {
		return nil, deltalite.NewError(deltalite.ErrInvalidArgument, "", "asset %q: the Spark handler stores a sql.DataFrame, not a %T", req.Asset, v)
	}
	if req.Mode == iohandler.ModeMerge {
		res, err := Merge(ctx, h.session, df, req.TableURI, MergeOptions{Spec: *req.Merge, PartitionBy: req.PartitionBy, Properties: req.TableConfig})
		if err != nil {
			return nil, deltalite.WrapError(deltalite.ErrInternal, "", err, "asset %q", req.Asset)
		}
		return mergeMetadata(res)
	}
	mode := write.Mode(req.Mode)
	if mode == write.ModeIgnore && req.Table != nil {
		// The IO handler found the key's partition empty. Spark commits
		// through its own engine, which cannot be pinned to that decision
		// (write.Options.IgnoreWhere): a concurrent run of the same key
		// may write the partition too.
		mode = write.ModeAppend
	}
	res, err := Write(ctx, h.session, df, req.TableURI, WriteOptions{Mode: mode, SchemaMode: write.SchemaMode(req.SchemaMode),
		PartitionBy: req.PartitionBy, ReplaceWhere: req.ReplaceWhere, Properties: req.TableConfig})
	if err != nil {
		return nil, deltalite.WrapError(deltalite.ErrInternal, "", err, "asset %q", req.Asset)
	}
	md := iohandler.Metadata{iohandler.OutSkipped: res.Skipped}
	// As the seed's Spark path: the rows written, from the commit's
	// operationMetrics, nil when it does not record them.
	md[iohandler.OutNumRows] = nil
	if n, ok := res.NumOutputRows(); ok && !res.Skipped {
		md[iohandler.OutNumRows] = n
	}
	return md, nil
}

// mergeMetadata is the merge's metadata from Delta's MERGE metrics.
func mergeMetadata(res Result) (iohandler.Metadata, error) {
	num := func(k string) int64 {
		n, _ := strconv.ParseInt(res.Metrics[k], 10, 64)
		return n
	}
	js, err := json.Marshal(res.Metrics)
	if err != nil {
		return nil, deltalite.WrapError(deltalite.ErrInternal, "", err, "merge metrics")
	}
	return iohandler.Metadata{
		iohandler.OutNumRows:       num("numTargetRowsInserted") + num("numTargetRowsUpdated"),
		iohandler.OutNumOutputRows: num("numOutputRows"),
		iohandler.OutMergeStats:    string(js),
		iohandler.OutSkipped:       false,
	}, nil
}

// Read returns the table as req resolves it, as a lazy DataFrame.
func (h *TypeHandler) Read(ctx context.Context, req *iohandler.ReadRequest, t reflect.Type) (any, error) {
	df, err := Read(ctx, h.session, req.TableURI, ReadOptions{Version: req.Version, Columns: req.Columns, Predicate: req.Predicate})
	if err != nil {
		return nil, deltalite.WrapError(deltalite.ErrInternal, "", err, "asset %q", req.Asset)
	}
	return df, nil
}
