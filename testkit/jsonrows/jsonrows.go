// Package jsonrows builds test tables' schemas from compact column specs and
// their record batches from JSON rows, for the tests of the engine's
// packages.
package jsonrows

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
)

// Fields builds a schemaString from "name type [not null]" specs, with
// types in Delta's JSON spelling (nested types as JSON objects).
func Fields(spec ...string) string {
	var parts []string
	for _, s := range spec {
		name, rest, _ := strings.Cut(s, " ")
		nullable := "true"
		if strings.HasSuffix(rest, " not null") {
			rest, nullable = strings.TrimSuffix(rest, " not null"), "false"
		}
		if !strings.HasPrefix(rest, "{") {
			rest = `"` + rest + `"`
		}
		parts = append(parts, `{"name":"`+name+`","type":`+rest+`,"nullable":`+nullable+`,"metadata":{}}`)
	}
	return `{"type":"struct","fields":[` + strings.Join(parts, ",") + `]}`
}

// Schema parses a schemaString; a failure fails t.
func Schema(t testing.TB, js string) *schema.Struct {
	t.Helper()
	sc, err := schema.Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Batch builds a batch of the schema's logical Arrow form from a JSON array
// of rows; the caller releases it. A failure fails t.
func Batch(t testing.TB, mem memory.Allocator, sc *schema.Struct, rows string) arrow.RecordBatch {
	t.Helper()
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return Record(t, mem, as, rows)
}

// Record builds a batch of an Arrow schema from a JSON array of rows; the
// caller releases it. A failure fails t.
func Record(t testing.TB, mem memory.Allocator, as *arrow.Schema, rows string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := array.RecordFromJSON(mem, as, strings.NewReader(rows))
	if err != nil {
		t.Fatalf("rows %s: %v", rows, err)
	}
	return rec
}

// Reader is a stream of one batch of an Arrow schema built from a JSON
// array of rows. A failure fails t.
func Reader(t testing.TB, as *arrow.Schema, rows string) array.RecordReader {
	t.Helper()
	rec := Record(t, memory.DefaultAllocator, as, rows)
	defer rec.Release()
	rr, err := array.NewRecordReader(as, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return rr
}
