package deltalite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// TestMergeAddsNestedFields: MERGE with schema evolution adds the struct
// fields the source holds and the table lacks (at the struct's end, as
// Spark adds them), inside arrays of structs too; kept rows read null for
// them, updated and inserted rows take the source's values.
func TestMergeAddsNestedFields(t *testing.T) {
	uri := t.TempDir()
	narrow := []arrow.Field{fI32("id"),
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true})), Nullable: true},
	}
	mustWrite(t, uri, jsonSource(t, narrow, `[{"id":1,"s":{"x":1},"l":[{"a":"p"}]},{"id":2,"s":{"x":2},"l":null}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	wide := []arrow.Field{fI32("id"),
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "z", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int32, Nullable: true})), Nullable: true},
	}
	if _, err := openT(t, uri).Merge(context.Background(), jsonSource(t, wide,
		`[{"id":2,"s":{"x":20,"z":"two"},"l":[{"a":"q","b":7}]},{"id":3,"s":{"x":3,"z":"three"},"l":[]}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: "upsert", SchemaMode: "merge"}); err != nil {
		t.Fatal(err)
	}
	if got := openT(t, uri).Snapshot().Schema().String(); got != "struct<id:integer,s:struct<x:integer,z:string>,l:array<struct<a:string,b:integer>>>" {
		t.Fatalf("schema after MERGE %s", got)
	}
	assertRows(t, uri, []string{
		`id=1, l=[{a="p", b=null}], s={x=1, z=null}`,
		`id=2, l=[{a="q", b=7}], s={x=20, z="two"}`,
		`id=3, l=[], s={x=3, z="three"}`,
	})
}

// TestSparkMergeAddsNestedFields: Spark's MERGE WITH SCHEMA EVOLUTION adds
// the same nested fields and column where we add them, and Spark reads our
// evolved table with column mapping on: the new fields' values are written
// under the physical names the commit gives them.
func TestSparkMergeAddsNestedFields(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ours := t.TempDir()
	narrow := []arrow.Field{fI32("id"),
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true})), Nullable: true},
	}
	mustWrite(t, ours, jsonSource(t, narrow, `[{"id":1,"s":{"x":1},"l":[{"a":"p"}]}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, Properties: map[string]string{"delta.columnMapping.mode": "name"}})
	wide := []arrow.Field{fI32("id"),
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "z", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int32, Nullable: true})), Nullable: true},
		{Name: "n", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	if _, err := openT(t, ours).Merge(context.Background(), jsonSource(t, wide, `[{"id":2,"s":{"x":2,"z":"two"},"l":[{"a":"q","b":7}],"n":"new"}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: "upsert", SchemaMode: "merge"}); err != nil {
		t.Fatal(err)
	}
	const evolved = "struct<id:integer,s:struct<x:integer,z:string>,l:array<struct<a:string,b:integer>>,n:string>"
	if got := openT(t, ours).Snapshot().Schema().String(); got != evolved {
		t.Fatalf("our schema after MERGE %s", got)
	}
	theirs := filepath.Join(t.TempDir(), "theirs")
	res := peers.Spark(t).Run(t,
		peers.ReadOp(ours, peers.ReadOptions{}),
		sparkSQL(theirs, "CREATE TABLE {table} (id INT, s STRUCT<x: INT>, l ARRAY<STRUCT<a: STRING>>) USING delta", false),
		sparkSQL(theirs, "INSERT INTO {table} VALUES (1, named_struct('x', 1), array(named_struct('a', 'p')))", false),
		sparkSQL(theirs, "MERGE WITH SCHEMA EVOLUTION INTO {table} AS t USING (SELECT 2 AS id, named_struct('x', 2, 'z', 'two') AS s, "+
			"array(named_struct('a', 'q', 'b', 7)) AS l, 'new' AS n) AS src ON t.id = src.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *", false),
	)
	rows := []string{
		`id=1, l=[{a="p", b=null}], n=null, s={x=1, z=null}`,
		`id=2, l=[{a="q", b=7}], n="new", s={x=2, z="two"}`,
	}
	arrowrows.Diff(t, res[0].Table(t).Lines(t), sortedCopy(rows))
	if got := openT(t, theirs).Snapshot().Schema().String(); got != evolved {
		t.Fatalf("Spark's schema after its MERGE WITH SCHEMA EVOLUTION %s, ours %s", got, evolved)
	}
	assertRows(t, theirs, rows)
}

// TestWriteAddsFieldsInArrays: a write in schema mode merge adds the
// fields of a struct within an array or a map the source holds, as it
// adds those of a struct column; older rows read them as null.
func TestWriteAddsFieldsInArrays(t *testing.T) {
	uri := t.TempDir()
	narrow := []arrow.Field{fI32("id"),
		{Name: "l", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true})), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.StructOf(arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int32, Nullable: true})), Nullable: true},
	}
	mustWrite(t, uri, jsonSource(t, narrow, `[{"id":1,"l":[{"a":"p"}],"m":[{"key":"k","value":{"v":1}}]}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	wide := []arrow.Field{fI32("id"),
		{Name: "l", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int32, Nullable: true})), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.StructOf(arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "w", Type: arrow.BinaryTypes.String, Nullable: true})), Nullable: true},
	}
	mustWrite(t, uri, jsonSource(t, wide, `[{"id":2,"l":[{"a":"q","b":7}],"m":[{"key":"k","value":{"v":2,"w":"x"}}]}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	if got := openT(t, uri).Snapshot().Schema().String(); got != "struct<id:integer,l:array<struct<a:string,b:integer>>,m:map<string,struct<v:integer,w:string>>>" {
		t.Fatalf("schema after the write %s", got)
	}
	assertRows(t, uri, []string{
		`id=1, l=[{a="p", b=null}], m={"k": {v=1, w=null}}`,
		`id=2, l=[{a="q", b=7}], m={"k": {v=2, w="x"}}`,
	})
}
