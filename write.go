package deltalite

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/write"
)

// WriteMode says what Write does when the table exists (or not); see
// package write.
type WriteMode = write.Mode

// Write modes.
const (
	ModeAppend          = write.ModeAppend          // add rows; create the table when there is none
	ModeOverwrite       = write.ModeOverwrite       // replace the rows (or those ReplaceWhere selects)
	ModeError           = write.ModeError           // fail with ErrTableExists when the table exists
	ModeIgnore          = write.ModeIgnore          // write nothing when the table exists
	ModeCreateOrReplace = write.ModeCreateOrReplace // new schema, partitioning, properties and rows, one commit
)

// SchemaMode says how Write treats a source schema that differs from the
// table's.
type SchemaMode = write.SchemaMode

// Schema modes.
const (
	SchemaStrict    = write.SchemaStrict    // the source must fit the table (default)
	SchemaMerge     = write.SchemaMerge     // add new columns, relax nullability, widen types (type widening), same commit
	SchemaOverwrite = write.SchemaOverwrite // replace the schema; only with ModeOverwrite
)

// WriteOptions configure Write; see package write for every knob. An empty
// Mode means ModeError, as in delta-rs's write_deltalake.
type WriteOptions = write.Options

// WriteResult reports a write.
type WriteResult = write.Result

// Write writes a stream of record batches to the Delta table at uri as one
// commit, creating the table when the mode allows. Nothing is visible
// until the commit; a failure leaves the table as it was.
func Write(ctx context.Context, uri string, src array.RecordReader, wo WriteOptions) (*WriteResult, error) {
	st, err := storeOf(ctx, uri, wo.StorageOptions, wo.Store)
	if err != nil {
		return nil, err
	}
	snap, err := loadOrNew(ctx, st, src, nil, newTable(wo))
	if err != nil {
		return nil, err
	}
	res, _, err := write.Run(ctx, snap, src, wo)
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// Write writes src to the table as the function Write does and moves t to
// the version the write committed (or found, when it was skipped), as
// Upsert does.
func (t *Table) Write(ctx context.Context, src array.RecordReader, wo WriteOptions) (*WriteResult, error) {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return nil, err
	}
	res, post, err := write.Run(ctx, snap, src, wo)
	t.moveTo(snap, post)
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// loadOrNew is the table in st that an operation which may create it
// works on: the table there, or else the one it creates (op.Empty),
// with schema sc or, when sc is nil, the source's columns. The operation
// then commits the table and its first rows as one commit, version 0.
func loadOrNew(ctx context.Context, st storage.Store, src array.RecordReader, sc *schema.Struct, o op.NewTableOptions) (*snapshot.Snapshot, error) {
	snap, err := snapshot.Load(ctx, st)
	if !errors.Is(err, errs.ErrTableNotFound) {
		return snap, err
	}
	if sc == nil {
		if src == nil {
			return nil, errs.New(errs.InvalidArgument, st.URL(), "the source has no schema")
		}
		if sc, err = op.SourceSchema(st.URL(), src.Schema()); err != nil {
			return nil, err
		}
	}
	return op.Empty(st, sc, o)
}

// CreateOptions configure Create.
type CreateOptions struct {
	PartitionBy []string
	// ClusterBy makes a clustered table (liquid clustering), as
	// WriteOptions.ClusterBy.
	ClusterBy []string
	// Properties are checked as WriteOptions.Properties for a new table.
	Properties        map[string]string
	Name, Description string
	CommitMetadata    map[string]any
	// StorageOptions and Store open the URI as WriteOptions' do.
	StorageOptions map[string]string
	Store          storage.Store
}

// Create makes an empty table with the given schema at uri; it fails with
// ErrTableExists when a table is there already.
func Create(ctx context.Context, uri string, sc *schema.Struct, co CreateOptions) (*Table, error) {
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
	st, err := storeOf(ctx, uri, co.StorageOptions, co.Store)
	if err != nil {
		return nil, err
	}
	wo := WriteOptions{Mode: ModeError, PartitionBy: co.PartitionBy, ClusterBy: co.ClusterBy, Properties: co.Properties,
		Name: co.Name, Description: co.Description, CommitMetadata: co.CommitMetadata}
	snap, err := loadOrNew(ctx, st, empty, sc, newTable(wo))
	if err != nil {
		return nil, err
	}
	_, post, err := write.Run(ctx, snap, empty, wo)
	if err != nil {
		return nil, err
	}
	if post == nil { // committed, but reading the new table back failed
		return Open(ctx, uri, WithStore(st))
	}
	return &Table{store: st, snap: post}, nil
}

// newTable is the table a write in wo creates.
func newTable(wo write.Options) op.NewTableOptions {
	return op.NewTableOptions{PartitionBy: wo.PartitionBy, ClusterBy: wo.ClusterBy, Properties: wo.Properties, Name: wo.Name, Description: wo.Description}
}
