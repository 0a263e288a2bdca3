package deltalite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sparkGeneratedJSON are generated columns of the JSON functions.
var sparkGeneratedJSON = []struct{ col, typ, expr string }{
	{"gw", "STRING", `get_json_object(s, '$.k[*].v')`},
	{"ga", "STRING", `get_json_object(s, '$.k[*]')`},
	{"tj", "STRING", "to_json(st)"},
	{"tm", "STRING", "to_json(m)"},
	{"sj", "STRING", `concat(schema_of_json('{"a":[1, 2.5],"b":null}'), ':', length(s))`},
	{"fj", "STRING", `to_json(from_json(s, 'k ARRAY<STRUCT<v: INT>>, z ARRAY<STRING>'))`},
	{"fs", "STRING", `to_json(from_json(s, 'k ARRAY<MAP<STRING, DOUBLE>>'))`},
}

// TestSparkGeneratedJSONColumns: on a table Spark creates with generated
// columns of get_json_object with [*] wildcards, to_json of a struct and
// a map, schema_of_json and from_json (written back as JSON), and a
// CHECK constraint of them, Spark and we
// insert the same source values and get the same generated values; a row
// the constraint refuses is refused naming it; after our UPDATE and MERGE
// Spark finds every row equal to its own expressions.
func TestSparkGeneratedJSONColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "genjson")
	cols, wrong := generatedDDL(sparkGeneratedJSON)
	const check = `length(to_json(st)) >= 2 AND get_json_object(s, '$.k[*].v') IS DISTINCT FROM '"bad"'`
	rows := []struct{ spark, ours string }{
		{`('{"k":[{"v":1},{"v":"x"},{"w":2}]}', named_struct('a', 1, 'b', array('x', NULL), 'd', DATE'2024-02-29'), map('a', 1, 'b', NULL))`,
			`"s":"{\"k\":[{\"v\":1},{\"v\":\"x\"},{\"w\":2}]}","st":{"a":1,"b":["x",null],"d":"2024-02-29"},"m":[{"key":"a","value":1},{"key":"b","value":null}]`},
		{`('{"k":[{"v":[1,2.50]}]}', named_struct('a', CAST(NULL AS INT), 'b', CAST(NULL AS ARRAY<STRING>), 'd', CAST(NULL AS DATE)), map_from_arrays(CAST(array() AS ARRAY<STRING>), CAST(array() AS ARRAY<INT>)))`,
			`"s":"{\"k\":[{\"v\":[1,2.50]}]}","st":{},"m":[]`},
		{`('{''k'':[{''v'':''\\u00e9 \\ud83d\\ude00''}], "z":[]}', named_struct('a', -7, 'b', array('q"\\', 'é😀'), 'd', DATE'1969-12-31'), map('z', -1))`,
			`"s":"{'k':[{'v':'\\u00e9 \\ud83d\\ude00'}], \"z\":[]}","st":{"a":-7,"b":["q\"\\","é😀"],"d":"1969-12-31"},"m":[{"key":"z","value":-1}]`},
		{`('not json', named_struct('a', 0, 'b', array(), 'd', DATE'2000-01-01'), NULL)`,
			`"s":"not json","st":{"a":0,"b":[],"d":"2000-01-01"}`},
	}
	var sparkValues, ours []string
	for i, r := range rows {
		sparkValues = append(sparkValues, fmt.Sprintf("(%d, %s", i, strings.TrimPrefix(r.spark, "(")))
		ours = append(ours, fmt.Sprintf(`{"k":%d,%s}`, 100+i, r.ours))
	}
	stType := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		arrow.Field{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true})
	fields := []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "st", Type: stType, Nullable: true}, {Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true}}
	s := peers.Spark(t)
	s.Run(t,
		sparkSQL(dir, "CREATE TABLE {table} (k INT, s STRING, st STRUCT<a: INT, b: ARRAY<STRING>, d: DATE>, m MAP<STRING, INT>, "+strings.Join(cols, ", ")+") USING delta", false),
		sparkSQL(dir, "ALTER TABLE {table} ADD CONSTRAINT jsonok CHECK ("+check+")", false),
		sparkSQL(dir, "INSERT INTO {table} (k, s, st, m) VALUES "+strings.Join(sparkValues, ", "), false),
	)
	mustWrite(t, dir, jsonSource(t, fields, "["+strings.Join(ours, ",")+"]"), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	sameGeneratedPerRow(t, dir, len(rows))

	refusedUnchanged(t, dir, "a row the CHECK refuses", "CHECK constraint jsonok", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, `[{"k":9,"s":"[{\"k\":[{\"v\":\"bad\"}]}]","st":{}},{"k":9,"s":"{\"k\":[{\"v\":\"bad\"}]}","st":{}}]`),
			deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})
	tb := openT(t, dir)
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "k = 101", Set: map[string]string{
		"s": `'[{"k":[]},{"k":[{"v":{"x":null}},{"v":2}]}]'`}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Merge(ctx, jsonSource(t, fields, `[{"k":100,"s":"{\"k\":[{\"v\":1.0E30}]}","st":{"a":5,"b":null,"d":"2024-01-01"}},{"k":200,"s":"{\"k\":{\"v\":3}}","st":{"b":["\u0001"]},"m":[{"key":"n","value":null}]}]`),
		deltalite.MergeOptions{Predicate: "t.k = s.k", MergeType: "upsert"}); err != nil {
		t.Fatal(err)
	}
	sparkRechecksGenerated(t, s, dir, wrong)
}

// sameGeneratedPerRow checks that Spark's rows (k = i) and ours (k = 100
// + i) agree on every other column, n of each.
func sameGeneratedPerRow(t *testing.T, dir string, n int) {
	t.Helper()
	byRest := map[string][]string{}
	kField := regexp.MustCompile(`(^|, )k=-?\d+`)
	for _, r := range readRows(t, dir) {
		rest := kField.ReplaceAllString(r, "")
		byRest[rest] = append(byRest[rest], kField.FindString(r))
	}
	var bad []string
	for rest, ks := range byRest {
		if len(ks) != 2 {
			bad = append(bad, fmt.Sprintf("%v: %s", ks, rest))
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 || len(byRest) != n {
		t.Fatalf("Spark's rows and ours differ (%d distinct of %d):\n%s", len(byRest), n, strings.Join(bad, "\n"))
	}
}
