package expr

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// hofSchema is the columns of hofRows.
const hofSchema = `{"type":"struct","fields":[
{"name":"n","type":"integer","nullable":true,"metadata":{}},
{"name":"a","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}},
{"name":"b","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}},
{"name":"ad","type":{"type":"array","elementType":"double","containsNull":true},"nullable":true,"metadata":{}},
{"name":"s","type":{"type":"array","elementType":"string","containsNull":true},"nullable":true,"metadata":{}},
{"name":"m","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}},
{"name":"m2","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}},
{"name":"k","type":"integer","nullable":true,"metadata":{}}]}`

// hofRows are the rows, as JSON here and as Spark's VALUES.
var hofRows = []struct{ json, spark string }{
	{`{"n":0,"a":[1,null,3],"b":[10,20],"ad":[1.5,"NaN",-0.0],"s":["x","","é"],"m":[{"key":"a","value":1},{"key":"b","value":null}],"m2":[{"key":"b","value":2},{"key":"c","value":3}],"k":2}`,
		`(0, array(1, NULL, 3), array(10, 20), array(1.5D, CAST('NaN' AS DOUBLE), -0.0D), array('x', '', 'é'), map('a', 1, 'b', CAST(NULL AS INT)), map('b', 2, 'c', 3), 2)`},
	{`{"n":1,"a":[],"b":[1],"ad":[],"s":[],"m":[],"m2":[{"key":"a","value":1}],"k":null}`,
		`(1, CAST(array() AS ARRAY<INT>), array(1), CAST(array() AS ARRAY<DOUBLE>), CAST(array() AS ARRAY<STRING>), map_from_arrays(CAST(array() AS ARRAY<STRING>), CAST(array() AS ARRAY<INT>)), map('a', 1), CAST(NULL AS INT))`},
	{`{"n":2,"b":[1,2],"m2":[{"key":"a","value":1}],"k":0}`,
		`(2, CAST(NULL AS ARRAY<INT>), array(1, 2), CAST(NULL AS ARRAY<DOUBLE>), CAST(NULL AS ARRAY<STRING>), CAST(NULL AS MAP<STRING, INT>), map('a', 1), 0)`},
	{`{"n":3,"a":[5,6,7,8],"ad":[0.1,0.2],"s":[null,"Ab"],"m":[{"key":"z","value":-1}],"k":-3}`,
		`(3, array(5, 6, 7, 8), CAST(NULL AS ARRAY<INT>), array(0.1D, 0.2D), array(CAST(NULL AS STRING), 'Ab'), map('z', -1), CAST(NULL AS MAP<STRING, INT>), -3)`},
	{`{"n":4,"a":[100000000,-7],"b":[-1,null,3],"ad":[1e308],"s":["日本"],"m":[{"key":"q","value":0}],"m2":[{"key":"q","value":null}],"k":1}`,
		`(4, array(100000000, -7), array(-1, NULL, 3), array(1e308D), array('日本'), map('q', 0), map('q', CAST(NULL AS INT)), 1)`},
}

// txt renders an array as text, the same way here and in Spark.
func txt(e string) string {
	return `aggregate(` + e + `, '', (acc, x) -> concat(acc, coalesce(CAST(x AS STRING), 'null'), ';'))`
}

// mtxt renders a map as text, the same way here and in Spark.
func mtxt(e string) string {
	return `concat(` + txt(`map_keys(`+e+`)`) + `, '=>', ` + txt(`map_values(`+e+`)`) + `)`
}

var hofExprs = []string{
	txt(`transform(a, x -> x + 1)`), txt(`transform(a, (x, i) -> x * 10 + i)`), txt(`transform(a, x -> x + k)`),
	txt(`transform(s, x -> upper(x))`), txt(`transform(ad, x -> x * 2)`), txt(`transform(a, a -> a + 1)`),
	txt(`transform(a, x -> CAST(x AS STRING))`), txt(`transform(s, (x, i) -> concat(x, i))`),
	txt(`filter(a, x -> x > 1)`), txt(`filter(a, x -> x IS NULL)`), txt(`filter(a, (x, i) -> i % 2 = 0)`),
	txt(`filter(ad, x -> isnan(x) OR x < 1)`), txt(`filter(s, x -> length(x) > 0)`), txt(`filter(b, x -> NULL)`),
	`exists(a, x -> x > 2)`, `exists(a, x -> x = 2)`, `exists(a, x -> x IS NULL)`, `exists(b, x -> x > k)`,
	`forall(a, x -> x > 0)`, `forall(a, x -> x < 100)`, `forall(s, x -> x IS NOT NULL)`, `forall(b, x -> x <> 2)`,
	`exists(a, x -> 100 DIV (x - 7) < 0)`, `forall(a, x -> 100 DIV (x - 6) > 0)`,
	`aggregate(a, 0, (acc, x) -> acc + x)`, `aggregate(a, 0L, (acc, x) -> acc + coalesce(x, 0))`,
	`aggregate(b, 0, (acc, x) -> acc + x, acc -> acc * 2)`, `reduce(ad, 0D, (acc, x) -> acc + x)`,
	`aggregate(s, '', (acc, x) -> concat(acc, coalesce(x, '?')))`, `aggregate(a, 0, (acc, x) -> acc + 1, acc -> acc > 2)`,
	`aggregate(b, k, (acc, x) -> greatest(acc, x))`, `aggregate(a, CAST(NULL AS INT), (acc, x) -> coalesce(acc, 0) + x)`,
	txt(`zip_with(a, b, (x, y) -> x + y)`), txt(`zip_with(a, s, (x, y) -> concat(CAST(x AS STRING), y))`),
	mtxt(`transform_values(m, (k, v) -> v * 10)`), mtxt(`transform_values(m, (x, v) -> concat(x, CAST(k AS STRING)))`),
	mtxt(`transform_keys(m, (x, v) -> upper(x))`), mtxt(`transform_keys(m, (x, v) -> concat(x, CAST(coalesce(k, 0) AS STRING)))`),
	mtxt(`map_filter(m, (x, v) -> v IS NOT NULL)`), mtxt(`map_filter(m, (x, v) -> x > 'a')`),
	mtxt(`map_zip_with(m, m2, (x, v1, v2) -> coalesce(v1, 0) + coalesce(v2, 0))`),
	mtxt(`map_zip_with(m2, m, (x, v1, v2) -> concat(x, v1, v2))`),
	txt(`transform(a, x -> aggregate(b, x, (acc, y) -> acc + y))`), txt(`transform(b, x -> exists(a, y -> y = x + 1))`),
	txt(`transform(a, x -> size(filter(b, y -> y < x)))`), `size(transform(a, x -> x))`,
	txt(`transform(a, 1)`), txt(`filter(b, k > 0)`), txt(`transform(b, k)`),
	txt(`transform(a, x -> CASE WHEN x > 3 THEN 100 DIV (x - 3) + k ELSE x END)`),
	txt(`transform(b, y -> CASE WHEN y > 1 THEN aggregate(a, y, (acc, x) -> acc + x) END)`),
	txt(`transform(a, x -> if(x = 3, NULL, date_add(DATE'2024-02-28', x % 1000)))`),
	`aggregate(a, CAST(0 AS DECIMAL(20, 2)), (acc, x) -> CAST(acc + x AS DECIMAL(20, 2)))`,
	`aggregate(ad, CAST(NULL AS DOUBLE), (acc, x) -> greatest(acc, x))`, `exists(ad, x -> isnan(x))`,
	txt(`filter(transform(s, x -> reverse(x)), x -> x IS NOT NULL)`), `forall(transform(a, x -> x * 0), x -> x = 0)`,
}

// Spark 4 computes the same values as this package for the higher-order
// functions, their lambdas reading columns, outer lambdas' variables and
// shadowing columns, over NULL, empty and long arrays and maps.
func TestHigherOrderAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec, vals := hofBatch(t)
	sparkAgrees(t, s, sc, rec, hofExprs, vals, "n, a, b, ad, s, m, m2, k")

	// What fails in Spark fails here, on the row it fails on; what Spark
	// refuses is refused when bound.
	q := "SELECT %s FROM VALUES " + strings.Join(vals, ", ") + " AS t(n, a, b, ad, s, m, m2, k)"
	var ops []peers.Op
	for _, c := range hofFailures {
		ops = append(ops, peers.Op{"op": "sql", "sql": fmt.Sprintf(q, c.e)})
	}
	for i, r := range s.Try(t, ops...) {
		if r.OK {
			t.Errorf("%s: Spark does not fail", hofFailures[i].e)
		}
	}
}

// hofFailures fail: when bound (bind) or on a row.
var hofFailures = []struct {
	e, want string
	bind    bool
}{
	{`transform(a, x -> x + 2147483647)`, `overflow`, false},
	{`aggregate(a, 2147483000, (acc, x) -> acc + x)`, `overflow`, false},
	{`transform_keys(m, (x, v) -> 'same')`, `duplicate map key 'same'`, false},
	{`transform_keys(m, (x, v) -> CAST(v AS STRING))`, `NULL map key`, false},
	{`forall(a, x -> 100 DIV (x - 7) < 0)`, `division by zero`, false},
	{`aggregate(a, 0, (acc, x) -> acc + 1.5D)`, `merge function gives DOUBLE where the start value's type INT is needed`, true},
	{`aggregate(a, 0, (acc, x) -> acc + CAST(x AS BIGINT))`, `gives BIGINT where the start value's type INT`, true},
	{`transform(a, (x, y, z) -> x)`, `transform takes a lambda function of x -> ... or (x, y) -> ..., not one of 3`, true},
	{`filter(a, x -> x + 1)`, `the lambda function of filter gives INT where a boolean is needed`, true},
	{`exists(a, (x, i) -> true)`, `exists takes a lambda function of x -> ...`, true},
	{`transform(m, x -> x)`, `transform needs an array, not m`, true},
	{`map_filter(a, (x, y) -> true)`, `map_filter needs a map, not a`, true},
	{`upper(x -> x)`, `the lambda function x -> x is not an argument of a higher-order function`, true},
	{`transform(a, x -> y.f)`, `unknown column y`, true},
	{`aggregate(a, CAST(0 AS DECIMAL(20, 2)), (acc, x) -> acc + x)`, `gives DECIMAL(21,2) where the start value's type DECIMAL(20,2)`, true},
	{`transform(a, x -> CASE WHEN x > 2 THEN 100 DIV (x - 3) ELSE x END)`, `division by zero`, false},
	{`map_zip_with(m, map_keys(m), (x, y, z) -> 1)`, `map_zip_with needs a map, not map_keys(m)`, true},
}

// The failures of hofFailures name what fails.
func TestHigherOrderFailures(t *testing.T) {
	sc, rec, _ := hofBatch(t)
	for _, c := range hofFailures {
		b, err := BindValue(mustParse(t, c.e), map[string]*schema.Struct{"": sc})
		if err == nil && !c.bind {
			_, err = b.Eval(context.Background(), rec)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	for _, c := range []struct{ e, want string }{
		{`x -> x + 1`, `a lambda function (x -> ...) is only allowed as an argument of a higher-order function`},
		{`transform(a, (x -> x) + 1)`, `a lambda function (x -> ...) is only allowed as an argument`},
		{`transform(a, (x, x) -> x)`, "names its variable x twice"},
		{`transform(a, y + x -> x)`, `a lambda function (x -> ...) is only allowed as an argument`},
	} {
		if _, err := Parse(c.e); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
}

// A batch evaluates as its rows one by one do (every row's elements go
// through one evaluation of the lambda), with every buffer released; the
// expressions render as Spark SQL that binds again to the same text.
func TestHigherOrderBatches(t *testing.T) {
	sc, rec, _ := hofBatch(t)
	rels := map[string]*schema.Struct{"": sc}
	for _, e := range hofExprs {
		b, err := BindValue(mustParse(t, e), rels)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		batchAgreesWithRows(t, b, rec)
		again, err := BindValue(mustParse(t, b.String()), rels)
		if err != nil || again.String() != b.String() {
			t.Errorf("%s renders as %s, which binds to %v (%v)", e, b, again, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`transform(a, x -> x + 1)`, `transform(a, x -> x + 1)`},
		{`filter(a, (x, i) -> i > 0 AND x > k)`, `filter(a, (x, i) -> i > 0 AND x > k)`},
		{"transform(a, `my x` -> `my x` + 1)", "transform(a, `my x` -> `my x` + 1)"},
		{`transform(a, (x) -> (x))`, `transform(a, x -> x)`},
		{`coalesce((a), k)`, `coalesce(a, k)`},
		{`exists(a, x->x>1)`, `exists(a, x -> x > 1)`},
		{`aggregate(a, 0, (acc, x) -> acc + x, acc -> acc)`, `aggregate(a, 0, (acc, x) -> acc + x, acc -> acc)`},
	} {
		if got := mustParse(t, c.in).String(); got != c.want {
			t.Errorf("%s renders as %s, want %s", c.in, got, c.want)
		}
	}
	// Qualified for a MERGE condition, a lambda's variables stay as they
	// are; the columns it reads are qualified.
	q := Qualify(mustParse(t, `exists(a, x -> x > k)`), "t")
	if got := q.String(); got != `exists(t.a, x -> x > t.k)` {
		t.Errorf("qualified: %s", got)
	}
}

// batchAgreesWithRows checks that b evaluates on rec as on its rows one
// by one, releasing every buffer.
func batchAgreesWithRows(t *testing.T, b *Bound, rec arrow.RecordBatch) {
	t.Helper()
	rows := evalValue(t, b, rec)
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	arr, err := b.Eval(exec.WithAllocator(context.Background(), mem), rec)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	for i := range rows {
		if got := rowText(arr, i, b.Type()); got != rows[i] {
			t.Errorf("%s: row %d is %s in the batch, %s alone", b, i, got, rows[i])
		}
	}
	arr.Release()
	mem.AssertSize(t, 0)
}

func hofBatch(t *testing.T) (*schema.Struct, arrow.RecordBatch, []string) {
	t.Helper()
	sc := mustSchema(t, hofSchema)
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows, vals []string
	for _, r := range hofRows {
		rows = append(rows, r.json)
		vals = append(vals, r.spark)
	}
	return sc, jsonBatch(t, as, rows), vals
}

// Float map keys are one key as Spark normalises them: -0.0 repeats 0.0
// (keeping its sign in transform_keys, not in map_zip_with), NaN repeats
// NaN.
func TestHigherOrderFloatKeys(t *testing.T) {
	sc := mustSchema(t, `{"type":"struct","fields":[{"name":"n","type":"integer","nullable":true,"metadata":{}},{"name":"m","type":{"type":"map","keyType":"double","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}}]}`)
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := jsonBatch(t, as, []string{`{"n":0,"m":[{"key":1.0,"value":1},{"key":2.0,"value":2}]}`})
	agree := []struct{ e, want string }{
		{`CAST(element_at(map_keys(transform_keys(m, (k, v) -> k * 0.0D - k + 1.0D)), 1) AS STRING)`, `0.0`},
		{`CAST(element_at(map_keys(transform_keys(m, (k, v) -> CASE WHEN v = 1 THEN -0.0D ELSE k END)), 1) AS STRING)`, `-0.0`},
		{`size(map_zip_with(transform_keys(m, (k, v) -> (k - 1.0D) * -1.0D), transform_keys(m, (k, v) -> k - 1.0D), (k, a, b) -> a))`, `3`},
		{`CAST(element_at(map_keys(map_zip_with(transform_keys(m, (k, v) -> (k - 1.0D) * -1.0D), transform_keys(m, (k, v) -> k - 1.0D), (k, a, b) -> a)), 1) AS STRING)`, `0.0`},
		{`size(map_zip_with(transform_keys(m, (k, v) -> if(v = 1, CAST('NaN' AS DOUBLE), k)), transform_keys(m, (k, v) -> if(v = 2, CAST('NaN' AS DOUBLE), k + 5.0D)), (k, a, b) -> a))`, `3`},
	}
	fails := []string{`size(transform_keys(m, (k, v) -> -0.0D * v))`, `size(transform_keys(m, (k, v) -> if(v = 1, 0.0D, -0.0D)))`,
		`size(transform_keys(m, (k, v) -> CAST('NaN' AS DOUBLE) + k))`}
	rels := map[string]*schema.Struct{"": sc}
	for _, e := range fails {
		agree = append(agree, struct{ e, want string }{e, "ERR"})
	}
	rowsAre(t, rels, rec, agree)
	if testing.Short() {
		return
	}
	peers.Python(t)
	s := peers.Spark(t)
	var exprs []string
	for _, c := range agree[:len(agree)-len(fails)] {
		exprs = append(exprs, c.e)
	}
	vals := []string{`(0, map(1.0D, 1, 2.0D, 2))`}
	sparkAgrees(t, s, sc, rec, exprs, vals, "n, m")
	var ops []peers.Op
	for _, e := range fails {
		ops = append(ops, peers.Op{"op": "sql", "sql": "SELECT " + e + " FROM VALUES " + vals[0] + " AS t(n, m)"})
	}
	for i, r := range s.Try(t, ops...) {
		if r.OK || !strings.Contains(r.Error, "DUPLICATED_MAP_KEY") {
			t.Errorf("%s: Spark gives ok=%v %.200s", fails[i], r.OK, r.Error)
		}
	}
}

// A new CHECK constraint whose lambda reads a column (an array of another
// higher-order function's included) is refused naming them; variables,
// a shadowed column's name among them, and columns outside lambdas are
// not.
func TestConstraintLambdaReadsColumn(t *testing.T) {
	for _, c := range []struct{ e, want string }{
		{`a IS NULL OR forall(a, x -> x < k)`, `the lambda function x -> x < k reads the column k`},
		{`exists(a, x -> exists(b, y -> y = x + k))`, `the lambda function x -> exists(b, y -> y = x + k) reads the column b`},
		{`exists(a, x -> x > 0 AND exists(b, y -> y > 0))`, `reads the column b`},
		{`exists(a, x -> x > 0) AND forall(b, y -> y < 0) AND k > 0`, ``},
		{`transform_keys(m, (K, v) -> k) IS NOT NULL`, ``},
	} {
		err := ConstraintAllowed(mustParse(t, c.e))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.e, err, c.want)
		}
	}
}

// A lambda reads the fields of struct elements (x.f), NULL where the
// element is, as Spark does.
func TestHigherOrderStructElements(t *testing.T) {
	sc := mustSchema(t, `{"type":"struct","fields":[{"name":"n","type":"integer","nullable":true,"metadata":{}},
{"name":"st","type":{"type":"array","elementType":{"type":"struct","fields":[{"name":"f","type":"integer","nullable":true,"metadata":{}},{"name":"g","type":"string","nullable":true,"metadata":{}}]},"containsNull":true},"nullable":true,"metadata":{}}]}`)
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := jsonBatch(t, as, []string{`{"n":0,"st":[{"f":1,"g":"a"},null,{"f":null,"g":"b"}]}`, `{"n":1,"st":[]}`, `{"n":2}`, `{"n":3,"st":[{"f":5,"g":null}]}`})
	vals := []string{`(0, array(named_struct('f', 1, 'g', 'a'), NULL, named_struct('f', CAST(NULL AS INT), 'g', 'b')))`,
		`(1, CAST(array() AS ARRAY<STRUCT<f: INT, g: STRING>>))`, `(2, CAST(NULL AS ARRAY<STRUCT<f: INT, g: STRING>>))`,
		`(3, array(named_struct('f', 5, 'g', CAST(NULL AS STRING))))`}
	exprs := []string{txt(`transform(st, x -> x.f + 1)`), txt(`transform(st, x -> x.g)`), txt(`transform(st, (x, i) -> concat(x.g, i))`),
		txt(`filter(transform(st, x -> x.g), y -> y IS NOT NULL)`), `exists(st, x -> x.f > 1)`, `forall(st, x -> x.f IS NULL OR x.F < 9)`,
		`aggregate(st, 0, (acc, x) -> acc + coalesce(x.f, 0))`, `size(filter(st, x -> x.g = 'b'))`, `size(filter(st, x -> x IS NULL))`}
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`transform(st, x -> x.h)`, "the struct x has no field h (fields: f, g)"},
		{`transform(st, x -> x.f.g)`, "x.f is of type INT and has no field g"},
	} {
		if _, err := BindValue(mustParse(t, c.e), rels); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	for _, e := range exprs {
		b, err := BindValue(mustParse(t, e), rels)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		batchAgreesWithRows(t, b, rec)
	}
	if testing.Short() {
		return
	}
	peers.Python(t)
	sparkAgrees(t, peers.Spark(t), sc, rec, exprs, vals, "n, st")
}
