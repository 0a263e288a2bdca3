package deltalite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sparkLambdaChecks are CHECK constraints of the higher-order functions
// (Delta takes lambda functions in a CHECK constraint, not in a
// generation expression; its ALTER TABLE ADD CONSTRAINT reads x -> y as
// x - > y, so ours adds them).
var sparkLambdaChecks = []struct{ name, expr string }{
	{"small", "a IS NULL OR forall(a, x -> x IS NULL OR x < 1000)"},
	{"sums", "coalesce(aggregate(a, 0L, (acc, x) -> acc + coalesce(x, 0), acc -> acc * 2), 0) < 5000"},
	{"nonneg", "m IS NULL OR size(map_filter(transform_values(m, (k, v) -> v + 1), (k, v) -> v < 0)) = 0"},
	{"zipped", "a IS NULL OR b IS NULL OR NOT exists(zip_with(a, b, (x, y) -> coalesce(x * y, 0)), p -> p < 0)"},
}

// TestSparkLambdaConstraints: on a table Spark made, our ALTER adds CHECK
// constraints of lambda functions (checking Spark's rows first; one whose
// lambda reads a column, which Delta's writer fails on, is refused); our
// writes and UPDATE (itself setting values with lambda functions) keep
// them, a row one refuses is refused naming it (the table unchanged), and
// Spark re-checks every row and writes again under them.
func TestSparkLambdaConstraints(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lambdas")
	ops := []peers.Op{
		sparkSQL(dir, "CREATE TABLE {table} (id INT, a ARRAY<INT>, b ARRAY<INT>, m MAP<STRING, INT>) USING delta", false),
		sparkSQL(dir, "INSERT INTO {table} VALUES (1, array(1, -2, NULL), array(3, -4), map('a', 1, 'b', 2)), (2, NULL, NULL, NULL), (3, array(), array(1), map())", false),
	}
	s := peers.Spark(t)
	s.Run(t, ops...)
	refusedUnchanged(t, dir, "a constraint a row of Spark's breaks", "positive", func() error {
		_, err := openT(t, dir).Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"positive": "forall(a, x -> x > 0)"}})
		return err
	})
	refusedUnchanged(t, dir, "a constraint whose lambda reads a column", "the lambda function x -> x + id < 1000 reads the column id, which Delta's Spark writer cannot check", func() error {
		_, err := openT(t, dir).Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"outer": "a IS NULL OR forall(a, x -> x + id < 1000)"}})
		return err
	})
	var wrong []string
	add := map[string]string{}
	for _, c := range sparkLambdaChecks {
		add[c.name] = c.expr
		wrong = append(wrong, "NOT ("+c.expr+")")
	}
	if _, err := openT(t, dir).Alter(ctx, deltalite.AlterOptions{AddConstraints: add}); err != nil {
		t.Fatal(err)
	}
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "b", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true},
	}
	mustWrite(t, dir, jsonSource(t, fields, `[
{"id":4,"a":[5,null,-7,999],"b":[1,2,-3],"m":[{"key":"a","value":10},{"key":"z","value":null}]},
{"id":5,"a":[],"b":[],"m":[{"key":"q","value":-1}]},
{"id":6}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	tb := openT(t, dir)
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "exists(a, x -> x < 0) AND id < 4", Set: map[string]string{
		"a": "transform(filter(a, x -> x IS NOT NULL), (x, i) -> x * 2 + i)", "m": "transform_values(m, (k, v) -> coalesce(v, 0) - 1)"}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`a=[2, -3], b=[3, -4], id=1, m={"a": 0, "b": 1}`,
		`a=[5, null, -7, 999], b=[1, 2, -3], id=4, m={"a": 10, "z": null}`,
		`a=[], b=[1], id=3, m={}`,
		`a=[], b=[], id=5, m={"q": -1}`,
		`a=null, b=null, id=2, m=null`,
		`a=null, b=null, id=6, m=null`,
	}
	arrowrows.Diff(t, sortedCopy(readRows(t, dir)), sortedCopy(want))
	for _, c := range []struct{ name, row string }{
		{"small", `{"id":7,"a":[1,1000],"b":null,"m":null}`},
		{"sums", `{"id":8,"a":[900,null,900,900],"b":null,"m":null}`},
		{"nonneg", `{"id":9,"a":null,"b":null,"m":[{"key":"k","value":-8}]}`},
		{"zipped", `{"id":10,"a":[1,2,3],"b":[1,-2],"m":null}`},
	} {
		refusedUnchanged(t, dir, "a row "+c.name+" refuses", "CHECK constraint "+c.name+" (", func() error {
			_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, "["+c.row+"]"), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
			return err
		})
	}
	refusedUnchanged(t, dir, "an UPDATE small refuses", "CHECK constraint small (", func() error {
		_, err := openT(t, dir).Update(ctx, deltalite.UpdateOptions{Predicate: "id = 3", Set: map[string]string{"a": "transform(b, x -> x * 1000)"}})
		return err
	})
	res := s.Run(t,
		sparkSQL(dir, "SELECT count(*) AS wrong FROM {table} WHERE "+strings.Join(wrong, " OR "), true),
		sparkSQL(dir, "INSERT INTO {table} VALUES (11, array(7), array(7), map('x', 0))", false),
		peers.ReadOp(dir, peers.ReadOptions{}),
	)
	if got := res[0].Table(t).Lines(t); len(got) != 1 || got[0] != "wrong=0" {
		t.Fatalf("Spark finds rows its constraints refuse: %v", got)
	}
	arrowrows.Diff(t, res[2].Table(t).Lines(t), sortedCopy(append(want, `a=[7], b=[7], id=11, m={"x": 0}`)))
	if r := s.Try(t, sparkSQL(dir, "INSERT INTO {table} VALUES (12, array(5000), NULL, NULL)", false)); r[0].OK || !strings.Contains(r[0].Error, "small") {
		t.Fatalf("Spark inserted a row the constraint small refuses: ok=%v %s", r[0].OK, r[0].Error)
	}
}
