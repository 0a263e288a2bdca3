package scan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// The row tracking columns (Spark's _metadata.row_id and
// _metadata.row_commit_version), int64, not null: a row's stable id and
// the version that last inserted or updated it (PROTOCOL.md "Reader
// Requirements for Row Tracking"). Select them by name (WithColumns) or
// append both (WithRowTracking); the table must have row tracking enabled.
const (
	RowIDColumn            = "_metadata.row_id"
	RowCommitVersionColumn = "_metadata.row_commit_version"
)

// WithRowTracking appends RowIDColumn and RowCommitVersionColumn after the
// selected columns (and RowIndexColumn).
func WithRowTracking() Option {
	return func(s *Scan) { s.rowTracking = true }
}

// metaColumn tells a column of the output that no table column holds.
type metaColumn int

const (
	notMeta metaColumn = iota
	metaRowIndex
	metaRowID
	metaRowCommitVersion
)

// metaColumnNamed is the metadata column a selected name stands for.
func metaColumnNamed(name string) metaColumn {
	switch name {
	case RowIndexColumn:
		return metaRowIndex
	case RowIDColumn:
		return metaRowID
	case RowCommitVersionColumn:
		return metaRowCommitVersion
	}
	return notMeta
}

// tableState is what a source that is a table version tells of its
// protocol and metaData (a snapshot does).
type tableState interface {
	Protocol() *protocol.Protocol
	Metadata() *protocol.Metadata
}

// addMeta adds the output column of a metadata column; the row tracking
// ones read the table's materialized column (a hidden long column, absent
// from most files).
func (b *bound) addMeta(kind metaColumn, name string, addRead func(*schema.Field) int) (arrow.Field, error) {
	af := arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64}
	if b.sc.Field(name) != nil {
		return af, errs.New(errs.InvalidArgument, "", "the table has a column named %q, which the metadata column would hide", name)
	}
	oc := outColumn{arrow: af, read: -1, meta: kind}
	if kind != metaRowIndex {
		ts, ok := b.src.(tableState)
		if !ok || !protocol.RowTrackingEnabled(ts.Protocol(), ts.Metadata()) {
			return af, errs.New(errs.InvalidArgument, "", "%s needs row tracking, which the table does not have enabled (%s is not true)", name, protocol.PropEnableRowTracking)
		}
		rowID, version, err := protocol.MaterializedRowColumns(ts.Metadata())
		if err != nil {
			return af, errs.Wrap(errs.CorruptTable, "", err, "reading %s", name)
		}
		mat := version
		if kind == metaRowID {
			mat = rowID
		}
		oc.read = addRead(&schema.Field{Name: mat, Type: &schema.Primitive{Name: schema.Long}, Nullable: true})
	}
	b.out = append(b.out, oc)
	return af, nil
}

// metaValues are a batch's values of a metadata column: positions (base +
// each selected index; sel nil: the count rows from base), or a row
// tracking value, the materialized one (mat; nil when the file lacks the
// column) where not null, else the file's default.
func (fr *fileReader) metaValues(oc outColumn, mat arrow.Array, base int64, sel []int32, count int) (arrow.Array, error) {
	var def *int64
	switch oc.meta {
	case metaRowID:
		def = fr.task.Add.BaseRowID
	case metaRowCommitVersion:
		def = fr.task.Add.DefaultRowCommitVersion
	}
	var m *array.Int64
	if mat != nil {
		var ok bool
		if m, ok = mat.(*array.Int64); !ok {
			return nil, errs.New(errs.CorruptTable, fr.task.Key, "materialized row tracking column %q is %s, not long", oc.arrow.Name, mat.DataType())
		}
	}
	b := array.NewInt64Builder(fr.b.mem)
	defer b.Release()
	b.Reserve(count)
	for i := range count {
		at := i
		if sel != nil {
			at = int(sel[i])
		}
		switch {
		case oc.meta == metaRowIndex:
			b.UnsafeAppend(base + int64(at))
		case m != nil && m.IsValid(at):
			b.UnsafeAppend(m.Value(at))
		case def == nil:
			return nil, errs.New(errs.CorruptTable, fr.task.Key, "the file's add action has no %s, which %s needs", map[metaColumn]string{metaRowID: "baseRowId", metaRowCommitVersion: "defaultRowCommitVersion"}[oc.meta], oc.arrow.Name)
		case oc.meta == metaRowID:
			b.UnsafeAppend(*def + base + int64(at))
		default:
			b.UnsafeAppend(*def)
		}
	}
	return b.NewArray(), nil
}
