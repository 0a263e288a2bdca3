package expr

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// fromJSONTexts are the texts fromJSONExprs read.
var fromJSONTexts = []*string{
	sp(`{"a":1,"b":"x"}`), sp(`{"a":"1"}`), sp(`{"a":1.5}`), sp(`bad`), sp(`{"a":1} x`), sp(`[{"a":1},{"a":2}]`), nil, sp(``), sp(`  `),
	sp(`{"a":99999999999}`), sp(`{"a":"x","b":"y"}`), sp(`{"a":1,"A":2}`), sp(`{"A":1}`), sp(`{"a":1,"a":2}`), sp(`{"a":{"x":[1,2.50,"s",null]},"b":true}`),
	sp(`{"a":""}`), sp(`{"a":200,"b":-129,"c":255,"d":256}`), sp(`{"a":"NaN","b":"-INF","c":"+INF","d":1,"e":"Infinity","f":"nan"}`),
	sp(`{"a":NaN,"b":-Infinity,"c":+INF,"d":Infinity,"e":-INF}`), sp(`{"a":1.5e0,"b":1.55,"c":123.5,"d":"1.5","e":"1,5","f":" 1.5","g":"+1.5","h":".5","i":"5.","j":"1e2","k":NaN}`),
	sp(`{"a":[1,"x"],"b":2}`), sp(`{"a":{"k":1,"j":"x"},"b":2}`), sp(`{"a":{"x":1,"y":"z"},"b":2}`), sp(`{"a":[{"x":1},{"x":"q"}],"b":2}`),
	sp(`{"a":true,"b":"true"}`), sp(`null`), sp(`1`), sp(`"s"`), sp(`[]`), sp(`"s"x`), sp(`1x`), sp(`[1,x`), sp(`{"a":[1,""],"b":1}`),
	sp(`{'a':1,'b':'q'}`), sp(`{"a":-0.0,"b":1.5E0,"c":0.1,"d":1e40,"e":-92233720}`), sp(`{"a":1.25,"b":-1.25,"c":1e2,"d":12345}`),
	sp(`{"a":{"k":[1,null],"j":null},"b":[[1],[2,null],null]}`), sp(`{"a":1,"a":"x"}`), sp(`{"a":"x","a":1}`), sp(`{"a":"é😀\u0001","b":{"x":"\ud83d\ude00"}}`), sp(`{"m":{"a":{"x":"q"}}}`),
}

// fromJSONExprs read fromJSONTexts with several schemas, written back as
// JSON.
var fromJSONExprs = []string{
	`to_json(from_json(s, 'a INT, b STRING'))`, `to_json(from_json(s, 'a TINYINT, b TINYINT, c TINYINT, d TINYINT'))`,
	`to_json(from_json(s, 'a DOUBLE, b DOUBLE, c FLOAT, d FLOAT, e DOUBLE, f DOUBLE'))`,
	`to_json(from_json(s, 'a DECIMAL(5,1), b DECIMAL(3,1), c DECIMAL(3,1), d DECIMAL(3,1), e DECIMAL(5,1), f DECIMAL(5,1), g DECIMAL(5,1), h DECIMAL(5,1), i DECIMAL(5,1), j DECIMAL(5,1), k DECIMAL(5,1)'))`,
	`to_json(from_json(s, 'a ARRAY<INT>, b INT'))`, `to_json(from_json(s, 'a MAP<STRING,INT>, b INT'))`, `to_json(from_json(s, 'a STRUCT<x: INT, y: INT>, b INT'))`,
	`to_json(from_json(s, 'a ARRAY<STRUCT<x: INT>>, b INT'))`, `to_json(from_json(s, 'a BOOLEAN, b BOOLEAN'))`, `to_json(from_json(s, 'a STRING, b STRING'))`,
	`to_json(from_json(s, 'a DOUBLE, b FLOAT, c FLOAT, d FLOAT, e BIGINT'))`, `to_json(from_json(s, 'a DECIMAL(2,1), b DECIMAL(2,1), c DECIMAL(5,1), d BIGINT'))`,
	`to_json(from_json(s, 'a MAP<STRING, ARRAY<INT>>, b ARRAY<ARRAY<SMALLINT>>'))`, `to_json(from_json(s, 'STRUCT<a: STRING, b: STRUCT<x: STRING>>'))`,
	`to_json(from_json(s, 'm MAP<STRING, STRUCT<x: INT>>'))`, `to_json(from_json(s, '` + "`a`" + ` INT NOT NULL COMMENT ''x'', B STRING'))`,
	`to_json(from_json(s, schema_of_json('{"a":1,"b":[2]}')))`,
}

// Spark 4 reads JSON texts into structs as this package does.
func TestFromJSONAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec, vals := regexBatch(t, fromJSONTexts)
	sparkAgrees(t, s, sc, rec, fromJSONExprs, vals, "n, s")
}

// Options, a schema of dates or binary, a malformed object, a map key
// given twice and a lone escaped surrogate are refused.
func TestFromJSONRefusals(t *testing.T) {
	sc, rec, _ := regexBatch(t, []*string{sp(`{"a":1, "b":bad}`), sp(`{"m":{"a":1,"a":2}}`), sp(`{"a":"x"}`), sp(`{"b":"\ud800"}`)})
	rels := map[string]*schema.Struct{"": sc}
	refusedWhenBound(t, rels, []struct{ e, want string }{
		{`from_json(s, 'a INT', str_to_map('a:b'))`, `options are not supported`},
		{`from_json(s, 'a DATE')`, `datetime or Base64`},
		{`from_json(s, 'a STRUCT<b: TIMESTAMP>')`, `datetime or Base64`},
		{`from_json(s, 'a MAP<INT, INT>')`, `map key`},
		{`from_json(s, 'a INT,')`, `expected a field name`},
		{`from_json(s, s)`, `constant`},
	})
	b, err := BindValue(mustParse(t, `to_json(from_json(s, 'a INT, m MAP<STRING, INT>'))`), rels)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(evalValue(t, b, rec), "|"); got != `ERR|ERR|{}|ERR` {
		t.Errorf("from_json = %q", got)
	}
}

// refusedWhenBound checks that each expression fails to bind with an
// error naming what it wants.
func refusedWhenBound(t *testing.T, rels map[string]*schema.Struct, cases []struct{ e, want string }) {
	t.Helper()
	for _, c := range cases {
		_, err := BindValue(mustParse(t, c.e), rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
}
