package deltalite_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
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
	// Old files' statistics still prune, read as the wider types: the
	// first two files hold id 1, 2 and 7.
	for where, files := range map[string]int{
		"id = 3000000000": 1,
		"id < 5":          1,
		"f > 2.0":         1,
		"dec > 100":       1,
		"d >= TIMESTAMP_NTZ '2024-03-01 00:00:00'": 2,
		"d > TIMESTAMP_NTZ '2024-03-01 00:00:01'":  1,
	} {
		tasks, err := scan.New(tb.Snapshot(), scan.WithWhere(where)).Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != files {
			t.Errorf("WHERE %s: %d files planned, want %d", where, len(tasks), files)
		}
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
