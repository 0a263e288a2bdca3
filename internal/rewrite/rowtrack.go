package rewrite

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// rowTracking keeps rows' identity on a table with row tracking enabled
// (Options.RowTracking): each file is read with its rows' stable row ids
// and commit versions (scan.WithRowTracking), and every row written again
// carries them in the table's materialized columns: a copied row its id
// and version, an updated row its id and a null version (the new file's
// defaultRowCommitVersion, the commit's), an inserted row nulls (a fresh
// id from the new file's baseRowId). Hidden from readers, the columns are
// not in the table schema; the written files hold them after its columns.
type rowTracking struct {
	id, version arrow.Field
	mem         memory.Allocator
}

// newRowTracking returns nil when rows need no identity kept, else the
// tracker and the schema of the files written (the table's plus the
// materialized columns).
func newRowTracking(snap *snapshot.Snapshot, c *config) (*rowTracking, *schema.Struct, error) {
	if !c.RowTracking {
		return nil, c.Schema, nil
	}
	idName, versionName, err := protocol.MaterializedRowColumns(snap.Metadata())
	if err != nil {
		return nil, nil, errs.Wrap(errs.CorruptTable, snap.Store().URL(), err, "row tracking")
	}
	long := &schema.Primitive{Name: schema.Long}
	written := &schema.Struct{Fields: append(append([]*schema.Field(nil), c.Schema.Fields...),
		&schema.Field{Name: idName, Type: long, Nullable: true},
		&schema.Field{Name: versionName, Type: long, Nullable: true})}
	for _, f := range c.Schema.Fields {
		if f.Name == idName || f.Name == versionName || f.PhysicalName(snap.ColumnMapping()) == idName || f.PhysicalName(snap.ColumnMapping()) == versionName {
			return nil, nil, errs.New(errs.CorruptTable, snap.Store().URL(), "column %q has the name of a materialized row tracking column", f.Name)
		}
	}
	return &rowTracking{
		id:      arrow.Field{Name: idName, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		version: arrow.Field{Name: versionName, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		mem:     c.Allocator,
	}, written, nil
}

// readOptions are the scan options that read the rows' identity.
func (rt *rowTracking) readOptions() []scan.Option {
	if rt == nil {
		return nil
	}
	return []scan.Option{scan.WithRowTracking()}
}

// split removes the row id and commit version columns the scan appended
// last. It owns rec.
func (rt *rowTracking) split(a *protocol.Add, rec arrow.RecordBatch) (arrow.RecordBatch, *array.Int64, *array.Int64, error) {
	n := int(rec.NumCols())
	if n < 2 || rec.Schema().Field(n-2).Name != scan.RowIDColumn || rec.Schema().Field(n-1).Name != scan.RowCommitVersionColumn {
		rec.Release()
		return nil, nil, nil, errs.New(errs.Internal, a.Path, "a row-tracking rewrite read a batch without row ids")
	}
	ids, ok1 := rec.Column(n - 2).(*array.Int64)
	versions, ok2 := rec.Column(n - 1).(*array.Int64)
	if !ok1 || !ok2 {
		rec.Release()
		return nil, nil, nil, errs.New(errs.Internal, a.Path, "a row-tracking rewrite read row ids that are not long")
	}
	ids.Retain()
	versions.Retain()
	out := array.NewRecordBatch(arrow.NewSchema(rec.Schema().Fields()[:n-2], nil), rec.Columns()[:n-2], rec.NumRows())
	rec.Release()
	return out, ids, versions, nil
}

// kept returns data with the materialized columns of rows read: every
// row's id, and the version of rows not updated (null for updated ones).
// It owns data.
func (rt *rowTracking) kept(data arrow.RecordBatch, ids, versions *array.Int64, updated []bool) arrow.RecordBatch {
	ids.Retain()
	var v arrow.Array = versions
	if updated == nil {
		versions.Retain()
	} else {
		b := array.NewInt64Builder(rt.mem)
		defer b.Release()
		b.Reserve(versions.Len())
		for i := range versions.Len() {
			if updated[i] {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(versions.Value(i))
			}
		}
		v = b.NewArray()
	}
	return rt.with(data, ids, v)
}

// carries reports an appended batch that already holds the materialized
// columns (rows a rearrangement writes back, Batch.WithIdentity).
func (rt *rowTracking) carries(rec arrow.RecordBatch) bool {
	n := int(rec.NumCols())
	return n >= 2 && rec.Schema().Field(n-2).Name == rt.id.Name && rec.Schema().Field(n-1).Name == rt.version.Name
}

// WithIdentity returns the batch's rows with their row ids and commit
// versions in the table's materialized columns when the table tracks
// rows (Options.RowTracking), else Rec; retained for the caller. A
// rearrangement that writes rows back through Options.Append (z-order)
// appends these, so that the rows keep their identity.
func (b Batch) WithIdentity() arrow.RecordBatch {
	if b.rt == nil {
		b.Rec.Retain()
		return b.Rec
	}
	b.Rec.Retain()
	b.ids.Retain()
	b.versions.Retain()
	return b.rt.with(b.Rec, b.ids, b.versions)
}

// RowID is row i's stable row id with Options.RowTracking.
func (b Batch) RowID(i int) (int64, bool) {
	if b.ids == nil {
		return 0, false
	}
	return b.ids.Value(i), true
}

// IdentityFields are the materialized columns WithIdentity appends on the
// table snap shows: none when row tracking is not enabled.
func IdentityFields(snap *snapshot.Snapshot) ([]arrow.Field, error) {
	if !protocol.RowTrackingEnabled(snap.Protocol(), snap.Metadata()) {
		return nil, nil
	}
	id, version, err := protocol.MaterializedRowColumns(snap.Metadata())
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, snap.Store().URL(), err, "row tracking")
	}
	return []arrow.Field{{Name: id, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: version, Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil
}

// without returns rec (not owned, retained for the caller) without the
// materialized columns it carries.
func (rt *rowTracking) without(rec arrow.RecordBatch) arrow.RecordBatch {
	if rt == nil || !rt.carries(rec) {
		rec.Retain()
		return rec
	}
	n := int(rec.NumCols()) - 2
	return array.NewRecordBatch(arrow.NewSchema(rec.Schema().Fields()[:n], nil), rec.Columns()[:n], rec.NumRows())
}

// inserted returns rec (not owned) with null materialized columns.
func (rt *rowTracking) inserted(rec arrow.RecordBatch) arrow.RecordBatch {
	rec.Retain()
	return rt.with(rec, array.MakeArrayOfNull(rt.mem, arrow.PrimitiveTypes.Int64, int(rec.NumRows())),
		array.MakeArrayOfNull(rt.mem, arrow.PrimitiveTypes.Int64, int(rec.NumRows())))
}

// with appends the two columns (owning them and data).
func (rt *rowTracking) with(data arrow.RecordBatch, ids, versions arrow.Array) arrow.RecordBatch {
	defer data.Release()
	defer ids.Release()
	defer versions.Release()
	fields := append(append([]arrow.Field(nil), data.Schema().Fields()...), rt.id, rt.version)
	cols := append(append([]arrow.Array(nil), data.Columns()...), ids, versions)
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, data.NumRows())
}
