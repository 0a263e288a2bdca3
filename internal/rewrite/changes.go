package rewrite

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// The change data feed's column and its values, as the Delta protocol
// names them.
const (
	ChangeTypeColumn = "_change_type"
	ChangeInsert     = "insert"
	ChangeDelete     = "delete"
	ChangePreimage   = "update_preimage"
	ChangePostimage  = "update_postimage"
)

// Changes turns the rows an operation removes, updates and inserts into
// change rows: the written schema's columns plus _change_type. The row
// stream uses it with Options.ChangeData; the upsert, which streams its
// own files, too.
type Changes struct {
	target *schema.Struct // the written rows' schema
	schema *schema.Struct // target with _change_type
	arrow  *arrow.Schema  // schema's Arrow form
	mem    memory.Allocator
}

// NewChanges makes the change rows of rows of the target schema.
func NewChanges(target *schema.Struct, mem memory.Allocator) (*Changes, error) {
	if target.Field(ChangeTypeColumn) != nil {
		return nil, errs.New(errs.UnsupportedTable, "", "the table has a column %s, the name the change data feed gives the change type", ChangeTypeColumn)
	}
	sc := target.Clone()
	sc.Fields = append(sc.Fields, &schema.Field{Name: ChangeTypeColumn, Type: &schema.Primitive{Name: "string"}, Nullable: true, Metadata: map[string]any{}})
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "change data schema")
	}
	return &Changes{target: target, schema: sc, arrow: as, mem: mem}, nil
}

// Schema is the change files' schema: the target's with _change_type.
func (ch *Changes) Schema() *schema.Struct { return ch.schema }

// Rows is rec (rows of the target schema, or of the table's when the
// operation evolves it) with kind in every row's _change_type.
func (ch *Changes) Rows(rec arrow.RecordBatch, kind string) (arrow.RecordBatch, error) {
	data, err := datafile.Conform(rec, ch.target, ch.mem)
	if err != nil {
		return nil, err
	}
	defer data.Release()
	kinds, err := scalar.MakeArrayFromScalar(scalar.NewStringScalar(kind), int(data.NumRows()), ch.mem)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "change type column")
	}
	defer kinds.Release()
	cols := append(append([]arrow.Array(nil), data.Columns()...), kinds)
	return array.NewRecordBatch(ch.arrow, cols, data.NumRows()), nil
}

// CDCActions are the change data files a writer wrote, as cdc actions.
func CDCActions(adds []*protocol.Add) []*protocol.CDC {
	out := make([]*protocol.CDC, len(adds))
	for i, a := range adds {
		out[i] = &protocol.CDC{Path: a.Path, PartitionValues: a.PartitionValues, Size: a.Size}
	}
	return out
}
