package cliout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Sink receives a scan's batches in one output format.
type Sink interface {
	Write(arrow.RecordBatch) error
	Close() error
}

// ErrSinkFull is what a sink's Write returns once it takes no more rows:
// the scan stops without an error.
var ErrSinkFull = errors.New("output full")

// FormatOfFile is the output format an output file name implies, or "".
func FormatOfFile(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".parquet":
		return "parquet"
	case ".csv":
		return "csv"
	case ".ndjson", ".jsonl", ".json":
		return "ndjson"
	}
	return ""
}

// Format settles the format of a scan's output from --format, the
// --output file's extension and whether standard output is a terminal.
func Format(format, output string, terminal bool) (string, error) {
	if format == "json" {
		format = "ndjson"
	}
	switch format {
	case "", "table", "csv", "ndjson", "parquet":
	default:
		return "", fmt.Errorf("unknown --format %q (use table, csv, ndjson or parquet)", format)
	}
	implied := FormatOfFile(output)
	switch {
	case format != "" && implied != "" && format != implied:
		return "", fmt.Errorf("--format %s does not match --output %s, a %s file name: drop --format or change the extension", format, output, implied)
	case format == "" && implied != "":
		format = implied
	case format == "" && output == "" && terminal:
		format = "table"
	case format == "":
		format = "csv"
	}
	if format == "parquet" && output == "" && terminal {
		return "", errors.New("refusing to write Parquet to a terminal: use --output FILE.parquet or redirect standard output")
	}
	return format, nil
}

// NewSink writes batches of schema sc to w in format: "table", "csv",
// "ndjson" or "parquet" (as Format settles it).
func NewSink(format string, w io.Writer, sc *arrow.Schema) (Sink, error) {
	switch format {
	case "table":
		return NewTableSink(w, sc, -1, false), nil
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
		return &parquetSink{fw: fw, rowGroupBytes: parquetRowGroupBytes}, nil
	}
	return nil, fmt.Errorf("unknown --format %q (use table, csv, ndjson or parquet)", format)
}

// tableRows is how many rows the table format lays out at a time: column
// widths come from the header and the rows so far, so memory stays
// bounded whatever the table's size.
const tableRows = 1024

// tableSink prints aligned columns as rows arrive, at most maxRows of them
// (< 0: all). Widths only grow, so a later wide value shifts its column
// from there on.
type tableSink struct {
	w       io.Writer
	schema  *arrow.Schema
	maxRows int64
	flush   bool // after every chunk, for a reader watching the rows arrive
	printed int64
	more    bool // rows past maxRows were left out
	started bool
	widths  []int
	cells   [][]string // scratch: one chunk of rendered rows
	line    []byte
}

// cellText flattens what would break a row onto several lines.
var cellText = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// NewTableSink prints batches of schema sc to w as aligned columns, at
// most maxRows rows (< 0: all; past them Write returns ErrSinkFull), laid
// out a chunk of rows at a time so that memory stays bounded; with flush,
// w is flushed after every chunk (when it has a Flush method), for a
// reader watching the rows arrive.
func NewTableSink(w io.Writer, sc *arrow.Schema, maxRows int64, flush bool) Sink {
	return &tableSink{w: w, schema: sc, maxRows: maxRows, flush: flush, widths: make([]int, sc.NumFields())}
}

func (t *tableSink) Write(rec arrow.RecordBatch) error {
	n := rec.NumRows()
	if t.maxRows >= 0 && t.printed+n > t.maxRows {
		t.more = true
		n = t.maxRows - t.printed
	}
	for from := int64(0); from < n; from += tableRows {
		if err := t.chunk(rec, int(from), int(min(n, from+tableRows))); err != nil {
			return err
		}
	}
	if t.more {
		return ErrSinkFull
	}
	return nil
}

// chunk prints rows from..to of rec (and the header before the first).
func (t *tableSink) chunk(rec arrow.RecordBatch, from, to int) error {
	t.cells = t.cells[:0]
	if !t.started {
		names := make([]string, t.schema.NumFields())
		for i, f := range t.schema.Fields() {
			names[i] = cellText.Replace(f.Name)
		}
		t.cells = append(t.cells, names)
	}
	for r := from; r < to; r++ {
		row := make([]string, rec.NumCols())
		for c := range row {
			col := rec.Column(c)
			if col.IsNull(r) {
				row[c] = "null"
			} else {
				row[c] = cellText.Replace(col.ValueStr(r))
			}
		}
		t.cells = append(t.cells, row)
	}
	for _, row := range t.cells {
		for c, s := range row {
			t.widths[c] = max(t.widths[c], utf8.RuneCountInString(s))
		}
	}
	for _, row := range t.cells {
		t.line = t.line[:0]
		for c, s := range row {
			t.line = append(t.line, s...)
			if c < len(row)-1 {
				for pad := utf8.RuneCountInString(s); pad < t.widths[c]+2; pad++ {
					t.line = append(t.line, ' ')
				}
			}
		}
		t.line = append(t.line, '\n')
		if _, err := t.w.Write(t.line); err != nil {
			return err
		}
	}
	t.started = true
	t.printed += int64(to - from)
	if f, ok := t.w.(interface{ Flush() error }); ok && t.flush {
		return f.Flush()
	}
	return nil
}

// Close prints the header of an empty result.
func (t *tableSink) Close() error {
	if !t.started {
		return t.chunk(nil, 0, 0)
	}
	return nil
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

// parquetRowGroupBytes bounds the Arrow bytes of a row group of --format
// parquet output: its column chunks are held in memory, encoded, until the
// row group ends.
const parquetRowGroupBytes = 128 << 20

// parquetSink ends a row group once the batches written to it hold
// rowGroupBytes of Arrow data: arrow-go's only bound is rows (64 Mi by
// default), under which an export of an 8 GiB table held 6.7 GiB.
type parquetSink struct {
	fw            *pqarrow.FileWriter
	rowGroupBytes int64
	inGroup       int64 // Arrow bytes written to the current row group
}

func (p *parquetSink) Write(rec arrow.RecordBatch) error {
	if err := p.fw.WriteBuffered(rec); err != nil {
		return err
	}
	for _, c := range rec.Columns() {
		p.inGroup += int64(c.Data().SizeInBytes())
	}
	if p.inGroup < p.rowGroupBytes {
		return nil
	}
	p.inGroup = 0
	return p.fw.NewBufferedRowGroupChecked()
}

func (p *parquetSink) Close() error { return p.fw.Close() }
