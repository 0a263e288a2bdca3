package peers_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/peers"
)

// typesSchema covers every canonical form: integers of each width, floats
// of both widths (NaN included), decimal, string, binary, boolean, date,
// both timestamps, struct, list and map, with a partition column. No column
// is NOT NULL: delta-rs 1.6.6 writes such a table with timestampNtz as
// writer version 7 without the invariants feature, which Delta Spark 4.4
// refuses to read (DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH).
var typesSchema = []map[string]any{
	{"name": "id", "type": "long"},
	{"name": "p", "type": "string"},
	{"name": "i8", "type": "byte"},
	{"name": "i16", "type": "short"},
	{"name": "i32", "type": "integer"},
	{"name": "f32", "type": "float"},
	{"name": "f64", "type": "double"},
	{"name": "dec", "type": "decimal(10,2)"},
	{"name": "b", "type": "binary"},
	{"name": "ok", "type": "boolean"},
	{"name": "d", "type": "date"},
	{"name": "ts", "type": "timestamp"},
	{"name": "tsn", "type": "timestamp_ntz"},
	{"name": "s", "type": "struct<a:integer,b:string>"},
	{"name": "l", "type": "array<long>"},
	{"name": "m", "type": "map<string,integer>"},
}

var typesRows = []map[string]any{
	{"id": 1, "p": "a/b", "i8": -8, "i16": 16, "i32": 32, "f32": 0.1, "f64": "NaN", "dec": "12.30", "b": "00ff",
		"ok": true, "d": "2024-02-29", "ts": 1700000000123456, "tsn": "2024-01-02T03:04:05.000006",
		"s": map[string]any{"a": 1, "b": "x"}, "l": []any{1, 2}, "m": map[string]any{"k": 1, "a": 2}},
	{"id": 2, "p": "50%", "f64": 1.5},
	{"id": 3, "p": "c d=e", "f32": -2.5e-10, "f64": "-Infinity", "dec": "-0.01", "ts": -1, "d": "1969-12-31",
		"s": map[string]any{"a": nil, "b": "ü"}, "l": []any{}, "m": map[string]any{}},
}

// TestPeersAgree proves the peer harness end to end: delta-rs writes a table
// with every type, and delta-rs, pyarrow, DuckDB, polars and Spark read the
// same rows back through the canonical form; Spark writes a table with
// deletion vectors and column mapping, and delta-rs reads what Spark reads.
func TestPeersAgree(t *testing.T) {
	dir := t.TempDir()
	types := filepath.Join(dir, "types")
	peers.WriteTable(t, map[string]any{
		"engine": "deltalake",
		"path":   types,
		"steps": []map[string]any{
			{"op": "write", "mode": "append", "partition_by": []string{"p"}, "schema": typesSchema, "rows": typesRows},
		},
	})
	want := peers.ReadTable(t, peers.DeltaRS, types, peers.ReadOptions{}).Lines(t)
	if len(want) != len(typesRows) {
		t.Fatalf("delta-rs read %d rows, want %d:\n%q", len(want), len(typesRows), want)
	}
	for _, engine := range []string{peers.PyArrow, peers.DuckDB, peers.Polars} {
		got := peers.ReadTable(t, engine, types, peers.ReadOptions{}).Lines(t)
		if !slices.Equal(got, want) {
			t.Errorf("%s read\n%q\nwant (delta-rs)\n%q", engine, got, want)
		}
	}

	s := peers.Spark(t)
	dvs := filepath.Join(dir, "spark-dv-cm")
	res := s.Run(t,
		peers.ReadOp(types, peers.ReadOptions{}),
		peers.Op{"op": "write", "path": dvs, "mode": "append", "partition_by": []string{"p"},
			"properties": map[string]string{"delta.enableDeletionVectors": "true", "delta.columnMapping.mode": "name"},
			"schema":     []map[string]any{{"name": "id", "type": "long"}, {"name": "p", "type": "string"}, {"name": "v", "type": "double"}},
			"rows": []map[string]any{
				{"id": 1, "p": "x", "v": 1.5}, {"id": 2, "p": "x", "v": 2.5}, {"id": 3, "p": "y", "v": 3.5}, {"id": 4, "p": "y"},
			}},
		peers.Op{"op": "delete", "path": dvs, "predicate": "id = 2"},
		peers.Op{"op": "sql", "path": dvs, "sql": "ALTER TABLE {table} RENAME COLUMN v TO w", "collect": false},
		peers.ReadOp(dvs, peers.ReadOptions{}),
	)
	if got := res[0].Table(t).Lines(t); !slices.Equal(got, want) {
		t.Errorf("spark read\n%q\nwant (delta-rs)\n%q", got, want)
	}
	sparkRows := res[4].Table(t)
	if got, want := sparkRows.Int64s(t, "id"), []int64{1, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("spark reads ids %v of its own table, want %v", got, want)
	}
	if got, want := peers.ReadTable(t, peers.DeltaRS, dvs, peers.ReadOptions{}).Lines(t), sparkRows.Lines(t); !slices.Equal(got, want) {
		t.Errorf("delta-rs read Spark's table as\n%q\nwant (spark)\n%q", got, want)
	}
}
