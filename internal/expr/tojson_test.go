package expr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// jsonColsSchema is the columns of jsonColsRows: a struct of every atomic
// type to_json writes, arrays of structs and maps.
const jsonColsSchema = `{"type":"struct","fields":[
{"name":"n","type":"integer","nullable":true,"metadata":{}},
{"name":"s","type":{"type":"struct","fields":[
 {"name":"b","type":"boolean","nullable":true,"metadata":{}},
 {"name":"i","type":"byte","nullable":true,"metadata":{}},
 {"name":"sh","type":"short","nullable":true,"metadata":{}},
 {"name":"l","type":"long","nullable":true,"metadata":{}},
 {"name":"f","type":"float","nullable":true,"metadata":{}},
 {"name":"d","type":"double","nullable":true,"metadata":{}},
 {"name":"dec","type":"decimal(10,7)","nullable":true,"metadata":{}},
 {"name":"str","type":"string","nullable":true,"metadata":{}},
 {"name":"bin","type":"binary","nullable":true,"metadata":{}},
 {"name":"dt","type":"date","nullable":true,"metadata":{}},
 {"name":"ts","type":"timestamp","nullable":true,"metadata":{}},
 {"name":"ntz","type":"timestamp_ntz","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},
{"name":"a","type":{"type":"array","elementType":{"type":"struct","fields":[
 {"name":"x","type":"integer","nullable":true,"metadata":{}},
 {"name":"y","type":{"type":"array","elementType":"string","containsNull":true},"nullable":true,"metadata":{}}]},"containsNull":true},"nullable":true,"metadata":{}},
{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"integer","containsNull":true},"valueContainsNull":true},"nullable":true,"metadata":{}},
{"name":"mi","type":{"type":"map","keyType":"integer","valueType":"string","valueContainsNull":true},"nullable":true,"metadata":{}},
{"name":"md","type":{"type":"map","keyType":"date","valueType":"decimal(5,2)","valueContainsNull":true},"nullable":true,"metadata":{}},
{"name":"mb","type":{"type":"map","keyType":"boolean","valueType":"double","valueContainsNull":true},"nullable":true,"metadata":{}},
{"name":"af","type":{"type":"array","elementType":"float","containsNull":true},"nullable":true,"metadata":{}},
{"name":"ad","type":{"type":"array","elementType":"double","containsNull":true},"nullable":true,"metadata":{}}]}`

// sparkStruct is the Spark value of s for the given fields' SQL.
func sparkStruct(b, i, sh, l, f, d, dec, str, bin, dt, ts, ntz string) string {
	return "named_struct('b', CAST(" + b + " AS BOOLEAN), 'i', CAST(" + i + " AS TINYINT), 'sh', CAST(" + sh + " AS SMALLINT), 'l', CAST(" + l +
		" AS BIGINT), 'f', CAST(" + f + " AS FLOAT), 'd', CAST(" + d + " AS DOUBLE), 'dec', CAST(" + dec + " AS DECIMAL(10,7)), 'str', CAST(" + str +
		" AS STRING), 'bin', CAST(" + bin + " AS BINARY), 'dt', CAST(" + dt + " AS DATE), 'ts', CAST(" + ts + " AS TIMESTAMP), 'ntz', CAST(" + ntz + " AS TIMESTAMP_NTZ))"
}

// jsonColsRows are the rows, as JSON here and as Spark's VALUES.
var jsonColsRows = []struct{ json, spark string }{
	{`{"n":0,"s":{"b":true,"i":-128,"sh":32767,"l":-9223372036854775808,"f":1.1,"d":1.5,"dec":"0.0000001","str":"q\"\n😀é\u0001/\\","bin":"AP8=","dt":"2020-01-01","ts":"2020-01-01T01:02:03.5Z","ntz":"2020-01-01T01:02:03.123456"},` +
		`"a":[{"x":1,"y":["a",null]},null,{"x":null,"y":null}],"m":[{"key":"k","value":[1,null]},{"key":"z","value":null}],"mi":[{"key":-1,"value":"v"}],"md":[{"key":"2020-01-01","value":"1.50"}],"mb":[{"key":true,"value":1.0E30}]}`,
		`(0, ` + sparkStruct("true", "-128", "32767", "-9223372036854775808", "1.1", "1.5", "0.0000001", `'q"\n😀é\u0001/\\'`, "X'00FF'", "'2020-01-01'", "'2020-01-01 01:02:03.5Z'", "'2020-01-01 01:02:03.123456'") +
			`, array(named_struct('x', 1, 'y', array('a', NULL)), NULL, named_struct('x', CAST(NULL AS INT), 'y', CAST(NULL AS ARRAY<STRING>))), map('k', array(1, NULL), 'z', CAST(NULL AS ARRAY<INT>)), map(-1, 'v'), map(DATE'2020-01-01', 1.50BD), map(true, 1.0E30D))`},
	{`{"n":1,"s":{},"a":[],"m":[],"mi":[],"md":[{"key":"1969-12-31","value":null}],"mb":[{"key":false,"value":"NaN"}]}`,
		`(1, ` + sparkStruct("NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL") +
			`, CAST(array() AS ARRAY<STRUCT<x: INT, y: ARRAY<STRING>>>), map_from_arrays(CAST(array() AS ARRAY<STRING>), CAST(array() AS ARRAY<ARRAY<INT>>)), map_from_arrays(CAST(array() AS ARRAY<INT>), CAST(array() AS ARRAY<STRING>)), map(DATE'1969-12-31', CAST(NULL AS DECIMAL(5,2))), map(false, CAST('NaN' AS DOUBLE)))`},
	{`{"n":2}`, `(2, CAST(NULL AS STRUCT<b: BOOLEAN, i: TINYINT, sh: SMALLINT, l: BIGINT, f: FLOAT, d: DOUBLE, dec: DECIMAL(10,7), str: STRING, bin: BINARY, dt: DATE, ts: TIMESTAMP, ntz: TIMESTAMP_NTZ>), ` +
		`CAST(NULL AS ARRAY<STRUCT<x: INT, y: ARRAY<STRING>>>), CAST(NULL AS MAP<STRING, ARRAY<INT>>), CAST(NULL AS MAP<INT, STRING>), CAST(NULL AS MAP<DATE, DECIMAL(5,2)>), CAST(NULL AS MAP<BOOLEAN, DOUBLE>))`},
	{`{"n":3,"s":{"b":false,"i":0,"sh":-1,"l":0,"f":-0.0,"d":-0.0,"dec":"0","str":"","bin":"","dt":-719893,"ts":"1969-12-31T23:59:59.999999Z","ntz":317147356800000000},"a":[null],"m":[{"key":"","value":[]}],"mi":[{"key":2147483647,"value":null}],"md":[],"mb":[{"key":true,"value":"-Infinity"}]}`,
		`(3, ` + sparkStruct("false", "0", "-1", "0", "-0.0D", "-0.0D", "0", "''", "X''", "'-0001-01-01'", "'1969-12-31 23:59:59.999999Z'", "'+12020-01-01 00:00:00'") +
			`, array(CAST(NULL AS STRUCT<x: INT, y: ARRAY<STRING>>)), map('', CAST(array() AS ARRAY<INT>)), map(2147483647, CAST(NULL AS STRING)), map_from_arrays(CAST(array() AS ARRAY<DATE>), CAST(array() AS ARRAY<DECIMAL(5,2)>)), map(true, CAST('-Infinity' AS DOUBLE)))`},
	{`{"n":4,"s":{"f":0.001,"d":1.2345678901234E-300,"dec":"123.45","dt":-719528,"ts":"2020-06-01T12:00:00Z","ntz":"1900-01-01T00:00:00.0009"}}`,
		`(4, ` + sparkStruct("NULL", "NULL", "NULL", "NULL", "1e-3", "1.2345678901234E-300", "123.45", "NULL", "NULL", "'0000-01-01'", "'2020-06-01 12:00:00Z'", "'1900-01-01 00:00:00.0009'") +
			`, NULL, NULL, NULL, NULL, NULL)`},
	// floats of up to 6 digits and doubles of up to 15, which every JVM
	// version writes alike
	{`{"n":5,"af":[1.0E-5,1.23457E-10,9.99999E37,1.2E-38,123456.0,0.001,1.0E7,100.0,3.14159,2.71828E-20,65504.0,999999.0,0.1,0.3,9.5E-4,1.17549E-37,-7.0E-4,5.0E-5],"ad":[1.0E-5,123456789012345.0,1.0E30,2.0E15,2.2250738585073E-308,0.1,1.0E7,9999999.0,0.001,9.99E-4,-1.7976931348623E308]}`,
		`(5, NULL, NULL, NULL, NULL, NULL, NULL, array(CAST('1.0E-5' AS FLOAT), CAST('1.23457E-10' AS FLOAT), CAST('9.99999E37' AS FLOAT), CAST('1.2E-38' AS FLOAT), CAST('123456.0' AS FLOAT), CAST('0.001' AS FLOAT), CAST('1.0E7' AS FLOAT), CAST('100.0' AS FLOAT), CAST('3.14159' AS FLOAT), CAST('2.71828E-20' AS FLOAT), CAST('65504.0' AS FLOAT), CAST('999999.0' AS FLOAT), CAST('0.1' AS FLOAT), CAST('0.3' AS FLOAT), CAST('9.5E-4' AS FLOAT), CAST('1.17549E-37' AS FLOAT), CAST('-7.0E-4' AS FLOAT), CAST('5.0E-5' AS FLOAT)), array(CAST('1.0E-5' AS DOUBLE), CAST('123456789012345.0' AS DOUBLE), CAST('1.0E30' AS DOUBLE), CAST('2.0E15' AS DOUBLE), CAST('2.2250738585073E-308' AS DOUBLE), CAST('0.1' AS DOUBLE), CAST('1.0E7' AS DOUBLE), CAST('9999999.0' AS DOUBLE), CAST('0.001' AS DOUBLE), CAST('9.99E-4' AS DOUBLE), CAST('-1.7976931348623E308' AS DOUBLE)))`},
}

var toJSONExprs = []string{`to_json(s)`, `to_json(a)`, `to_json(m)`, `to_json(mi)`, `to_json(md)`, `to_json(mb)`, `to_json(af)`, `to_json(ad)`}

func jsonColsBatch(t *testing.T) (*schema.Struct, arrow.RecordBatch, []string) {
	t.Helper()
	rows := append(jsonColsRows[:0:0], jsonColsRows...)
	for i, r := range rows {
		if !strings.Contains(r.json, `"af"`) {
			rows[i].spark = strings.TrimSuffix(r.spark, ")") + ", NULL, NULL)" // af, ad
		}
	}
	return rowsBatch(t, jsonColsSchema, rows)
}

// rowsBatch is the batch of the schema (Delta JSON) holding rows, and
// the rows as Spark's VALUES.
func rowsBatch(t *testing.T, schemaJSON string, rows []struct{ json, spark string }) (*schema.Struct, arrow.RecordBatch, []string) {
	t.Helper()
	sc := mustSchema(t, schemaJSON)
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var texts, vals []string
	for _, r := range rows {
		texts = append(texts, r.json)
		vals = append(vals, r.spark)
	}
	return sc, jsonBatch(t, as, texts), vals
}

// Spark 4 writes structs, arrays and maps as JSON as this package does,
// in UTC and in a zone with daylight saving.
func TestToJSONAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec, vals := jsonColsBatch(t)
	sparkAgrees(t, s, sc, rec, toJSONExprs, vals, "n, s, a, m, mi, md, mb, af, ad")
	t.Cleanup(func() { s.Run(t, peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=UTC"}) })
	for _, zone := range []string{"America/Los_Angeles", "+05:30"} {
		sess, err := NewSession(zone)
		if err != nil {
			t.Fatal(err)
		}
		s.Run(t, peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=" + zone})
		sparkAgreesIn(t, s, sess, sc, rec, []string{`to_json(s)`}, vals, "n, s, a, m, mi, md, mb, af, ad")
	}
}

// Options, a type Spark writes as its internal value and an atomic value
// are refused when bound; a double or float whose digits depend on the
// JVM version on the row.
func TestToJSONRefusals(t *testing.T) {
	sc, _, _ := jsonColsBatch(t)
	rels := map[string]*schema.Struct{"": sc}
	refusedWhenBound(t, rels, []struct{ e, want string }{
		{`to_json(n)`, `needs a struct, an array or a map`},
		{`to_json(s, str_to_map('a:b'))`, `options are not supported`},
		{`to_json(s.str)`, `needs a struct`},
	})
	sc2 := mustSchema(t, `{"type":"struct","fields":[{"name":"s","type":{"type":"struct","fields":[{"name":"d","type":"double","nullable":true,"metadata":{}},{"name":"f","type":"float","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`)
	as, err := schema.ToArrow(sc2, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ row, want string }{
		{`{"s":{"d":0.1234567890123456}}`, "more than 15 digits"}, {`{"s":{"d":1.0E23}}`, "2^52"}, {`{"s":{"d":5e-324}}`, "subnormal"},
		{`{"s":{"f":7.79185E10}}`, "2^24"},
		{`{"s":{"f":1.4E-45}}`, "float"},
		{`{"s":{"f":0.1234567}}`, "float"},
		{`{"s":{"d":0.5,"f":0.25}}`, `{"d":0.5,"f":0.25}`},
	} {
		b, err := BindValue(mustParse(t, `to_json(s)`), map[string]*schema.Struct{"": sc2})
		if err != nil {
			t.Fatal(err)
		}
		rec := jsonBatch(t, as, []string{c.row})
		got := strings.Join(evalValue(t, b, rec), "|")
		if arr, err := b.Eval(t.Context(), rec); err != nil {
			got = err.Error()
		} else {
			arr.Release()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("to_json(%s) = %q, want %q", c.row, got, c.want)
		}
	}
}
