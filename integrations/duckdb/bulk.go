//go:build duckdb_arrow

package duckdbio

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"
)

// The bulk path hands DuckDB a slice of an Arrow batch as a whole: DuckDB's
// C API converts it into a chunk (duckdb_data_chunk_from_arrow, zero-copy
// where the layouts agree) whose vectors the output chunk then references
// (duckdb_vector_reference_vector), instead of a cgo call per value.
// duckdb-go's table-function API gives FillChunk its own DataChunk wrapper
// and keeps the C handles (chunk, connection) unexported, so they are read
// by reflection, by field name and type: if a duckdb-go release renames or
// retypes them, rawChunk and rawConn fail and delta_scan keeps the
// per-value path (TestBulkPathInUse fails, so it does not go unnoticed).

var errNoHandle = errors.New("duckdb-go's C handles are not where this package reads them")

// rawConn is DuckDB's connection handle under a duckdb-go connection.
func rawConn(conn *sql.Conn) (bindings.Connection, error) {
	var out bindings.Connection
	err := conn.Raw(func(dc any) error {
		v := reflect.ValueOf(dc)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return errNoHandle
		}
		f := v.Elem().FieldByName("conn")
		if !f.IsValid() || f.Type() != reflect.TypeFor[bindings.Connection]() {
			return errNoHandle
		}
		out = bindings.Connection{Ptr: f.Field(0).UnsafePointer()}
		return nil
	})
	if err == nil && out.Ptr == nil {
		err = errNoHandle
	}
	return out, err
}

// rawChunk is DuckDB's output chunk under duckdb-go's wrapper, and the
// projection: the output vector of each function column (-1: not asked for),
// nil when DuckDB asked for every column in order.
func rawChunk(ch *duckdb.DataChunk) (bindings.DataChunk, []int, error) {
	v := reflect.ValueOf(ch).Elem()
	c, p := v.FieldByName("chunk"), v.FieldByName("projection")
	if !c.IsValid() || c.Type() != reflect.TypeFor[bindings.DataChunk]() ||
		!p.IsValid() || p.Type() != reflect.TypeFor[[]int]() {
		return bindings.DataChunk{}, nil, errNoHandle
	}
	proj := make([]int, p.Len())
	for i := range proj {
		proj[i] = int(p.Index(i).Int())
	}
	return bindings.DataChunk{Ptr: c.Field(0).UnsafePointer()}, proj, nil
}

// bulkable reports whether DuckDB's Arrow conversion yields exactly the
// DuckDB type typeInfo declares for dt, so that its vectors can stand in
// for the output's. The other types take the per-value writers (listed in
// docs/engines.md): structs, nanosecond and second timestamps (DuckDB would
// make TIMESTAMP_NS/_S), fixed-size binary, the view types, and lists and
// maps of any of them.
func bulkable(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.BooleanType, *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.StringType, *arrow.LargeStringType,
		*arrow.BinaryType, *arrow.LargeBinaryType, *arrow.Date32Type:
		return true
	case *arrow.TimestampType:
		return t.Unit == arrow.Microsecond
	case *arrow.Decimal128Type:
		return t.Precision >= 1 && t.Precision <= 38
	case *arrow.MapType:
		return bulkable(t.KeyType()) && bulkable(t.ItemType())
	case *arrow.ListType:
		return bulkable(t.Elem())
	case *arrow.LargeListType:
		return bulkable(t.Elem())
	}
	// Structs: DuckDB's conversion (1.5.6) drops a sliced struct's offset
	// for its fields, so a slice starting inside a batch would read the
	// batch's first rows (TestBulkPathAgreesWithPerValue catches it). A
	// map's entries are a struct too, but never sliced: list offsets
	// address them.
	return false
}

// dictionaryValues reports whether a bulk column of type dt may come as an
// Arrow dictionary of dt (scan.WithDictionaries): DuckDB converts those to
// dictionary vectors of the same type.
func dictionaryValues(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY:
		return true
	}
	return false
}

// converter turns slices of a thread's batches into DuckDB chunks: the
// columns of the projection whose types are bulkable, under DuckDB's
// converted schema of them, made once per batch schema. Each batch is
// exported to C once (arrowview.go), each slice a view of the export.
type converter struct {
	conn   bindings.Connection
	cols   []int // positions in the projection (batch columns) it converts
	schema *arrow.Schema
	conv   bindings.ArrowConvertedSchema
	rec    arrow.RecordBatch // the batch exported, identified by pointer
	export exported
}

// prepare makes the converted schema of rec's bulk columns, unless the one
// held is of the same Arrow schema, and exports them, unless rec is the
// batch exported last.
func (c *converter) prepare(rec arrow.RecordBatch) error {
	if rec == c.rec {
		return nil
	}
	fields := make([]arrow.Field, len(c.cols))
	cols := make([]arrow.Array, len(c.cols))
	for k, j := range c.cols {
		fields[k], cols[k] = rec.Schema().Field(j), rec.Column(j)
	}
	sc := arrow.NewSchema(fields, nil)
	if c.schema == nil || !c.schema.Equal(sc) {
		c.release()
		conv, ed := bindings.SchemaFromArrow(c.conn, sc)
		if err := errorOf(ed); err != nil {
			bindings.DestroyArrowConvertedSchema(&conv)
			return fmt.Errorf("DuckDB's Arrow schema conversion: %w", err)
		}
		c.schema, c.conv = sc, conv
	}
	c.export.release()
	c.rec, c.export = nil, exported{}
	sub := array.NewRecordBatch(c.schema, cols, rec.NumRows())
	defer sub.Release()
	x, err := exportBatch(sub)
	if err != nil {
		return err
	}
	c.rec, c.export = rec, x
	return nil
}

// fill makes DuckDB vectors of n rows of rec from off, its bulk columns, and
// points the output vectors (out[k] for the k-th) at them.
func (c *converter) fill(out []bindings.Vector, rec arrow.RecordBatch, off, n int) error {
	if err := c.prepare(rec); err != nil {
		return err
	}
	chunk, ed, err := c.export.chunk(c.conn, c.conv, off, n)
	if err != nil {
		return err
	}
	if err := errorOf(ed); err != nil {
		bindings.DestroyDataChunk(&chunk)
		return fmt.Errorf("DuckDB's Arrow conversion: %w", err)
	}
	// The output vectors share the converted vectors' buffers (and through
	// them the export), so the chunk itself can go at once.
	for k := range c.cols {
		bindings.VectorReferenceVector(out[k], bindings.DataChunkGetVector(chunk, bindings.IdxT(k)))
	}
	bindings.DestroyDataChunk(&chunk)
	return nil
}

func (c *converter) release() {
	c.export.release()
	c.rec, c.export = nil, exported{}
	if c.schema != nil {
		bindings.DestroyArrowConvertedSchema(&c.conv)
		c.schema = nil
	}
}

// errorOf is the error of DuckDB's error data, which it destroys.
func errorOf(ed bindings.ErrorData) error {
	defer bindings.DestroyErrorData(&ed)
	if bindings.ErrorDataHasError(ed) {
		return errors.New(bindings.ErrorDataMessage(ed))
	}
	return nil
}
