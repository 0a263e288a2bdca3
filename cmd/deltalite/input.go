package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// inputFormat picks the reader from --input-format or the file extension.
func inputFormat(path, explicit string) (string, error) {
	if explicit != "" {
		switch explicit {
		case "parquet", "csv", "ndjson":
			return explicit, nil
		case "jsonl", "json":
			return "ndjson", nil
		}
		return "", fmt.Errorf("unknown --input-format %q (use parquet, csv or ndjson)", explicit)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return "parquet", nil
	case ".csv":
		return "csv", nil
	case ".ndjson", ".jsonl":
		return "ndjson", nil
	}
	if path == "-" {
		return "", fmt.Errorf("reading standard input needs --input-format parquet, csv or ndjson")
	}
	return "", fmt.Errorf("cannot tell the format of %q from its extension: pass --input-format", path)
}

// openInput returns a record stream over an input file. For NDJSON, the
// schema is inferred from the first lines, taking the types of like (the
// table's schema, when it exists) for the columns it has.
func openInput(ctx context.Context, path, format string, like *arrow.Schema) (array.RecordReader, func() error, error) {
	var f *os.File
	if path == "-" {
		f = os.Stdin
	} else {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, nil, err
		}
	}
	closeFn := f.Close
	mem := memory.DefaultAllocator
	switch format {
	case "parquet":
		var ra interface {
			io.ReaderAt
			io.Seeker
		} = f
		if path == "-" {
			data, err := io.ReadAll(f)
			if err != nil {
				return nil, nil, err
			}
			ra = strings.NewReader(string(data))
		}
		pf, err := file.NewParquetReader(ra)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: not a readable Parquet file: %w", path, err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10, PreAllocBinaryData: true}, mem)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		rr, err := fr.GetRecordReader(ctx, nil, nil)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return rr, func() error { pf.Close(); return closeFn() }, nil
	case "csv":
		r := csv.NewInferringReader(f, csv.WithHeader(true), csv.WithChunk(64<<10), csv.WithNullReader(true, ""), csv.WithAllocator(mem))
		// The schema is known once the first chunk is read.
		pr, err := peek(r)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return pr, closeFn, nil
	case "ndjson":
		br := bufio.NewReaderSize(f, 1<<20)
		sc, err := inferJSONSchema(br, like)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		r := array.NewJSONReader(br, sc, array.WithChunk(64<<10), array.WithAllocator(mem))
		return r, closeFn, nil
	}
	return nil, nil, fmt.Errorf("unknown input format %q", format)
}

// inferJSONSchema looks at the first lines of an NDJSON stream (without
// consuming them) and picks, per key in first-seen order, the type like
// gives the column, else int64, float64, bool or string. Nested values of
// columns like lacks need a schema: create the table first.
func inferJSONSchema(br *bufio.Reader, like *arrow.Schema) (*arrow.Schema, error) {
	known := func(k string) (arrow.Field, bool) {
		if like == nil {
			return arrow.Field{}, false
		}
		for _, f := range like.Fields() {
			if strings.EqualFold(f.Name, k) {
				return f, true
			}
		}
		return arrow.Field{}, false
	}
	peek, _ := br.Peek(1 << 20)
	lines := strings.Split(string(peek), "\n")
	if len(lines) > 1 && len(peek) == 1<<20 {
		lines = lines[:len(lines)-1] // the last line may be cut
	}
	var order []string
	kinds := map[string]string{}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(l))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			return nil, fmt.Errorf("line is not a JSON object: %.60s", l)
		}
		for k, v := range obj {
			if _, ok := known(k); ok {
				if _, seen := kinds[k]; !seen {
					order = append(order, k)
					kinds[k] = "table"
				}
				continue
			}
			if kind := jsonKind(v); kind == "nested" {
				return nil, fmt.Errorf("key %q holds a nested value: create the table first (deltalite create --schema) so its schema is used", k)
			}
			if _, seen := kinds[k]; !seen {
				order = append(order, k)
				kinds[k] = ""
			}
			kinds[k] = widen(kinds[k], jsonKind(v))
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("no JSON objects to infer a schema from")
	}
	fields := make([]arrow.Field, len(order))
	for i, k := range order {
		if f, ok := known(k); ok {
			fields[i] = arrow.Field{Name: k, Type: f.Type, Nullable: true}
			continue
		}
		var t arrow.DataType = arrow.BinaryTypes.String
		switch kinds[k] {
		case "int":
			t = arrow.PrimitiveTypes.Int64
		case "float":
			t = arrow.PrimitiveTypes.Float64
		case "bool":
			t = arrow.FixedWidthTypes.Boolean
		}
		fields[i] = arrow.Field{Name: k, Type: t, Nullable: true}
	}
	return arrow.NewSchema(fields, nil), nil
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return "bool"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "int"
		}
		return "float"
	case map[string]any, []any:
		return "nested"
	}
	return "string"
}

func widen(a, b string) string {
	switch {
	case a == "" || a == b:
		return b
	case b == "":
		return a
	case (a == "int" && b == "float") || (a == "float" && b == "int"):
		return "float"
	}
	return "string"
}

// peeked replays a first batch read ahead (to learn the schema) and then
// continues with the stream.
type peeked struct {
	array.RecordReader
	first arrow.RecordBatch
	cur   arrow.RecordBatch
	sc    *arrow.Schema
}

func peek(r array.RecordReader) (array.RecordReader, error) {
	p := &peeked{RecordReader: r}
	if r.Next() {
		p.first = r.RecordBatch()
		p.first.Retain()
		p.sc = p.first.Schema()
	} else if err := r.Err(); err != nil {
		return nil, err
	} else if p.sc = r.Schema(); p.sc == nil {
		return nil, fmt.Errorf("the input is empty: no header to take a schema from")
	}
	return p, nil
}

func (p *peeked) Schema() *arrow.Schema { return p.sc }

func (p *peeked) Next() bool {
	if p.cur != nil && p.cur == p.first {
		p.first.Release()
		p.first = nil
	}
	if p.first != nil {
		p.cur = p.first
		return true
	}
	if !p.RecordReader.Next() {
		p.cur = nil
		return false
	}
	p.cur = p.RecordReader.RecordBatch()
	return true
}

func (p *peeked) RecordBatch() arrow.RecordBatch { return p.cur }
func (p *peeked) Record() arrow.RecordBatch      { return p.cur }
