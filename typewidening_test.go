package deltalite_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
)

var (
	fI32 = func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int32, Nullable: true}
	}
	fI64 = func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	}
	fF32 = func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Float32, Nullable: true}
	}
	fF64 = func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	}
	fDec = func(n string, p, s int32) arrow.Field {
		return arrow.Field{Name: n, Type: &arrow.Decimal128Type{Precision: p, Scale: s}, Nullable: true}
	}
	fNTZ = arrow.Field{Name: "d", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true}
)

// wideningTable is (id int, v int, f float, dec decimal(9,2), d date) with
// two rows, type widening enabled (and timestampNtz when ntz).
func wideningTable(t *testing.T, props map[string]string) string {
	t.Helper()
	uri := t.TempDir()
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fI32("id"), fI32("v"), fF32("f"), fDec("dec", 9, 2), fD},
		`[{"id":1,"v":10,"f":1.1,"dec":"1.23","d":"2024-03-01"},{"id":2,"v":-20,"f":null,"dec":"-4.50","d":null}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, Properties: props})
	return uri
}

// typeChanges is the delta.typeChanges of a column of the table at uri,
// as JSON.
func typeChanges(t *testing.T, uri, col string) string {
	t.Helper()
	f := openT(t, uri).Snapshot().Schema().Field(col)
	if f == nil {
		t.Fatalf("no column %s", col)
	}
	b, err := json.Marshal(f.Metadata[schema.TypeChangesKey])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSchemaMergeWidens: on a table with type widening, a write in schema
// mode merge widens the columns its source has wider (every change Spark
// makes automatically), records each change as Spark does, and reads the
// old rows as the wider type; without type widening the same write is
// refused naming the column, both types and the property, and changes
// nothing.
func TestSchemaMergeWidens(t *testing.T) {
	ctx := context.Background()
	wider := []arrow.Field{fI64("id"), fF64("v"), fF64("f"), fDec("dec", 12, 3), fNTZ}
	rows := `[{"id":3000000000,"v":0.5,"f":2.25,"dec":"123456789.125","d":"2024-03-02T10:00:00"}]`

	plain := wideningTable(t, nil)
	refusedUnchangedKind(t, plain, deltalite.ErrSchemaMismatch, "no type widening", `column "id" is integer in the table but long in the source: widening it needs type widening on the table (set delta.enableTypeWidening=true`, func() error {
		_, err := deltalite.Write(ctx, plain, jsonSource(t, wider, rows), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
		return err
	})

	// date -> timestamp_ntz needs the timestampNtz feature, as Spark asks.
	noNTZ := wideningTable(t, map[string]string{"delta.enableTypeWidening": "true"})
	refusedUnchangedKind(t, noNTZ, deltalite.ErrInvalidArgument, "no timestampNtz", `column "d" cannot be widened from date to timestamp_ntz: the table lacks the timestampNtz feature`, func() error {
		_, err := deltalite.Write(ctx, noNTZ, jsonSource(t, wider, rows), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
		return err
	})

	// A column a CHECK constraint reads keeps its type, as Spark's schema
	// evolution keeps it (checkDependentExpressions).
	checked := wideningTable(t, map[string]string{"delta.enableTypeWidening": "true", "delta.feature.timestampNtz": "supported"})
	if _, err := openT(t, checked).Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"v_small": "v < 100"}}); err != nil {
		t.Fatal(err)
	}
	refusedUnchanged(t, checked, "constrained column", `column "v" cannot be widened from integer to double because CHECK constraint v_small (v < 100) reads it`, func() error {
		_, err := deltalite.Write(ctx, checked, jsonSource(t, wider, rows), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
		return err
	})

	uri := wideningTable(t, map[string]string{"delta.enableTypeWidening": "true", "delta.feature.timestampNtz": "supported"})
	// A narrower source is cast up and changes nothing.
	mustWrite(t, uri, jsonSource(t, []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int8, Nullable: true}}, `[{"id":7}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	if got := openT(t, uri).Snapshot().Schema().String(); got != "struct<id:integer,v:integer,f:float,dec:decimal(9,2),d:date>" {
		t.Fatalf("a narrower source changed the schema: %s", got)
	}
	mustWrite(t, uri, jsonSource(t, wider, rows), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	tb := openT(t, uri)
	if got := tb.Snapshot().Schema().String(); got != "struct<id:long,v:double,f:double,dec:decimal(12,3),d:timestamp_ntz>" {
		t.Fatalf("widened schema %s", got)
	}
	for col, want := range map[string]string{
		"id":  `[{"fromType":"integer","toType":"long"}]`,
		"v":   `[{"fromType":"integer","toType":"double"}]`,
		"f":   `[{"fromType":"float","toType":"double"}]`,
		"dec": `[{"fromType":"decimal(9,2)","toType":"decimal(12,3)"}]`,
		"d":   `[{"fromType":"date","toType":"timestamp_ntz"}]`,
	} {
		if got := typeChanges(t, uri, col); got != want {
			t.Errorf("%s: delta.typeChanges %s, want %s", col, got, want)
		}
	}
	assertRows(t, uri, []string{
		"d=2024-03-01T00:00:00.000000Z, dec=1.23, f=1.100000023841858, id=1, v=10",
		"d=null, dec=-4.5, f=null, id=2, v=-20",
		"d=null, dec=null, f=null, id=7, v=null",
		"d=2024-03-02T10:00:00.000000Z, dec=123456789.125, f=2.25, id=3000000000, v=0.5",
	})
	// Old files' statistics still prune, read as the wider types (from the
	// log, then from a checkpoint): the first two files hold id 1, 2 and 7.
	prunes := map[string]int{
		"id = 3000000000": 1,
		"id < 5":          1,
		"f > 2.0":         1,
		"dec > 100":       1,
		"d >= TIMESTAMP_NTZ '2024-03-01 00:00:00'": 2,
		"d > TIMESTAMP_NTZ '2024-03-01 00:00:01'":  1,
	}
	for i := range 2 {
		for where, files := range prunes {
			tasks, err := scan.New(tb.Snapshot(), scan.WithWhere(where)).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(tasks) != files {
				t.Errorf("pass %d: WHERE %s: %d files planned, want %d", i, where, len(tasks), files)
			}
		}
		if _, err := tb.Checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
		tb = openT(t, uri)
	}
	// A later merge write with the wider types changes nothing more.
	mustWrite(t, uri, jsonSource(t, wider, rows), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	if got := typeChanges(t, uri, "id"); got != `[{"fromType":"integer","toType":"long"}]` {
		t.Fatalf("id after a second write: %s", got)
	}
}

// refusedUnchangedKind is refusedUnchanged for an error of kind.
func refusedUnchangedKind(t *testing.T, dir string, kind error, what, want string, f func() error) {
	t.Helper()
	before := logFiles(t, dir)
	err := f()
	if !errors.Is(err, kind) || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: error %v, want %v naming %q", what, err, kind, want)
	}
	if after := logFiles(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("%s: the refusal changed the table:\n%s", what, strings.Join(after, "\n"))
	}
}

// TestAlterChangeType: alter's ChangeTypes widens columns one CHANGE
// COLUMN commit each, with Spark's commitInfo and delta.typeChanges, after
// the property that enables it; old rows read as the new types, new rows
// take the range; every refusal names the column and the two types and
// changes nothing.
func TestAlterChangeType(t *testing.T) {
	ctx := context.Background()
	uri := wideningTable(t, nil)
	tb := openT(t, uri)
	long := &schema.Primitive{Name: schema.Long}
	refusedUnchanged(t, uri, "no type widening", `column "id" cannot change from integer to long: the table does not enable type widening; set delta.enableTypeWidening=true first`, func() error {
		_, err := tb.Alter(ctx, deltalite.AlterOptions{ChangeTypes: map[string]schema.Type{"id": long}})
		return err
	})
	done, err := tb.Alter(ctx, deltalite.AlterOptions{
		SetProperties: map[string]string{"delta.enableTypeWidening": "true", "delta.feature.timestampNtz": "supported"},
		ChangeTypes: map[string]schema.Type{
			"id": long, "v": &schema.Decimal{Precision: 10, Scale: 0}, "f": &schema.Primitive{Name: schema.Double},
			"dec": &schema.Decimal{Precision: 12, Scale: 3}, "d": &schema.Primitive{Name: schema.TimestampNTZ},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, c := range done {
		ops = append(ops, c.Operation)
	}
	if strings.Join(ops, ",") != "SET TBLPROPERTIES,CHANGE COLUMN,CHANGE COLUMN,CHANGE COLUMN,CHANGE COLUMN,CHANGE COLUMN" || done[len(done)-1].Version != 6 {
		t.Fatalf("commits %+v", done)
	}
	op, params, _ := lastCommit(t, uri)
	if op != "CHANGE COLUMN" || params["column"] != `{"name":"v","type":"decimal(10,0)","nullable":true,"metadata":{}}` {
		t.Fatalf("commitInfo %s %v", op, params)
	}
	if got := openT(t, uri).Snapshot().Schema().String(); got != "struct<id:long,v:decimal(10,0),f:double,dec:decimal(12,3),d:timestamp_ntz>" {
		t.Fatalf("schema %s", got)
	}
	if got := typeChanges(t, uri, "v"); got != `[{"fromType":"integer","toType":"decimal(10,0)"}]` {
		t.Fatalf("v: %s", got)
	}
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fI64("id"), fDec("v", 10, 0), fNTZ}, `[{"id":9000000000,"v":"9999999999","d":"2024-05-01T12:00:00"}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	assertRows(t, uri, []string{
		"d=2024-03-01T00:00:00.000000Z, dec=1.23, f=1.100000023841858, id=1, v=10",
		"d=null, dec=-4.5, f=null, id=2, v=-20",
		"d=2024-05-01T12:00:00.000000Z, dec=null, f=null, id=9000000000, v=9999999999",
	})

	tb = openT(t, uri)
	for _, c := range []struct {
		col  string
		to   schema.Type
		want string
	}{
		{"id", &schema.Primitive{Name: schema.Integer}, `column "id" cannot change from long to integer: only widening changes are allowed`},
		{"f", &schema.Decimal{Precision: 38, Scale: 10}, `column "f" cannot change from double to decimal(38,10)`},
		{"dec", &schema.Decimal{Precision: 12, Scale: 4}, `column "dec" cannot change from decimal(12,3) to decimal(12,4)`},
		{"nope", long, `the table has no column "nope"`},
		{"id.x", long, `long has no part "x"`},
	} {
		refusedUnchanged(t, uri, "change "+c.col, c.want, func() error {
			_, err := tb.Alter(ctx, deltalite.AlterOptions{ChangeTypes: map[string]schema.Type{c.col: c.to}})
			return err
		})
	}
	// A column a CHECK constraint reads keeps its type, as in Spark.
	if _, err := tb.Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"positive": "id > 0"}}); err != nil {
		t.Fatal(err)
	}
	tb = openT(t, uri)
	refusedUnchanged(t, uri, "constrained column", `column "id" cannot be widened from long to decimal(20,0) because CHECK constraint positive (id > 0) reads it`, func() error {
		_, err := tb.Alter(ctx, deltalite.AlterOptions{ChangeTypes: map[string]schema.Type{"id": &schema.Decimal{Precision: 20, Scale: 0}}})
		return err
	})
	// The type it has already commits nothing.
	if done, err := tb.Alter(ctx, deltalite.AlterOptions{ChangeTypes: map[string]schema.Type{"ID": long}}); err != nil || len(done) != 0 {
		t.Fatalf("same type: %v %v", done, err)
	}
}

// widenedNested makes at uri a table partitioned by p (int) with a map,
// an array and a struct column, and type widening on; writes one row; and
// widens p to bigint, m.value to bigint, a.element to int and s.x to
// short with alter. It returns the files before the alter.
func widenedNested(t *testing.T, uri string) []*protocol.Add {
	t.Helper()
	ctx := context.Background()
	sc, err := schema.Parse(`{"type":"struct","fields":[
		{"name":"p","type":"integer","nullable":true,"metadata":{}},
		{"name":"m","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}},
		{"name":"a","type":{"type":"array","elementType":"short","containsNull":true},"nullable":true,"metadata":{}},
		{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"byte","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := deltalite.Create(ctx, uri, sc, deltalite.CreateOptions{PartitionBy: []string{"p"}, Properties: map[string]string{"delta.enableTypeWidening": "true"}}); err != nil {
		t.Fatal(err)
	}
	arw, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, uri, jsonSource(t, arw.Fields(), `[{"p":1,"m":[{"key":"k","value":5}],"a":[1,2],"s":{"x":3}}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	files := openT(t, uri).Snapshot().Files()
	done, err := openT(t, uri).Alter(ctx, deltalite.AlterOptions{ChangeTypes: map[string]schema.Type{
		"p": &schema.Primitive{Name: schema.Long}, "m.value": &schema.Primitive{Name: schema.Long},
		"a.element": &schema.Primitive{Name: schema.Integer}, "s.x": &schema.Primitive{Name: schema.Short},
	}})
	if err != nil || len(done) != 4 {
		t.Fatalf("alter: %v %v", done, err)
	}
	return files
}

// TestWidenedPartitionAndNested: a partition column widens as Spark
// widens it (its old values read as the new type, files not rewritten);
// map values, array elements and nested fields widen by path.
func TestWidenedPartitionAndNested(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	files := widenedNested(t, uri)
	tb := openT(t, uri)
	if got := tb.Snapshot().Schema().String(); got != "struct<p:long,m:map<string,long>,a:array<integer>,s:struct<x:short>>" {
		t.Fatalf("schema %s", got)
	}
	if got := typeChanges(t, uri, "m"); got != `[{"fieldPath":"value","fromType":"integer","toType":"long"}]` {
		t.Fatalf("m: %s", got)
	}
	if got := typeChanges(t, uri, "a"); got != `[{"fieldPath":"element","fromType":"short","toType":"integer"}]` {
		t.Fatalf("a: %s", got)
	}
	// The log holds them as Spark 4.4 writes them, keys in its order (the
	// changes commit in column order: m.value is version 3).
	logged, err := os.ReadFile(filepath.Join(uri, filepath.FromSlash(protocol.CommitKey(3))))
	if err != nil {
		t.Fatal(err)
	}
	if want := `\"delta.typeChanges\":[{\"toType\":\"long\",\"fromType\":\"integer\",\"fieldPath\":\"value\"}]`; !strings.Contains(string(logged), want) {
		t.Fatalf("the CHANGE COLUMN of m.value logs %s, want %s in it", logged, want)
	}
	if len(tb.Snapshot().Files()) != len(files) || tb.Snapshot().Files()[0].Path != files[0].Path {
		t.Fatalf("the type change rewrote files")
	}
	op, params, _ := lastCommit(t, uri)
	if op != "CHANGE COLUMN" || params["column"] != `{"name":"s.x","type":"short","nullable":true,"metadata":{}}` {
		t.Fatalf("commitInfo %s %v", op, params)
	}
	wide, _ := schema.ToArrow(tb.Snapshot().Schema(), schema.ArrowOptions{})
	mustWrite(t, uri, jsonSource(t, wide.Fields(), `[{"p":5000000000,"m":[{"key":"k","value":6000000000}],"a":[70000],"s":{"x":300}}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	assertRows(t, uri, []string{
		`a=[1, 2], m={"k": 5}, p=1, s={x=3}`,
		`a=[70000], m={"k": 6000000000}, p=5000000000, s={x=300}`,
	})
	tasks, err := scan.New(openT(t, uri).Snapshot(), scan.WithWhere("p = 1")).Plan(ctx)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("partition pruning on the widened column: %d files, %v", len(tasks), err)
	}
}

// TestMergeAndUpsertWiden: MERGE with schema evolution widens the columns
// UPDATE SET * / INSERT * write, as Spark's does; the upsert then works on
// the widened key.
func TestMergeAndUpsertWiden(t *testing.T) {
	ctx := context.Background()
	uri := wideningTable(t, map[string]string{"delta.enableTypeWidening": "true"})
	src := func(rows string) array.RecordReader {
		return jsonSource(t, []arrow.Field{fI64("id"), fF64("v")}, rows)
	}
	tb := openT(t, uri)
	if _, err := tb.Merge(ctx, src(`[{"id":1,"v":1.5},{"id":4000000000,"v":-0.25}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: "upsert", SchemaMode: "merge"}); err != nil {
		t.Fatal(err)
	}
	if got := openT(t, uri).Snapshot().Schema().String(); got != "struct<id:long,v:double,f:float,dec:decimal(9,2),d:date>" {
		t.Fatalf("schema after MERGE %s", got)
	}
	if got := typeChanges(t, uri, "v"); got != `[{"fromType":"integer","toType":"double"}]` {
		t.Fatalf("v: %s", got)
	}
	op, params, _ := lastCommit(t, uri)
	if op != "MERGE" {
		t.Fatalf("commit %s %v", op, params)
	}
	assertRows(t, uri, []string{
		"d=2024-03-01, dec=1.23, f=1.1, id=1, v=1.5",
		"d=null, dec=-4.5, f=null, id=2, v=-20",
		"d=null, dec=null, f=null, id=4000000000, v=-0.25",
	})
	if _, err := openT(t, uri).Upsert(ctx, src(`[{"id":2,"v":2.5},{"id":4000000000,"v":4.5},{"id":5000000000,"v":5}]`), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	assertRows(t, uri, []string{
		"d=2024-03-01, dec=1.23, f=1.1, id=1, v=1.5",
		"d=null, dec=null, f=null, id=2, v=2.5",
		"d=null, dec=null, f=null, id=4000000000, v=4.5",
		"d=null, dec=null, f=null, id=5000000000, v=5",
	})
}

// TestUnsupportedTypeChangeRefused: a table whose schema records a type
// change type widening does not allow (a narrowing) is refused on open,
// naming the column and the types, as Spark's assertTableReadable does.
func TestUnsupportedTypeChangeRefused(t *testing.T) {
	uri := wideningTable(t, map[string]string{"delta.enableTypeWidening": "true"})
	md := *openT(t, uri).Snapshot().Metadata()
	md.SchemaString = strings.Replace(md.SchemaString, `"name":"v","type":"integer","nullable":true,"metadata":{}`,
		`"name":"v","type":"integer","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"long","toType":"integer"}]}`, 1)
	line, err := json.Marshal(map[string]any{"metaData": md})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(uri, filepath.FromSlash(protocol.CommitKey(1))), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = deltalite.Open(context.Background(), uri)
	if !errors.Is(err, deltalite.ErrUnsupportedTable) || !strings.Contains(err.Error(), `column "v" records a type change from long to integer, which Delta's type widening does not support`) {
		t.Fatalf("open: %v", err)
	}
}

// TestWideningUnderColumnMapping: a column of a table with column mapping
// widens keeping its id and physical name; old files read by physical
// name as the wider type.
func TestWideningUnderColumnMapping(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fI32("id"), fF32("f")}, `[{"id":1,"f":0.5}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend,
		Properties: map[string]string{"delta.enableTypeWidening": "true", "delta.columnMapping.mode": "name"}})
	before := openT(t, uri).Snapshot().Schema().Field("id").Metadata
	mustWrite(t, uri, jsonSource(t, []arrow.Field{fI64("id"), fF64("f")}, `[{"id":5000000000,"f":0.25}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	after := openT(t, uri).Snapshot().Schema().Field("id").Metadata
	for _, k := range []string{"delta.columnMapping.id", "delta.columnMapping.physicalName"} {
		if before[k] == nil || before[k] != after[k] {
			t.Fatalf("%s: %v before, %v after", k, before[k], after[k])
		}
	}
	if got := typeChanges(t, uri, "id"); got != `[{"fromType":"integer","toType":"long"}]` {
		t.Fatalf("id: %s", got)
	}
	if _, err := openT(t, uri).Alter(ctx, deltalite.AlterOptions{ChangeTypes: map[string]schema.Type{"id": &schema.Decimal{Precision: 20, Scale: 0}}}); err != nil {
		t.Fatal(err)
	}
	assertRows(t, uri, []string{"f=0.25, id=5000000000", "f=0.5, id=1"})
}

// TestMergeWidensDateAndDecimal: a MERGE that widens a date to
// timestamp_ntz and a decimal's precision and scale rewrites the kept
// rows of the files it touches in the wider types.
func TestMergeWidensDateAndDecimal(t *testing.T) {
	uri := wideningTable(t, map[string]string{"delta.enableTypeWidening": "true", "delta.feature.timestampNtz": "supported"})
	if _, err := openT(t, uri).Merge(context.Background(), jsonSource(t, []arrow.Field{fI32("id"), fNTZ, fDec("dec", 12, 3)},
		`[{"id":2,"d":"2024-05-01T01:00:00","dec":"5.125"},{"id":9,"d":"2024-06-01T00:00:00","dec":"1.5"}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id", SchemaMode: "merge", MergeType: "upsert"}); err != nil {
		t.Fatal(err)
	}
	if got := openT(t, uri).Snapshot().Schema().String(); got != "struct<id:integer,v:integer,f:float,dec:decimal(12,3),d:timestamp_ntz>" {
		t.Fatalf("schema %s", got)
	}
	assertRows(t, uri, []string{
		"d=2024-03-01T00:00:00.000000Z, dec=1.23, f=1.1, id=1, v=10",
		"d=2024-05-01T01:00:00.000000Z, dec=5.125, f=null, id=2, v=-20",
		"d=2024-06-01T00:00:00.000000Z, dec=1.5, f=null, id=9, v=null",
	})
}
