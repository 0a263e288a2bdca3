package deltalite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// nestedWideningTable is (id int, s struct<x int, y string>, a
// array<short>, m map<string, int>) with one row and type widening on.
func nestedWideningTable(t *testing.T) string {
	t.Helper()
	uri := t.TempDir()
	mustWrite(t, uri, jsonSource(t, nestedFields(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32),
		`[{"id":1,"s":{"x":1,"y":"a"},"a":[1,2],"m":[{"key":"k","value":3}]}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, Properties: map[string]string{"delta.enableTypeWidening": "true"}})
	return uri
}

// nestedFields are the fields of nestedWideningTable with s.x, a's
// element and m's value of the given types.
func nestedFields(x, elem, val arrow.DataType) []arrow.Field {
	return []arrow.Field{fI32("id"),
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: x, Nullable: true}, arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "a", Type: arrow.ListOf(elem), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, val), Nullable: true},
	}
}

// nestedTypeChanges is the delta.typeChanges of the table's s.x, a and m,
// as JSON.
func nestedTypeChanges(t *testing.T, uri string) [3]string {
	t.Helper()
	sc := openT(t, uri).Snapshot().Schema()
	var out [3]string
	for i, f := range []*schema.Field{sc.Field("s").Type.(*schema.Struct).Field("x"), sc.Field("a"), sc.Field("m")} {
		b, err := json.Marshal(f.Metadata[schema.TypeChangesKey])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

var nestedWidenedChanges = [3]string{
	`[{"fromType":"integer","toType":"long"}]`,
	`[{"fieldPath":"element","fromType":"short","toType":"integer"}]`,
	`[{"fieldPath":"value","fromType":"integer","toType":"long"}]`,
}

// TestMergeWidensNested: MERGE with schema evolution widens a struct
// field, an array element and a map value the source holds wider, records
// each on the field Spark records it on (the struct field itself; the
// array or map column with fieldPath element / value), and rewrites the
// kept rows in the wider types.
func TestMergeWidensNested(t *testing.T) {
	uri := nestedWideningTable(t)
	mustWrite(t, uri, jsonSource(t, nestedFields(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32),
		`[{"id":2,"s":{"x":2,"y":"b"},"a":[],"m":null}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	wide := nestedFields(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64)
	if _, err := openT(t, uri).Merge(context.Background(), jsonSource(t, wide,
		`[{"id":2,"s":{"x":5000000000,"y":"B"},"a":[70000],"m":[{"key":"k","value":6000000000}]},{"id":3,"s":null,"a":null,"m":[{"key":"z","value":-1}]}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: "upsert", SchemaMode: "merge"}); err != nil {
		t.Fatal(err)
	}
	if got := openT(t, uri).Snapshot().Schema().String(); got != "struct<id:integer,s:struct<x:long,y:string>,a:array<integer>,m:map<string,long>>" {
		t.Fatalf("schema after MERGE %s", got)
	}
	if got := nestedTypeChanges(t, uri); got != nestedWidenedChanges {
		t.Fatalf("delta.typeChanges %v", got)
	}
	assertRows(t, uri, []string{
		`a=[1, 2], id=1, m={"k": 3}, s={x=1, y="a"}`,
		`a=[70000], id=2, m={"k": 6000000000}, s={x=5000000000, y="B"}`,
		`a=null, id=3, m={"z": -1}, s=null`,
	})
}

// TestWriteWidensNested: a write in schema mode merge widens nested types
// the same way, and a second such write records nothing more.
func TestWriteWidensNested(t *testing.T) {
	uri := nestedWideningTable(t)
	wide := nestedFields(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64)
	rows := `[{"id":2,"s":{"x":5000000000,"y":"b"},"a":[70000],"m":[{"key":"k","value":6000000000}]}]`
	for range 2 {
		mustWrite(t, uri, jsonSource(t, wide, rows), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
		if got := nestedTypeChanges(t, uri); got != nestedWidenedChanges {
			t.Fatalf("delta.typeChanges %v", got)
		}
	}
	assertRows(t, uri, []string{
		`a=[1, 2], id=1, m={"k": 3}, s={x=1, y="a"}`,
		`a=[70000], id=2, m={"k": 6000000000}, s={x=5000000000, y="b"}`,
		`a=[70000], id=2, m={"k": 6000000000}, s={x=5000000000, y="b"}`,
	})
}

// TestSparkNestedTypeWidening: a table whose nested types our MERGE
// widened is read by Spark 4.4 with the wider types (its DESCRIBE and
// typeof) and written again; a table whose nested types Spark's MERGE
// WITH SCHEMA EVOLUTION widened records the same delta.typeChanges as
// ours, and goes through our MERGE and write, Spark reading the result.
func TestSparkNestedTypeWidening(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	ours := nestedWideningTable(t)
	wide := nestedFields(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64)
	if _, err := openT(t, ours).Merge(ctx, jsonSource(t, wide, `[{"id":2,"s":{"x":5000000000,"y":"b"},"a":[70000],"m":[{"key":"k","value":6000000000}]}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: "upsert", SchemaMode: "merge"}); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(t.TempDir(), "theirs")
	s := peers.Spark(t)
	res := s.Run(t,
		sparkSQL(ours, "DESCRIBE TABLE {table}", true),
		sparkSQL(ours, "INSERT INTO {table} VALUES (3, named_struct('x', 7000000000L, 'y', 'c'), array(80000), map('q', 9000000000L))", false),
		peers.ReadOp(ours, peers.ReadOptions{}),
		sparkSQL(theirs, "CREATE TABLE {table} (id INT, s STRUCT<x: INT, y: STRING>, a ARRAY<SMALLINT>, m MAP<STRING, INT>) USING delta "+
			"TBLPROPERTIES ('delta.enableTypeWidening' = 'true')", false),
		sparkSQL(theirs, "INSERT INTO {table} VALUES (1, named_struct('x', 1, 'y', 'a'), array(1S, 2S), map('k', 3))", false),
		sparkSQL(theirs, "MERGE WITH SCHEMA EVOLUTION INTO {table} AS t USING (SELECT 2 AS id, named_struct('x', 5000000000L, 'y', 'b') AS s, "+
			"array(70000) AS a, map('k', 6000000000L) AS m) AS src ON t.id = src.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *", false),
	)
	var described []string
	for _, l := range res[0].Table(t).Lines(t) {
		if strings.Contains(l, `col_name="s"`) || strings.Contains(l, `col_name="a"`) || strings.Contains(l, `col_name="m"`) {
			described = append(described, l)
		}
	}
	if got := strings.Join(described, "\n"); !strings.Contains(got, `data_type="struct<x:bigint,y:string>"`) ||
		!strings.Contains(got, `data_type="array<int>"`) || !strings.Contains(got, `data_type="map<string,bigint>"`) {
		t.Fatalf("Spark's DESCRIBE of our widened table:\n%s", got)
	}
	oursRows := []string{
		`a=[1, 2], id=1, m={"k": 3}, s={x=1, y="a"}`,
		`a=[70000], id=2, m={"k": 6000000000}, s={x=5000000000, y="b"}`,
		`a=[80000], id=3, m={"q": 9000000000}, s={x=7000000000, y="c"}`,
	}
	arrowrows.Diff(t, res[2].Table(t).Lines(t), sortedCopy(oursRows))
	assertRows(t, ours, oursRows)

	// Spark records its nested widening as we do.
	if got := openT(t, theirs).Snapshot().Schema().String(); got != "struct<id:integer,s:struct<x:long,y:string>,a:array<integer>,m:map<string,long>>" {
		t.Fatalf("Spark's widened schema as we read it: %s", got)
	}
	if got := nestedTypeChanges(t, theirs); got != nestedWidenedChanges {
		t.Fatalf("Spark's delta.typeChanges %v, ours %v", got, nestedWidenedChanges)
	}
	// Our MERGE and write on it; Spark reads the rows.
	if _, err := openT(t, theirs).Merge(ctx, jsonSource(t, nestedFields(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32),
		`[{"id":1,"s":{"x":10,"y":"A"},"a":[3],"m":[{"key":"k","value":30}]}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: "upsert", SchemaMode: "merge"}); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, theirs, jsonSource(t, wide, `[{"id":4,"s":{"x":-5000000000,"y":"d"},"a":[-70000],"m":[{"key":"n","value":-6000000000}]}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	theirRows := []string{
		`a=[3], id=1, m={"k": 30}, s={x=10, y="A"}`,
		`a=[70000], id=2, m={"k": 6000000000}, s={x=5000000000, y="b"}`,
		`a=[-70000], id=4, m={"n": -6000000000}, s={x=-5000000000, y="d"}`,
	}
	assertRows(t, theirs, theirRows)
	res = s.Run(t, peers.ReadOp(theirs, peers.ReadOptions{}))
	arrowrows.Diff(t, res[0].Table(t).Lines(t), sortedCopy(theirRows))
}
