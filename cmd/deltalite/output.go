package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// recordSink receives a scan's batches in one output format.
type recordSink interface {
	Write(arrow.RecordBatch) error
	Close() error
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newSink(format string, w io.Writer, sc *arrow.Schema) (recordSink, error) {
	switch format {
	case "table":
		return &gridSink{w: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0), schema: sc}, nil
	case "csv":
		return &csvSink{w: csv.NewWriter(w, sc, csv.WithHeader(true), csv.WithNullWriter("")), schema: sc}, nil
	case "ndjson", "json":
		return &ndjsonSink{enc: json.NewEncoder(w)}, nil
	case "parquet":
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
		fw, err := pqarrow.NewFileWriter(sc, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return nil, err
		}
		return parquetSink{fw}, nil
	}
	return nil, fmt.Errorf("unknown --format %q (use table, csv, ndjson or parquet)", format)
}

type gridSink struct {
	w       *tabwriter.Writer
	schema  *arrow.Schema
	started bool
}

func (g *gridSink) Write(rec arrow.RecordBatch) error {
	if !g.started {
		names := make([]string, g.schema.NumFields())
		for i, f := range g.schema.Fields() {
			names[i] = f.Name
		}
		fmt.Fprintln(g.w, strings.Join(names, "\t"))
		g.started = true
	}
	cells := make([]string, rec.NumCols())
	for r := 0; r < int(rec.NumRows()); r++ {
		for c := range cells {
			col := rec.Column(c)
			if col.IsNull(r) {
				cells[c] = "null"
			} else {
				cells[c] = strings.ReplaceAll(col.ValueStr(r), "\t", " ")
			}
		}
		fmt.Fprintln(g.w, strings.Join(cells, "\t"))
	}
	return nil
}

func (g *gridSink) Close() error {
	if !g.started {
		return g.Write(array.NewRecordBatch(g.schema, nil, 0))
	}
	return g.w.Flush()
}

type csvSink struct {
	w      *csv.Writer
	schema *arrow.Schema
	wrote  bool
}

func (c *csvSink) Write(rec arrow.RecordBatch) error { c.wrote = true; return c.w.Write(rec) }

func (c *csvSink) Close() error {
	if !c.wrote { // an empty result still has its header
		empty := array.NewRecordBatch(c.schema, nil, 0)
		defer empty.Release()
		if err := c.w.Write(empty); err != nil {
			return err
		}
	}
	c.w.Flush()
	return c.w.Error()
}

type ndjsonSink struct{ enc *json.Encoder }

func (n *ndjsonSink) Write(rec arrow.RecordBatch) error {
	row := make(map[string]any, rec.NumCols())
	for r := 0; r < int(rec.NumRows()); r++ {
		for c, f := range rec.Schema().Fields() {
			row[f.Name] = rec.Column(c).GetOneForMarshal(r)
		}
		if err := n.enc.Encode(row); err != nil {
			return err
		}
	}
	return nil
}

func (n *ndjsonSink) Close() error { return nil }

type parquetSink struct{ fw *pqarrow.FileWriter }

func (p parquetSink) Write(rec arrow.RecordBatch) error { return p.fw.WriteBuffered(rec) }
func (p parquetSink) Close() error                      { return p.fw.Close() }
