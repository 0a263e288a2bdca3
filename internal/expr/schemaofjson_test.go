package expr

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// schemaOfJSONTexts are the constants schema_of_json reads in the test.
var schemaOfJSONTexts = []string{
	`{"a":1,"b":[1.5,2],"c":{"z":null,"y":"s"},"d":true,"e":[],"f":null,"g":12345678901234567890, "h":[1,"x"], "i":[{"a":1},{"b":2}], "j":1e5, "k":"2020-01-01"}`,
	`[1,2]`, `1`, `"s"`, `null`, `[]`, `{}`, `{"a":{}}`, `{"a":[{}]}`, `{"":1,"b":2}`, `{"a":1,"a":"x","b":1}`,
	"{\"a b\":1,\"`c\":2,\"B\":3,\"b\":4,\"_\":5,\"1a\":6,\"é\":7,\"\U0001F600\":8,\"\uFF5E\":9}",
	`[1, 1.5, 12345678901234567890]`, `[1, 12345678901234567890]`, `[1.5, 123456789012345678901234567890123456789012]`,
	`[NaN, 1]`, `[1, null, true]`, `[[1],[null]]`, `[{"a":1},{"a":1.5,"b":[]}]`, `[{"a":1},2]`, `[[1],{"a":1}]`,
	`{'a':1}`, `{"a":1} trailing`, `[true, 1]`, `[-0, 1.0e0]`, `1.5`, `[1E400]`, `[NaN, Infinity, -Infinity, +Infinity, -INF, +INF]`,
	`[{}]`, `[[{}]]`, ``, `  `, `[9999999999999999999, 1]`, `[1.5, 12345678901234567890]`,
	`[2147483648, -9223372036854775808, -9223372036854775809]`, `[{"b":1,"a":2},{"c":[],"a":null}]`, `[[], [1.5]]`,
	`[{"a":1,"a":2},{"a":"x"}]`, `[123456789012345678901234567890123456789, 1]`, `[12345678901234567890123456789012345678, 1]`,
	`{"a":"\u0041\ud83d\ude00"}`, `[null, null]`, `{"x":[null]}`, `[{"a":null}]`, `[[]]`,
}

// Spark 4 infers the schemas of JSON texts as this package does.
func TestSchemaOfJSONAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec, vals := regexBatch(t, []*string{sp("x")})
	var exprs []string
	for _, j := range schemaOfJSONTexts {
		exprs = append(exprs, "schema_of_json('"+strings.ReplaceAll(strings.ReplaceAll(j, `\`, `\\`), "'", `\'`)+"')")
	}
	sparkAgrees(t, s, sc, rec, exprs, vals, "n, s")
}

// A text Jackson refuses fails when bound, as it fails Spark's query; so
// do a column, NULL, options; json_tuple and the XPath functions are
// refused by name.
func TestSchemaOfJSONRefusals(t *testing.T) {
	sc, _, _ := regexBatch(t, []*string{sp("x")})
	rels := map[string]*schema.Struct{"": sc}
	refusedWhenBound(t, rels, []struct{ e, want string }{
		{`schema_of_json('{bad')`, `malformed JSON`},
		{`schema_of_json('{"a":"x` + "\t" + `y"}')`, `malformed JSON`},
		{`schema_of_json('[01]')`, `malformed JSON`},
		{`schema_of_json('[+1]')`, `malformed JSON`},
		{`schema_of_json('[INF]')`, `malformed JSON`},
		{`schema_of_json('1x')`, `malformed JSON`},
		{`schema_of_json(s)`, `constant`},
		{`schema_of_json(NULL)`, `must not be NULL`},
		{`schema_of_json('{}', str_to_map('a:b'))`, `options are not supported`},
		{`json_tuple(s, 'a')`, `generator`},
		{`xpath_string(s, 'a/b')`, `XPath 1.0`},
		{`xpath(s, 'a/b')`, `XPath 1.0`},
	})
}
