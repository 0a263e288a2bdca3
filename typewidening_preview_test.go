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

// TestTypeWideningPreview: on a table Spark makes with the preview of type
// widening (typeWidening-preview), a schema-merge write and a MERGE of a
// wider column are refused naming the column, both types and what to do
// (widen with Spark, or cast), and change nothing; the source cast to the
// table's type is written; once Spark has widened the column, our write
// of the wider values lands and Spark reads every row.
func TestTypeWideningPreview(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "preview")
	s := peers.Spark(t)
	s.Run(t,
		sparkSQL(dir, "CREATE TABLE {table} (id INT, v INT) USING delta TBLPROPERTIES ('delta.feature.typeWidening-preview' = 'supported', 'delta.enableTypeWidening' = 'true')", false),
		sparkSQL(dir, "INSERT INTO {table} VALUES (1, 10)", false),
	)
	wide := jsonSource(t, []arrow.Field{fI32("id"), fI64("v")}, `[{"id":2,"v":5000000000}]`)
	want := `column "v" is integer in the table but long in the source: the table has the preview of type widening (typeWidening-preview), ` +
		`on which this engine changes no type (a change there must record the table version for preview readers); ` +
		`widen the column with Spark (ALTER TABLE ... ALTER COLUMN v TYPE long), or cast the source column to integer`
	refusedUnchangedKind(t, dir, deltalite.ErrSchemaMismatch, "schema-merge write", want, func() error {
		_, err := deltalite.Write(ctx, dir, wide, deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
		return err
	})
	refusedUnchangedKind(t, dir, deltalite.ErrSchemaMismatch, "MERGE", want, func() error {
		_, err := openT(t, dir).Merge(ctx, jsonSource(t, []arrow.Field{fI32("id"), fI64("v")}, `[{"id":2,"v":5000000000}]`),
			deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: "upsert", SchemaMode: "merge"})
		return err
	})
	// Cast, the rows are written.
	mustWrite(t, dir, jsonSource(t, []arrow.Field{fI32("id"), fI32("v")}, `[{"id":2,"v":20}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	// Spark widens; the wider values then fit.
	s.Run(t, sparkSQL(dir, "ALTER TABLE {table} ALTER COLUMN v TYPE BIGINT", false))
	mustWrite(t, dir, jsonSource(t, []arrow.Field{fI32("id"), fI64("v")}, `[{"id":3,"v":5000000000}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	rows := []string{"id=1, v=10", "id=2, v=20", "id=3, v=5000000000"}
	assertRows(t, dir, rows)
	res := s.Run(t, peers.ReadOp(dir, peers.ReadOptions{}))
	arrowrows.Diff(t, res[0].Table(t).Lines(t), rows)
}
