package expr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// collSchema is the columns of collRows: arrays, a map and a struct.
const collSchema = `{"type":"struct","fields":[
{"name":"n","type":"integer","nullable":true,"metadata":{}},
{"name":"a","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}},
{"name":"ad","type":{"type":"array","elementType":"double","containsNull":true},"nullable":true,"metadata":{}},
{"name":"m","type":{"type":"map","keyType":"string","valueType":"double","valueContainsNull":true},"nullable":true,"metadata":{}},
{"name":"st","type":{"type":"struct","fields":[{"name":"f","type":"string","nullable":true,"metadata":{}},{"name":"g","type":"integer","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`

// collRows are the rows, as JSON here and as Spark's VALUES.
var collRows = []struct{ json, spark string }{
	{`{"n":0,"a":[1,null,3],"ad":[1.5,"NaN"],"m":[{"key":"k","value":1.5},{"key":"z","value":null}],"st":{"f":"x","g":1}}`,
		`(0, array(1, NULL, 3), array(1.5D, CAST('NaN' AS DOUBLE)), map('k', 1.5D, 'z', CAST(NULL AS DOUBLE)), named_struct('f', 'x', 'g', 1))`},
	{`{"n":1,"a":[2],"ad":[-0.0],"m":[],"st":{"f":null,"g":2}}`,
		`(1, array(2), array(-0.0D), map_from_arrays(CAST(array() AS ARRAY<STRING>), CAST(array() AS ARRAY<DOUBLE>)), named_struct('f', CAST(NULL AS STRING), 'g', 2))`},
	{`{"n":2}`,
		`(2, CAST(NULL AS ARRAY<INT>), CAST(NULL AS ARRAY<DOUBLE>), CAST(NULL AS MAP<STRING, DOUBLE>), CAST(NULL AS STRUCT<f: STRING, g: INT>))`},
	{`{"n":3,"a":[5,6,7,8],"ad":[0.0,2.0],"m":[{"key":"k","value":-2.0}],"st":{"f":"y","g":null}}`,
		`(3, array(5, 6, 7, 8), array(0.0D, 2.0D), map('k', -2.0D), named_struct('f', 'y', 'g', CAST(NULL AS INT)))`},
}

var nestedExprs = []string{
	`size(a)`, `cardinality(m)`, `size(ad)`, `element_at(a, 1)`, `element_at(a, -1)`, `element_at(ad, n - n + 1)`,
	`element_at(m, 'k')`, `element_at(m, 'zz')`, `element_at(m, 'z')`, `array_contains(a, 3)`, `array_contains(a, 2)`,
	`array_contains(a, CAST(1 AS TINYINT))`, `array_contains(ad, CAST('NaN' AS DOUBLE))`, `array_contains(ad, 0.0D)`,
	`array_contains(ad, 2)`, `size(map_keys(m))`, `array_contains(map_values(m), 1.5D)`, `array_contains(map_keys(m), 'z')`,
	`array_contains(map_values(m), -2.0D)`, `st.f`, `st.g + n`, `concat(st.f, '!')`, `element_at(a, 1) * 10`,
}

// Spark 4 computes the same values as this package for the functions of
// arrays and maps, and struct fields.
func TestNestedFunctionsAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec, vals := nestedBatch(t)
	sparkAgrees(t, s, sc, rec, nestedExprs, vals, "n, a, ad, m, st")
}

func nestedBatch(t *testing.T) (*schema.Struct, arrow.RecordBatch, []string) {
	t.Helper()
	return rowsBatch(t, collSchema, collRows)
}

// An index Spark's ANSI mode refuses fails the row; a value of a wider
// type than the elements is refused when bound.
func TestNestedRefusals(t *testing.T) {
	sc, rec, _ := nestedBatch(t)
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`array_contains(a, CAST(n AS BIGINT))`, `CAST it AS INT`},
		{`array_contains(m, 'k')`, `needs an array`},
		{`map_keys(a)`, `needs a map`},
		{`size(n)`, `needs an array or map`},
		{`element_at(a, CAST(n AS BIGINT))`, `takes an INT`},
	} {
		_, err := BindValue(mustParse(t, c.e), rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	rowsAre(t, rels, rec, []struct{ e, want string }{
		{`element_at(a, 0)`, `ERR|ERR|NULL|ERR`},
		{`element_at(a, 3)`, `3|ERR|NULL|7`},
		{`element_at(a, -4)`, `ERR|ERR|NULL|5`},
	})
}

// rowsAre checks that each expression, bound over rels, gives want on
// the rows of rec (values joined by |, ERR for a row refused).
func rowsAre(t *testing.T, rels map[string]*schema.Struct, rec arrow.RecordBatch, cases []struct{ e, want string }) {
	t.Helper()
	for _, c := range cases {
		b, err := BindValue(mustParse(t, c.e), rels)
		if err != nil {
			t.Errorf("%s: %v", c.e, err)
			continue
		}
		if got := strings.Join(evalValue(t, b, rec), "|"); got != c.want {
			t.Errorf("%s = %q, want %q", c.e, got, c.want)
		}
	}
}
