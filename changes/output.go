package changes

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/snapshot"
)

// output turns a scan batch of commit c (the table columns read, then
// _change_type when kind is "") into an output batch. It does not consume
// rec.
func (r *reading) output(rec arrow.RecordBatch, kind string, c snapshot.LogCommit) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, len(r.out))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	mem := arrowmem.Default
	for i, oc := range r.out {
		switch {
		case oc.table >= 0:
			cols[i] = rec.Column(oc.table)
			cols[i].Retain()
		case oc.name == ChangeTypeColumn && kind == "":
			cols[i] = rec.Column(len(r.tableCols))
			cols[i].Retain()
		case oc.name == ChangeTypeColumn:
			b := array.NewStringBuilder(mem)
			b.Reserve(n)
			for range n {
				b.Append(kind)
			}
			cols[i] = b.NewArray()
			b.Release()
		case oc.name == CommitVersionColumn:
			b := array.NewInt64Builder(mem)
			b.Reserve(n)
			for range n {
				b.UnsafeAppend(c.Version)
			}
			cols[i] = b.NewArray()
			b.Release()
		case oc.name == CommitTimestampColumn:
			b := array.NewTimestampBuilder(mem, r.tsType.(*arrow.TimestampType))
			b.Reserve(n)
			for range n {
				b.UnsafeAppend(arrow.Timestamp(c.Timestamp.UnixMicro()))
			}
			cols[i] = b.NewArray()
			b.Release()
		default:
			return nil, errs.New(errs.Internal, "", "no value for change column %q", oc.name)
		}
	}
	return array.NewRecordBatch(r.schema, cols, int64(n)), nil
}
