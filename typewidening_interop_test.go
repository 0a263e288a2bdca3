package deltalite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// TestSparkTypeWidening: a table we widened (schema merge and alter) is
// read by Spark 4.4 with the new types and written again; a table Spark
// widened (ALTER COLUMN ... TYPE and a mergeSchema write) goes through our
// write, upsert, MERGE and scan, and Spark reads the result; delta-rs
// reads both where it supports the feature.
func TestSparkTypeWidening(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	root := t.TempDir()
	ours, theirs := filepath.Join(root, "ours"), filepath.Join(root, "theirs")

	// Ours: widened by a schema-merge write and by alter.
	mustWrite(t, ours, jsonSource(t, []arrow.Field{fI32("id"), fI32("v"), fF32("f"), fDec("dec", 9, 2), fD},
		`[{"id":1,"v":10,"f":1.5,"dec":"1.23","d":"2024-03-01"},{"id":2,"v":-20,"f":null,"dec":"-4.50","d":null}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, Properties: map[string]string{"delta.enableTypeWidening": "true", "delta.feature.timestampNtz": "supported"}})
	mustWrite(t, ours, jsonSource(t, []arrow.Field{fI64("id"), fF64("f"), fDec("dec", 12, 3), fNTZ},
		`[{"id":3000000000,"f":2.25,"dec":"123456789.125","d":"2024-03-02T10:00:00"}]`),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	if _, err := openT(t, ours).Alter(ctx, deltalite.AlterOptions{ChangeTypes: map[string]schema.Type{"v": &schema.Decimal{Precision: 12, Scale: 2}}}); err != nil {
		t.Fatal(err)
	}

	// Theirs: Spark widens by ALTER and by a mergeSchema write.
	s := peers.Spark(t)
	s.Run(t,
		sparkSQL(theirs, "CREATE TABLE {table} (id INT, v SMALLINT, f FLOAT, dec DECIMAL(9,2), d DATE, m MAP<STRING,INT>) USING delta "+
			"TBLPROPERTIES ('delta.enableTypeWidening' = 'true', 'delta.feature.timestampNtz' = 'supported')", false),
		sparkSQL(theirs, "INSERT INTO {table} VALUES (1, 10S, 1.5F, 1.23, DATE '2024-03-01', map('a', 1)), (2, -20S, NULL, -4.50, NULL, NULL)", false),
		sparkSQL(theirs, "ALTER TABLE {table} ALTER COLUMN id TYPE BIGINT", false),
		sparkSQL(theirs, "ALTER TABLE {table} ALTER COLUMN d TYPE TIMESTAMP_NTZ", false),
		sparkSQL(theirs, "ALTER TABLE {table} ALTER COLUMN m.value TYPE BIGINT", false),
		peers.Op{"op": "write", "path": theirs, "mode": "append", "schema_mode": "merge",
			"schema": []map[string]any{{"name": "id", "type": "long"}, {"name": "v", "type": "integer"}, {"name": "f", "type": "double"}, {"name": "dec", "type": "decimal(12,3)"}},
			"rows":   []map[string]any{{"id": 3000000000, "v": 100000, "f": 2.25, "dec": "123456789.125"}}},
	)
	tb := openT(t, theirs)
	if got := tb.Snapshot().Schema().String(); got != "struct<id:long,v:integer,f:double,dec:decimal(12,3),d:timestamp_ntz,m:map<string,long>>" {
		t.Fatalf("Spark's widened schema as we read it: %s", got)
	}
	theirRows := []string{
		`d=2024-03-01T00:00:00.000000Z, dec=1.23, f=1.5, id=1, m={"a": 1}, v=10`,
		`d=null, dec=-4.5, f=null, id=2, m=null, v=-20`,
		`d=null, dec=123456789.125, f=2.25, id=3000000000, m=null, v=100000`,
	}
	assertRows(t, theirs, theirRows)
	// Our operations on Spark's widened table: a write with the wider
	// values, an upsert on the widened key, a MERGE that widens v to
	// double, and a scan whose predicate prunes by old files' statistics.
	wideFields := []arrow.Field{fI64("id"), fI32("v"), fF64("f"), fDec("dec", 12, 3), fNTZ}
	mustWrite(t, theirs, jsonSource(t, wideFields, `[{"id":4000000000,"v":4,"f":4.5,"dec":"-0.001","d":"2024-04-01T04:00:00"}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	if _, err := openT(t, theirs).Upsert(ctx, jsonSource(t, wideFields, `[{"id":2,"v":22,"f":2.5,"dec":"2.222","d":"2024-02-02T02:00:00"}]`), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := openT(t, theirs).Merge(ctx, jsonSource(t, []arrow.Field{fI64("id"), fF64("v")}, `[{"id":1,"v":0.5},{"id":5000000000,"v":5.5}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id", SchemaMode: "merge", Clauses: []merge.Clause{
			{When: merge.Matched, Action: merge.Update, Set: map[string]string{"v": "s.v"}},
			{When: merge.NotMatched, Action: merge.Insert, Set: map[string]string{"id": "s.id", "v": "s.v"}},
		}}); err != nil {
		t.Fatal(err)
	}
	if got := typeChanges(t, theirs, "v"); got != `[{"fromType":"short","toType":"integer"},{"fromType":"integer","toType":"double"}]` {
		t.Fatalf("v after our MERGE: %s", got)
	}
	theirRows = []string{
		`d=2024-03-01T00:00:00.000000Z, dec=1.23, f=1.5, id=1, m={"a": 1}, v=0.5`,
		`d=2024-02-02T02:00:00.000000Z, dec=2.222, f=2.5, id=2, m=null, v=22`,
		`d=null, dec=123456789.125, f=2.25, id=3000000000, m=null, v=100000`,
		`d=2024-04-01T04:00:00.000000Z, dec=-0.001, f=4.5, id=4000000000, m=null, v=4`,
		`d=null, dec=null, f=null, id=5000000000, m=null, v=5.5`,
	}
	assertRows(t, theirs, theirRows)

	oursRows := []string{
		"d=2024-03-01T00:00:00.000000Z, dec=1.23, f=1.5, id=1, v=10",
		"d=null, dec=-4.5, f=null, id=2, v=-20",
		"d=2024-03-02T10:00:00.000000Z, dec=123456789.125, f=2.25, id=3000000000, v=null",
	}
	assertRows(t, ours, oursRows)

	// Ours, partitioned: the partition column, a map value, an array
	// element and a nested field widened by alter.
	parted := filepath.Join(root, "parted")
	widenedNested(t, parted)

	// Spark reads the tables with the new types, filters on the widened
	// columns and writes again.
	res := s.Run(t,
		peers.ReadOp(ours, peers.ReadOptions{}),
		sparkSQL(ours, "SELECT typeof(id) AS id, typeof(v) AS v, typeof(f) AS f, typeof(dec) AS dec, typeof(d) AS d FROM {table} LIMIT 1", true),
		sparkSQL(ours, "INSERT INTO {table} VALUES (9000000000, 1234567890.12, 9.75, 1.001, TIMESTAMP_NTZ '2024-05-05 05:05:05')", false),
		sparkSQL(ours, "SELECT id FROM {table} WHERE id > 2 AND d >= TIMESTAMP_NTZ '2024-03-01 00:00:00' ORDER BY id", true),
		peers.ReadOp(theirs, peers.ReadOptions{}),
		sparkSQL(theirs, "SELECT count(*) AS n FROM {table} WHERE v > 1 AND id < 4000000000", true),
		sparkSQL(parted, "INSERT INTO {table} VALUES (5000000000, map('k', 6000000000), array(70000), named_struct('x', 300S))", false),
		sparkSQL(parted, "SELECT typeof(p) AS p, typeof(m) AS m, typeof(a) AS a, typeof(s) AS s, count(*) AS n FROM {table} WHERE p >= 1 GROUP BY 1, 2, 3, 4", true),
	)
	arrowrows.Diff(t, res[0].Table(t).Lines(t), sortedCopy(oursRows))
	if got := res[1].Table(t).Lines(t); len(got) != 1 || got[0] != `d="timestamp_ntz", dec="decimal(12,3)", f="double", id="bigint", v="decimal(12,2)"` {
		t.Fatalf("Spark's types of our widened table: %v", got)
	}
	if got := res[3].Table(t).Lines(t); strings.Join(got, " ") != "id=3000000000 id=9000000000" {
		t.Fatalf("Spark's filter on our widened table: %v", got)
	}
	arrowrows.Diff(t, res[4].Table(t).Lines(t), sortedCopy(theirRows))
	if got := res[5].Table(t).Lines(t); len(got) != 1 || got[0] != "n=2" {
		t.Fatalf("Spark's count on the table we wrote: %v", got)
	}
	oursRows = append(oursRows, "d=2024-05-05T05:05:05.000000Z, dec=1.001, f=9.75, id=9000000000, v=1234567890.12")
	assertRows(t, ours, oursRows)
	if got := res[7].Table(t).Lines(t); len(got) != 1 || got[0] != `a="array<int>", m="map<string,bigint>", n=2, p="bigint", s="struct<x:smallint>"` {
		t.Fatalf("Spark's types of our widened partitioned table: %v", got)
	}
	assertRows(t, parted, []string{
		`a=[1, 2], m={"k": 5}, p=1, s={x=3}`,
		`a=[70000], m={"k": 6000000000}, p=5000000000, s={x=300}`,
	})

	// delta-rs 1.6.6 refuses the feature ("Unsupported table features
	// required: [TypeWidening]"): should a later one read it, it must read
	// what we read. DuckDB's delta extension (delta-kernel-rs) reads them.
	for _, dir := range []string{ours, theirs, parted} {
		got, err := peers.TryReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{})
		if err != nil {
			if !strings.Contains(err.Error(), "Unsupported table features required: [TypeWidening]") {
				t.Fatalf("delta-rs on %s: %v", filepath.Base(dir), err)
			}
		} else {
			arrowrows.Diff(t, got.Lines(t), sortedCopy(readRows(t, dir)))
		}
		arrowrows.Diff(t, peers.ReadTable(t, peers.DuckDBDelta, dir, peers.ReadOptions{}).Lines(t), sortedCopy(readRows(t, dir)))
	}
}
