package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Flag help of the input readers, for every command that takes an input.
const (
	inputFiles   = "(.parquet, .csv, .ndjson, .jsonl, .arrow, .arrows)"
	inputFormats = "parquet, csv, ndjson or arrow"
)

// inputFormat picks the reader from the value of the command's format flag
// (explicit) or the file extension; flag names that flag in messages
// ("--input-format", merge's "--source-format"; "" for an input without
// one).
func inputFormat(path, explicit, flag string) (string, error) {
	if explicit != "" {
		switch explicit {
		case "parquet", "csv", "ndjson", "arrow":
			return explicit, nil
		case "jsonl", "json":
			return "ndjson", nil
		case "ipc", "arrows", "feather":
			return "arrow", nil
		}
		return "", fmt.Errorf("unknown %s %q (use %s)", flag, explicit, inputFormats)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return "parquet", nil
	case ".csv":
		return "csv", nil
	case ".ndjson", ".jsonl":
		return "ndjson", nil
	case ".arrow", ".arrows", ".ipc", ".feather":
		return "arrow", nil
	}
	if flag == "" {
		return "", fmt.Errorf("cannot tell the format of %q from its extension: use one of %s", path, strings.Trim(inputFiles, "()"))
	}
	if path == "-" {
		return "", fmt.Errorf("reading standard input needs %s %s", flag, inputFormats)
	}
	return "", fmt.Errorf("cannot tell the format of %q from its extension: pass %s", path, flag)
}

// inputTypes tells how the commands that take an input read and type it.
const inputTypes = `
Input: Parquet, CSV (with a header line), NDJSON (one JSON object per line) or Arrow
IPC (the file or the stream format), from a file or standard input (-). When the table exists, the input's columns it has are
parsed as the table types them: the NDJSON string "5" is not a long, and a CSV value
of a string column stays a string. Other columns take their type from every row of
the input, in the order their keys first appear: NDJSON integers are long, or
decimal(38,0) beyond a long; a key with values of two kinds (a number and a string)
is an error naming both lines; a CSV column is long, decimal(38,0), double, boolean,
date or timestamp when all its values are, else string. A timestamp without a zone
is UTC.`

// inputHelp is inputTypes for write, upsert and merge, which commit nothing
// for an input of no rows.
const inputHelp = inputTypes + ` An input of no rows (a header-only CSV) commits nothing.`

// batchRows bounds the rows of one record batch read from CSV or NDJSON,
// so memory does not grow with the input.
const batchRows = 64 << 10

// input is a record stream over an input file. CSV and NDJSON are read
// twice: a first pass learns the schema from every row (and checks the
// values of the table's columns), a second streams the batches.
type input struct {
	array.RecordReader
	rows  int64 // rows in the input
	close func() error
}

// Close releases the stream and closes (or removes) the file.
func (in *input) Close() error {
	in.Release()
	return in.close()
}

// openInput opens an input file ("-" for standard input). like is the
// table's schema when the table exists: its columns are parsed as the
// table has them, the other columns are inferred from the whole input.
func openInput(ctx context.Context, path, format string, like *arrow.Schema) (*input, error) {
	f, name, done, err := openFile(path)
	if err != nil {
		return nil, err
	}
	var in *input
	switch format {
	case "parquet":
		in, err = openParquet(ctx, f, name)
	case "csv":
		in, err = openCSV(f, name, like)
	case "ndjson":
		in, err = openNDJSON(f, name, like)
	case "arrow":
		in, err = openArrowIPC(f, name)
	default:
		err = fmt.Errorf("unknown input format %q", format)
	}
	if err != nil {
		done()
		return nil, err
	}
	in.close = done
	return in, nil
}

// openFile opens path; standard input ("-") is first copied to a
// temporary file, so it can be read twice, which done removes.
func openFile(path string) (f *os.File, name string, done func() error, err error) {
	if path != "-" {
		if f, err = os.Open(path); err != nil {
			return nil, "", nil, err
		}
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, "", nil, fmt.Errorf("%s is a folder: the input must be a file", path)
		}
		return f, path, f.Close, nil
	}
	if f, err = os.CreateTemp("", "deltalite-stdin-*"); err != nil {
		return nil, "", nil, fmt.Errorf("keeping standard input in a temporary file: %w", err)
	}
	done = func() error {
		f.Close()
		return os.Remove(f.Name())
	}
	if _, err = io.Copy(f, os.Stdin); err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		done()
		return nil, "", nil, fmt.Errorf("keeping standard input in a temporary file: %w", err)
	}
	return f, "standard input", done, nil
}

func openParquet(ctx context.Context, f *os.File, name string) (*input, error) {
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %w", name, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batchRows, PreAllocBinaryData: true}, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &input{RecordReader: rr, rows: pf.NumRows()}, nil
}

// tableField finds the table's column named name, ignoring case as Delta
// does.
func tableField(like *arrow.Schema, name string) (arrow.Field, bool) {
	if like != nil {
		for _, f := range like.Fields() {
			if strings.EqualFold(f.Name, name) {
				return f, true
			}
		}
	}
	return arrow.Field{}, false
}

// scratch holds builders the first pass appends the table's columns to,
// only to check their values; it drops them every batchRows rows.
type scratch struct {
	builders []array.Builder
	rows     int
}

func (s *scratch) add(t arrow.DataType) array.Builder {
	b := array.NewBuilder(memory.DefaultAllocator, t)
	s.builders = append(s.builders, b)
	return b
}

func (s *scratch) endRow() {
	if s.rows++; s.rows%batchRows == 0 {
		for _, b := range s.builders {
			b.NewArray().Release()
		}
	}
}

func (s *scratch) release() {
	for _, b := range s.builders {
		b.Release()
	}
}

// batchReader is a RecordReader over rows that fill appends to a builder,
// at most batchRows at a time.
type batchReader struct {
	refs atomic.Int64
	sc   *arrow.Schema
	bld  *array.RecordBuilder
	fill func(*array.RecordBuilder) (int, error)
	cur  arrow.RecordBatch
	err  error
}

func newBatchReader(sc *arrow.Schema, fill func(*array.RecordBuilder) (int, error)) *batchReader {
	r := &batchReader{sc: sc, bld: array.NewRecordBuilder(memory.DefaultAllocator, sc), fill: fill}
	r.refs.Store(1)
	return r
}

func (r *batchReader) Retain() { r.refs.Add(1) }

func (r *batchReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.releaseCur()
		r.bld.Release()
	}
}

func (r *batchReader) releaseCur() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *batchReader) Schema() *arrow.Schema { return r.sc }

func (r *batchReader) Next() bool {
	r.releaseCur()
	if r.err != nil {
		return false
	}
	n, err := r.fill(r.bld)
	if err != nil {
		r.err = err
		return false
	}
	if n == 0 {
		return false
	}
	r.cur = r.bld.NewRecordBatch()
	return true
}

func (r *batchReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *batchReader) Record() arrow.RecordBatch      { return r.cur }
func (r *batchReader) Err() error                     { return r.err }

// rewind moves f back to its start for the second pass.
func rewind(f *os.File, name string) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: reading it again: %w", name, err)
	}
	return nil
}
