package expr

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// codecExprs are evaluated here and by Spark over regexTexts.
var codecExprs = []string{
	`conv(s, 36, 10)`, `conv(s, 10, 16)`, `conv('-10', 16, -10)`, `conv('ff', 16, 2)`, `conv('zz', 36, 16)`, `conv('12a', 10, 16)`,
	`conv('9223372036854775807', 10, 16)`, `conv('18446744073709551615', 10, 10)`, `conv('-1', 10, 16)`, `conv(' 12', 10, 16)`,
	`conv('1', 1, 10)`, `conv('1', 10, 37)`, `conv(n * 1000, 10, 36)`, `conv(n - 5, 10, -2)`, `conv('-', 10, 10)`, `conv('', 10, 2)`,
	`conv('FFFFFFFFFFFFFFFF', 16, -10)`, `conv('8000000000000000', 16, -16)`,
	`hex(unhex(hex(s)))`, `hex(unhex('4A4b'))`, `hex(unhex('F'))`, `unhex('zz') IS NULL`, `hex(unhex(''))`, `hex(unhex(s))`,
	`unbase64(base64(s)) = encode(s, 'utf-8')`, `hex(unbase64('YWJj'))`, `hex(unbase64('YWJ'))`, `hex(unbase64('Y W\nJ j'))`,
	`hex(unbase64('@@'))`, `hex(unbase64('YQ=='))`, `hex(unbase64('YQ==\n'))`, `hex(unbase64('YWI='))`, `hex(unbase64('YW=='))`, `hex(unbase64(''))`,
	`hex(unbase64('Y€WJj'))`,
	`hex(encode(s, 'UTF-16'))`, `hex(encode(s, 'utf-16le'))`, `hex(encode(s, 'UTF-16BE'))`, `hex(encode(s, 'utf-32'))`,
	`hex(encode(s, 'utf-8'))`, `hex(encode(s, 'ISO-8859-1'))`, `hex(encode('abc', 'US-ASCII'))`, `hex(encode('', 'utf-16'))`,
	`decode(encode(s, 'utf-16'), 'utf-16')`, `decode(encode(s, 'utf-16le'), 'utf-16le')`, `decode(encode(s, 'utf-32'), 'UTF-32')`,
	`decode(encode(s, 'iso-8859-1'), 'iso-8859-1')`, `decode(unhex('FFFE6100'), 'utf-16')`, `decode(unhex('FEFF0061'), 'utf-16be')`,
	`decode(unhex('E9'), 'iso-8859-1')`, `decode(unhex('0000FEFF00000061'), 'utf-32')`, `decode(s, 'utf-8')`, `decode(unhex('D83DDE00'), 'utf-16')`,
	`soundex(s)`, `soundex('Robert')`, `soundex('Tymczak')`, `soundex('Pfister')`, `soundex('Ashcraft')`, `soundex('a')`,
	`soundex('ñandu')`, `soundex('Lloyd-Wright')`, `soundex('Honeyman')`, `soundex('O''Hara')`, `soundex('x1y')`,
}

// Spark 4 computes the same values as this package for conv, unhex,
// unbase64, encode, decode and soundex.
func TestCodecFunctionsAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	var texts []*string
	for _, x := range regexTexts {
		if x == nil || !strings.ContainsAny(*x, "\u0085\u2028") { // no Latin-1 for these
			texts = append(texts, x)
		}
	}
	texts = append(texts, sp("zz"), sp("1a2B"), sp("-77"))
	sc, rec, vals := regexBatch(t, texts)
	sparkAgrees(t, s, sc, rec, codecExprs, vals, "n, s")
}

// What Spark refuses is refused: an unknown charset when bound,
// an overflow or a text a charset cannot hold on the row.
func TestCodecRefusals(t *testing.T) {
	sc, rec, _ := regexBatch(t, []*string{sp("18446744073709551616"), sp("é€")})
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`encode(s, 'cp1252')`, `the charset "cp1252" is not one of`},
		{`decode(s, s)`, `constant charset`},
		{`decode(unhex('61C3'), 'utf-8')`, `MALFORMED_CHARACTER_CODING`},
		{`unbase64('YQ==YWJj')`, `incorrect ending byte`},
		{`unbase64('YWI=x')`, `incorrect ending byte`},
		{`unbase64('YW=x')`, `wrong 4-byte ending unit`},
		{`format_number(1e23D, 2)`, `depend on the JVM version`},
		{`format_number(1, 'x')`, `has no digit`},
		{`decode(unhex('D83D0061'), 'utf-16')`, `MALFORMED_CHARACTER_CODING`},
	} {
		_, err := BindValue(mustParse(t, c.e), rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	for _, c := range []struct{ e, want string }{
		{`conv(s, 10, 16)`, `ERR|0`},
		{`hex(encode(s, 'us-ascii'))`, `3138343436373434303733373039353531363136|ERR`},
		{`hex(encode(s, 'iso-8859-1'))`, `3138343436373434303733373039353531363136|ERR`},

		{`hex(unbase64(concat(s, 'x')))`, `ERR|ERR`},
		{`hex(unbase64(concat(s, '=')))`, `ERR|ERR`},
	} {
		b, err := BindValue(mustParse(t, c.e), rels)
		if err != nil {
			t.Errorf("%s: %v", c.e, err)
			continue
		}
		got := strings.Join(evalValue(t, b, rec), "|")
		got = strings.ReplaceAll(got+"|", "||", `|""|`)
		if got = strings.TrimSuffix(got, "|"); got != c.want {
			t.Errorf("%s = %q, want %q", c.e, got, c.want)
		}
	}
}

// formatExprs are format_number over rows numbered 0 to 13: integers,
// decimals and doubles of many magnitudes, ties and values that round to
// zero.
var formatExprs = []string{
	`format_number(n, 2)`, `format_number(n * -123456789, 0)`, `format_number(n - 5, 3)`, `format_number(CAST(n AS TINYINT), -1)`,
	`format_number(n / 8, 2)`, `format_number(n / 8, 1)`, `format_number((n - 6) / 3, 4)`, `format_number(n / 7, 20)`,
	`format_number(CAST(n AS DOUBLE) / 40, 2)`, `format_number(pow10, 2)`, `format_number(pow10 / 3, 3)`, `format_number(-pow10 / 7, 0)`,
	`format_number(1 / pow10, 5)`, `format_number(1 / pow10, 12)`, `format_number(CAST(n AS FLOAT) / 3, 6)`, `format_number(CAST(n AS FLOAT) / 10, 1)`,
	`format_number(CAST(n AS DECIMAL(10, 0)) / 16, 3)`, `format_number(CAST(n - 6 AS DECIMAL(10, 1)) / 4, 1)`, `format_number(CAST(-0.001 AS DECIMAL(5,3)), 2)`,
	`format_number(-0.0D, 2)`, `format_number(-0.0001D, 2)`, `format_number(0.1D, 20)`, `format_number(CAST('NaN' AS DOUBLE), 2)`,
	`format_number(CAST('Infinity' AS DOUBLE), 1)`, `format_number(1.005D, 2)`, `format_number(2.5D, 0)`, `format_number(-0.5D, 0)`,
	`format_number(123456789.987654321D, 5)`, `format_number(1e-7D, 10)`, `format_number(9007199254740991D, 1)`, `format_number(n, NULL)`,
	`format_number(xxhash64(n) / 1e12, 3)`, `format_number(xxhash64(n) / 1e16, 2)`, `format_number(hash(n) / 7e3, 1)`,
	`format_number(hash(n) / 1e9, 9)`, `format_number(hash(n) / 3e7, 2)`, `format_number(xxhash64(n) / 1e30, 17)`,
}

// Spark 4 formats numbers as this package does.
func TestFormatNumberAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	texts := make([]*string, 14)
	sc, rec, vals := regexBatch(t, texts)
	var exprs []string
	for _, e := range formatExprs {
		exprs = append(exprs, strings.ReplaceAll(e, "pow10", "CAST(concat('1.2345e', n * 2 - 12) AS DOUBLE)"))
	}
	sparkAgrees(t, s, sc, rec, exprs, vals, "n, s")
}

// jsonTexts are the documents jsonExprs read.
var jsonTexts = []*string{
	sp(`{"a":{"b":[1,2,{"c":"x"}]},"n":-0,"f":1.50,"g":1.0e2,"h":12345678.9,"i":0.0001,"j":-1.5E-7,"big":123456789012345678901234567890}`),
	sp(`{"a":{"x":1.50,"y":"q\"\n\u0001é/","z":[true,null,"s",{"w":0.5}]},"a":{"b":"second"}}`),
	sp(`[1,[2,3],{"a b":"sp","":4}]`), sp(`"str"`), sp(`{"a":1} trailing`), sp(`{"a":1, x}`), sp(`not json`), nil,
	sp(`{"a":{},"a":{"b":[10,20]}}`), sp(`{"a":"\ud83d\ude00","t":true,"nul":null}`), sp(`{"a":[]}`), sp(`{"e":["😀ü"],"a":"😀"}`),
	// wildcards: one match, several, none, nested arrays, Hive's flattening
	sp(`[1,null]`), sp(`null`), sp(`[[[]],[[5]]]`), sp(`[[1,[2]],3]`), sp(`[{"a":[1,2]},{"a":[3]}]`), sp(`[{"a":[1,2]}]`),
	sp(`["😀",{"a":"😀é","b":[1.50,-0]}]`), sp(`[["😀"]]`), sp(`{"a":[1,2,3]}`), sp(`{"a":[1]}`), sp(`{"a":["x"]}`),
	sp(`[{"b":1},{"c":2},{"b":null},{"b":[3]}]`), sp(`[[1,2],[3]]`), sp(`{"a":[[1,[2]],[3]]}`), sp(`[[],[]]`), sp(`[[[1]]]`),
	sp(`[[[1,2],[3]]]`), sp(`[[[5,6]],[[7]]]`), sp(`[1,"s",true,null,1.50,{"x":null}]`), sp(`[null]`), sp(`{"a":{"b":1}}`),
	sp(`{"*":[{"a":[]},{"a":[[]]}],"a ":"sp"}`), sp(`{"a":[[]],"a":[[1]]}`), sp(`{"a":[[2]],"a":[[1]]}`), sp(`{"a":[[],[3]],"b":[[4,5],[6]]}`),
	// Jackson's grammar: single quotes, control characters, white space,
	// numbers, literals, nesting and number limits
	sp(``), sp(`  `), sp(`1x`), sp(`1 x`), sp(`truex`), sp(`"a"x`), sp(`01`), sp(`[01]`), sp(`1.`), sp(`-`), sp(`[1.5e]`),
	sp(`{'a':'x"\'y','b':1}`), sp(`{"a":"\'"}`), sp("{\"a\":\"x\ty\u0001\",\"b\":[\"\n\"]}"), sp(`{"a":"\x"}`),
	sp(`{"a":1,}`), sp(`[1,]`), sp("\f1"), sp(`{"a" : [ 1 , 2 ] }`), sp(`{a:1}`), sp(`[NaN]`), sp(`[1e5,1E-2,-0.0,2e+2]`),
	sp(strings.Repeat("[", 1000) + strings.Repeat("]", 1000)), sp(strings.Repeat("[", 1001) + strings.Repeat("]", 1001)),
	sp("[" + strings.Repeat("1", 1000) + "]"), sp("[" + strings.Repeat("1", 1001) + "]"), sp(`[true,false,null,nul]`),
}

// jsonExprs are get_json_object over jsonTexts.
var jsonExprs = []string{
	`get_json_object(s, '$')`, `get_json_object(s, '$.a')`, `get_json_object(s, '$.a.b')`, `get_json_object(s, '$.a.b[2].c')`,
	`get_json_object(s, '$.a.b[1]')`, `get_json_object(s, '$.n')`, `get_json_object(s, '$.f')`, `get_json_object(s, '$.g')`,
	`get_json_object(s, '$.h')`, `get_json_object(s, '$.i')`, `get_json_object(s, '$.j')`, `get_json_object(s, '$.big')`,
	`get_json_object(s, '$.a.y')`, `get_json_object(s, '$.a.z')`, `get_json_object(s, '$.a.z[3].w')`, `get_json_object(s, '$[1][0]')`,
	`get_json_object(s, '$[2].a b')`, `get_json_object(s, '$[2][''a b'']')`, `get_json_object(s, '$[2]')`, `get_json_object(s, '$.a.')`,
	`get_json_object(s, '$..a')`, `get_json_object(s, '$.a[01]')`, `get_json_object(s, '$["a"]')`, `get_json_object(s, ' $.a')`,
	`get_json_object(s, '$.')`, `get_json_object(s, '$.t')`, `get_json_object(s, '$.nul')`, `get_json_object(s, '$.a[''b'']')`,
	`get_json_object(s, '$[5]')`, `get_json_object(s, 'a')`, `get_json_object(s, '$.a.b[0]')`,
	`get_json_object(s, '$[*]')`, `get_json_object(s, '$[*][*]')`, `get_json_object(s, '$[*][0][*]')`, `get_json_object(s, '$[*].a[*]')`,
	`get_json_object(s, '$.a[*]')`, `get_json_object(s, '$[*].b')`, `get_json_object(s, '$[*][0]')`, `get_json_object(s, '$[0][*]')`,
	`get_json_object(s, '$.a[*][*]')`, `get_json_object(s, '$[*][*][*]')`, `get_json_object(s, '$[*][*].a')`, `get_json_object(s, '$[*][*][0]')`,
	`get_json_object(s, '$[1][*][*]')`, `get_json_object(s, '$.*')`, `get_json_object(s, '$[''*'']')`, `get_json_object(s, '$. *')`,
	`get_json_object(s, '$.*[*].a[*]')`, `get_json_object(s, '$[''*''][*].a[*]')`, `get_json_object(s, '$[*][''a'']')`, `get_json_object(s, '$[1]')`,
	`get_json_object(s, '$. a')`, `get_json_object(s, '$[ 1]')`, `get_json_object(s, '$[1 ]')`, `get_json_object(s, '$[1] ')`,
	`get_json_object(s, '$ [''a'']')`, `get_json_object(s, '$[''a?'']')`, `get_json_object(s, '$.a ')`, `get_json_object(s, '$[ *]')`,
	`get_json_object(s, '$[2147483648]')`, `get_json_object(s, '$\t.a')`, `get_json_object(s, '$[*].b[*]')`, `get_json_object(s, '$[0][0][*]')`,
	`get_json_object(s, '$.a[0][*]')`, `get_json_object(s, '$.a[*][*]')`, `get_json_object(s, '$.b[*][0]')`, `get_json_object(s, '$.a[1][*]')`,
}

// Spark 4 reads JSON paths as this package does.
func TestGetJSONObjectAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec, vals := regexBatch(t, jsonTexts)
	sparkAgrees(t, s, sc, rec, jsonExprs, vals, "n, s")
}

// A double whose digits depend on the JVM version is refused on the row,
// as is an index beyond a long, which fails Spark's path parser.
func TestGetJSONObjectRefusals(t *testing.T) {
	sc, rec, _ := regexBatch(t, []*string{sp(`{"a":0.1234567890123456,"b":1e400,"c":[1.25]}`)})
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`get_json_object(s, s)`, `constant path`},
		{`get_json_object('{"a":"\\ud800x"}', '$.a')`, `escaped surrogate that is no pair`},
		{`get_json_object('{"a":"\\udc00"}', '$')`, `escaped surrogate that is no pair`},
	} {
		_, err := BindValue(mustParse(t, c.e), rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	for _, c := range []struct{ e, want string }{
		{`get_json_object(s, '$.a')`, `ERR`}, {`get_json_object(s, '$.b')`, `ERR`}, {`get_json_object(s, '$.c')`, `[1.25]`},
		{`get_json_object(s, '$[99999999999999999999]')`, `ERR`},
	} {
		b, err := BindValue(mustParse(t, c.e), rels)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(evalValue(t, b, rec), "|"); got != c.want {
			t.Errorf("%s = %q, want %q", c.e, got, c.want)
		}
	}
}
