package expr

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// scalarSchema and scalarRows are the rows the scalar functions' checks
// run over: extremes, negatives, zeros, NULLs, empty and non-ASCII texts.
const scalarSchema = `{"type":"struct","fields":[
{"name":"n","type":"integer","nullable":true,"metadata":{}},
{"name":"i8","type":"byte","nullable":true,"metadata":{}},
{"name":"i","type":"integer","nullable":true,"metadata":{}},
{"name":"l","type":"long","nullable":true,"metadata":{}},
{"name":"s","type":"string","nullable":true,"metadata":{}},
{"name":"dec","type":"decimal(10,2)","nullable":true,"metadata":{}},
{"name":"d","type":"date","nullable":true,"metadata":{}},
{"name":"f","type":"double","nullable":true,"metadata":{}},
{"name":"b","type":"boolean","nullable":true,"metadata":{}}]}`

var scalarRows = []string{
	`{"n":0,"i8":5,"i":6,"l":12,"s":"abc","dec":"12.35","d":"2026-01-01","f":2.5,"b":true}`,
	`{"n":1,"i8":-1,"i":-7,"l":-1,"s":"a,b,,c","dec":"-0.25","d":"1969-12-31","f":-2.5,"b":false}`,
	`{"n":2}`,
	`{"n":3,"i8":127,"i":2147483647,"l":9223372036854775807,"s":"ñé😀x","dec":"99999999.99","d":"2000-02-29","f":0.125,"b":true}`,
	`{"n":4,"i8":-128,"i":-2147483648,"l":-9223372036854775808,"s":"","dec":"0.00","d":"0001-01-01","f":-0.0,"b":false}`,
	`{"n":5,"i8":0,"i":0,"l":0,"s":"  xyx  ","dec":"-3.50","d":"9999-12-31","f":1e300,"b":null}`,
}

// scalarValues are scalarRows as Spark's VALUES tuples.
var scalarValues = []string{
	`(0, 5Y, 6, 12L, 'abc', 12.35BD, DATE'2026-01-01', 2.5D, true)`,
	`(1, -1Y, -7, -1L, 'a,b,,c', -0.25BD, DATE'1969-12-31', -2.5D, false)`,
	`(2, CAST(NULL AS TINYINT), CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS STRING), CAST(NULL AS DECIMAL(10,2)), CAST(NULL AS DATE), CAST(NULL AS DOUBLE), CAST(NULL AS BOOLEAN))`,
	`(3, 127Y, 2147483647, 9223372036854775807L, 'ñé😀x', 99999999.99BD, DATE'2000-02-29', 0.125D, true)`,
	`(4, -128Y, -2147483648, -9223372036854775808L, '', 0.00BD, DATE'0001-01-01', -0.0D, false)`,
	`(5, 0Y, 0, 0L, '  xyx  ', -3.50BD, DATE'9999-12-31', 1e300D, CAST(NULL AS BOOLEAN))`,
}

const scalarCols = "n, i8, i, l, s, dec, d, f, b"

func scalarBatch(t *testing.T) (*schema.Struct, arrow.RecordBatch) {
	t.Helper()
	sc := mustSchema(t, scalarSchema)
	rec := batch(t, memory.DefaultAllocator, sc, "["+strings.Join(scalarRows, ",")+"]")
	t.Cleanup(rec.Release)
	return sc, rec
}

// sparkMatches checks exprs against Spark over the rows (vals, VALUES
// tuples of the columns cols, n first, numbering the rows from 0): where
// this package fails a row (an ANSI error), Spark must fail that row
// alone; on the others both give the same CAST(... AS STRING) values, and
// the same result type.
func sparkMatches(t *testing.T, s *peers.SparkSession, sc *schema.Struct, rec arrow.RecordBatch, exprs, vals []string, cols string) {
	t.Helper()
	from := " FROM VALUES " + strings.Join(vals, ", ") + " AS t(" + cols + ")"
	type check struct {
		expr int
		row  int // -1: the value query
		ok   []int
	}
	var ops []peers.Op
	var checks []check
	ours := make([][]string, len(exprs))
	types := make([]string, len(exprs))
	for i, e := range exprs {
		b, err := BindValue(mustParse(t, "CAST("+e+" AS STRING)"), map[string]*schema.Struct{"": sc})
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		tb, err := BindValue(mustParse(t, e), map[string]*schema.Struct{"": sc})
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		types[i] = sparkTypeName(tb.Type())
		ours[i] = evalValue(t, b, rec)
		c := check{expr: i, row: -1}
		for r, v := range ours[i] {
			if v == "ERR" {
				ops = append(ops, peers.Op{"op": "sql", "sql": fmt.Sprintf("SELECT n, CAST(%s AS STRING) AS v%s WHERE n = %d", e, from, r)})
				checks = append(checks, check{expr: i, row: r})
				continue
			}
			c.ok = append(c.ok, r)
		}
		if len(c.ok) > 0 {
			in := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(c.ok)), ", "), "[]")
			ops = append(ops, peers.Op{"op": "sql", "sql": fmt.Sprintf("SELECT n, CAST(%s AS STRING) AS v, typeof(%s) AS t%s WHERE n IN (%s)", e, e, from, in)})
			checks = append(checks, c)
		}
	}
	res := s.Try(t, ops...)
	for k, c := range checks {
		e := exprs[c.expr]
		if c.row >= 0 {
			if res[k].OK {
				t.Errorf("%s fails row %d here; Spark gives it a value", e, c.row)
			}
			continue
		}
		if !res[k].OK {
			t.Errorf("%s: Spark fails rows %v: %s\n here %s", e, c.ok, firstLine(res[k].Error), strings.Join(ours[c.expr], "|"))
			continue
		}
		got := map[int]string{}
		typ := ""
		for _, row := range res[k].Table(t).Rows {
			n, _ := strconv.Atoi(fmt.Sprint(row["n"]))
			v, ok := row["v"].(string)
			if !ok {
				v = "NULL"
			}
			got[n] = v
			typ, _ = row["t"].(string)
		}
		var here, theirs []string
		for _, r := range c.ok {
			here, theirs = append(here, ours[c.expr][r]), append(theirs, got[r])
		}
		if strings.Join(here, "|") != strings.Join(theirs, "|") {
			t.Errorf("%s on rows %v:\n here  %s\n Spark %s", e, c.ok, strings.Join(here, "|"), strings.Join(theirs, "|"))
		}
		if typ != types[c.expr] {
			t.Errorf("%s is of type %s here, %s in Spark", e, types[c.expr], typ)
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// bitExprs are the bitwise operators and bit_count.
var bitExprs = []string{
	`i8 & 3`, `i8 | 3Y`, `typeof(i8 | 3Y)`, `i8 ^ i`, `~i8`, `~l`, `l & i`, `i | -8`, `~i ^ l`, `i8 & i8 | 1 ^ 6`,
	`1 + i8 & 3`, `i8 & 6 = 4`, `~~i`, `-~i8`, `~(i8 + 1)`, `l ^ 9223372036854775807L`, `'12' & i8`, `i | '-3'`, `typeof(i8 ^ '1')`, `s & 1`, `NULL & i`, `~NULL`, `i & NULL`,
	`bit_count(i8)`, `bit_count(i)`, `bit_count(l)`, `bit_count(b)`, `bit_count(CAST(i AS SMALLINT) & 255S)`, `bit_count(NULL)`,
	`l DIV i8`, `i DIV 2`, `-7 DIV i8`, `i8 DIV 2Y`, `CAST(i8 AS SMALLINT) DIV i`,
	`dec DIV 0.5`, `dec DIV i8`, `i DIV dec`, `-dec DIV 0.3`, `CAST(l AS DECIMAL(20,0)) DIV 0.001`, `typeof(dec DIV 2)`,
	`CAST(i8 AS DECIMAL(38,0)) DIV CAST(1e-37 AS DECIMAL(38,38))`, `CAST(l AS DECIMAL(38,0)) DIV CAST(0.0001 AS DECIMAL(5,4))`,
}

// scalarExprs are the functions of scalarfuncs.go (iff and charindex,
// which Spark 4.2 does not name, as what Delta's list maps them to: if
// and locate).
var scalarExprs = []string{
	`negative(i8)`, `negative(NULL)`, `positive(NULL)`, `negative(dec)`, `negative(f)`, `negative(l)`, `positive(i)`, `positive(dec)`, `e()`, `pi()`, `e() * i8`,
	`mod(i, 4)`, `mod(i8, -3)`, `mod(dec, 0.3)`, `mod(f, 1.5D)`, `mod(l, i8)`, `mod(7, i)`,
	`typeof(i8)`, `typeof(dec * i8)`, `typeof(NULL)`, `typeof(d)`, `typeof(s)`, `typeof(b)`, `typeof(i8 + l)`, `typeof(f)`,
	`bround(dec, 1)`, `bround(dec)`, `bround(dec, -1)`, `bround(f)`, `bround(f, 2)`, `bround(i, -1)`, `bround(i8, -1)`, `bround(l, -2)`,
	`bround(2.5)`, `bround(-3.5)`, `bround(0.125D, 2)`, `bround(0.135D, 2)`, `bround(25, -1)`, `bround(35, -1)`, `bround(-25Y, -1)`,
	`bround(dec * i8, -2)`, `bround(f * 3, 1)`,
	`factorial(i8)`, `factorial(i)`, `factorial(l)`, `factorial(n)`, `factorial(n + 15)`, `factorial(CAST(i8 AS SMALLINT))`,
	`elt(n, s, 'b', 'c')`, `elt(n + 1, s, NULL, 'c', 'd', 'e', 'f')`, `elt(1, i, dec, d)`, `hex(elt(2, X'01', X'02'))`,
	`elt(CAST(NULL AS INT), 'a')`,
	`find_in_set('b', s)`, `find_in_set('', s)`, `find_in_set(s, 'abc,,x')`, `find_in_set('c', s)`, `find_in_set(s, s)`, `find_in_set('x,y', 'x,y')`,
	`find_in_set('😀', 'a,😀')`,
	`if(i8 > 0, 'pos', 'neg')`, `locate('b', s)`, `locate(',', s, 3)`, `locate('', s)`,
	`assert_true(i8 > -200)`, `assert_true(i > 0)`, `assert_true(b, 'b is not true')`,
	`decode(i8, 5, 'five', -1, 'minus one', 0, 'zero')`, `decode(i8, 5, 'five', 'other')`, `decode(s, NULL, 'null', 'abc', 'ABC')`,
	`decode(i8, 5, 1, 2.5)`, `decode(n, 0, 'a', 1, 2)`, `decode(d, DATE'2026-01-01', 'new year', '1969-12-31', 'eve')`, `decode(b, true, 1)`,
	`decode(encode(s, 'utf-8'), 'utf-8')`,
	`dec / 3`, `dec * 2`, `typeof(dec * 2)`, `dec + 1`, `typeof(dec + 1)`, `dec % 7`, `-5 * dec`, `dec / 3L`, `typeof(dec * 100Y)`,
	`dec / (1 + 2)`, `typeof(dec / (1 + 2))`, `dec * 12345678901`, `dec - 0`, `typeof(dec DIV 3)`, `dec / i8`,
}

// Spark 4 computes the bitwise operators, DIV and the scalar functions as
// this package does: types, values, and the rows their errors fail.
func TestScalarsAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec := scalarBatch(t)
	for _, exprs := range [][]string{bitExprs, scalarExprs, formExprs, tryExprs} {
		sparkMatches(t, s, sc, rec, exprs, scalarValues, scalarCols)
	}
}

// What Spark refuses is refused when bound, naming the operand; the rows
// Spark's ANSI mode fails fail here with its message; the operators
// render as written, in Spark's precedence.
func TestScalarRules(t *testing.T) {
	sc, rec := scalarBatch(t)
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`s & s`, `needs integral operands`},
		{`~s`, `needs integral operands`},
		{`~f`, `needs integral operands`},
		{`bit_count(s)`, `bit_count needs an integral or a boolean`},
		{`bround(dec, i)`, `bround takes a constant integer number of digits`},
		{`elt(1)`, `elt takes at least 2 argument(s), got 1`},
		{`assert_true(i)`, `where a boolean is needed`},
		{`negative(d)`, `needs a number`},
		{`s LIKE ANY ()`, `expected an expression, found ')'`},
		{`sentences(s)`, `java.text.BreakIterator`},
		{`f DIV 2`, `DIV needs integers or decimals, not DOUBLE and INT`},
		{`try_to_binary(s, s)`, `constant format`},
		{`try_subtract(d, d)`, `needs numbers`},
		{`trim(BOTH 'x' s)`, `expected FROM`},
		{`overlay(s PLACING 'x')`, `overlay takes 3 to 4 argument(s)`},
	} {
		e, err := Parse(c.e)
		if err == nil {
			_, err = BindValue(e, rels)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	for _, c := range []struct{ e, want string }{
		{`elt(n, 'a', 'b')`, `INVALID_ARRAY_INDEX] The index 0 is out of bounds. The array has 2 elements.`},
		{`assert_true(i8 > 0)`, `[USER_RAISED_EXCEPTION] 'i8 > 0' is not true!`},
		{`assert_true(i8 > 0, concat('bad ', s))`, `[USER_RAISED_EXCEPTION] bad a,b,,c`},
		{`i DIV i8`, `division by zero`},
	} {
		b, err := BindValue(mustParse(t, c.e), rels)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		_, err = b.Eval(t.Context(), rec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	for _, c := range []struct{ e, want string }{
		{`i8 & 3 | 1 ^ 6`, `i8 & 3 | 1 ^ 6`},
		{`(i8 | 3) & 1`, `(i8 | 3) & 1`},
		{`~(i8 + 1) & ~i8`, `~(i8 + 1) & ~i8`},
		{`1 + i8 & 3 = 2`, `1 + i8 & 3 = 2`},
		{`(1 + i8) ^ (i DIV 3)`, `1 + i8 ^ i DIV 3`},
		{`mod(i, 3)`, `i % 3`},
		{`iff(b, 1, 2)`, `if(b, 1, 2)`},
		{`charindex('a', s)`, `locate('a', s, 1)`},
		{`negative(i)`, `-i`},
		{`typeof(i)`, `typeof(i)`},
		{`trim(BOTH 'x' FROM s)`, `trim('x', s)`},
		{`trim(LEADING FROM s)`, `ltrim(s)`},
		{`position('b' IN s)`, `locate('b', s, 1)`},
		{`overlay(s PLACING 'X' FROM 2 FOR i)`, `overlay(s, 'X', 2, i)`},
		{`s LIKE ANY ('a%', 'b%') AND b`, `(s LIKE 'a%' OR s LIKE 'b%') AND b`},
		{`s NOT ILIKE ALL ('a%', 'b%')`, `s NOT ILIKE 'a%' AND s NOT ILIKE 'b%'`},
	} {
		b, err := BindValue(mustParse(t, c.e), rels)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		if got := b.String(); got != c.want {
			t.Errorf("%s renders as %s, want %s", c.e, got, c.want)
		}
		if _, err := BindValue(mustParse(t, b.String()), rels); err != nil {
			t.Errorf("%s: its rendering %s does not bind again: %v", c.e, b, err)
		}
	}
}

// formExprs are Spark's SQL syntax forms and the functions behind them.
var formExprs = []string{
	`trim(s)`, `trim(BOTH FROM s)`, `trim(BOTH 'x ' FROM s)`, `trim(LEADING 'a' FROM s)`, `trim(TRAILING 'c' FROM s)`, `trim(TRAILING FROM s)`,
	`trim(LEADING FROM s)`, `trim(' y' FROM s)`, `trim('a', s)`, `ltrim(' x', s)`, `rtrim(' x', s)`, `ltrim(s)`, `rtrim(s)`, `trim(s, 'abc')`,
	`trim(BOTH 'x😀ñ' FROM s)`, `trim(BOTH '' FROM s)`, `trim(BOTH NULL FROM s)`, `btrim(s)`, `btrim(s, ' x')`, `btrim(s, 'ca')`, `btrim(s, '')`,
	`position('b' IN s)`, `position('' IN s)`, `position(',' IN s)`, `position('😀' IN s)`, `position('b', s, 3)`, `position(s IN 'xabcx')`,
	`position('a' IN s) > 0 AND i8 IN (5, 0)`,
	`overlay(s PLACING 'XY' FROM 2)`, `overlay(s PLACING 'XY' FROM 2 FOR 0)`, `overlay(s PLACING 'XY' FROM 2 FOR 4)`, `overlay(s PLACING '' FROM i8)`,
	`overlay(s PLACING 'Z' FROM i8 FOR i8)`, `overlay(s, 'XY', 2, 1)`, `overlay(s, 'XY', -1)`, `overlay(s PLACING '😀' FROM 4 FOR -1)`,
	`hex(overlay(encode(s, 'utf-8') PLACING X'FF00' FROM 2))`, `hex(overlay(X'010203' PLACING X'FF' FROM i8 FOR 1))`,
	`overlay(s PLACING s FROM 2147483647 FOR 1)`, `overlay('abc' PLACING 'X' FROM i)`,
	`s LIKE ANY ('a%', '%c')`, `s LIKE ALL ('a%', '%c')`, `s NOT LIKE ANY ('a%', '%c')`, `s NOT LIKE ALL ('a%', '%c')`,
	`s LIKE SOME ('%,%')`, `s ILIKE ANY ('A%', NULL)`, `s LIKE ALL ('%', NULL)`, `s NOT ILIKE ALL ('%B%', 'X%')`, `s LIKE ANY (s)`,
	`NOT s LIKE ANY ('a%') OR i8 > 0`, `s LIKE ANY ('%b%') AND i8 > 0`, `s NOT LIKE ANY ('%😀%', '')`,
}

// tryExprs are the try_ functions, over rows whose operators overflow or
// divide by zero.
var tryExprs = []string{
	`try_add(i, 1)`, `try_add(i8, i8)`, `try_add(l, i)`, `try_add(i, -1)`, `try_add(dec, dec)`, `try_add(f, f)`, `try_add(d, i8)`,
	`try_add(i8, d)`, `try_add(NULL, i)`, `try_add(CAST(dec AS DECIMAL(38,2)) * 1e35BD, CAST(dec AS DECIMAL(38,2)) * 1e35BD)`,
	`try_subtract(i, 1)`, `try_subtract(l, -1)`, `try_subtract(0Y, i8)`, `try_subtract(d, i8)`, `try_subtract(dec, 0.01)`,
	`try_multiply(i, 2)`, `try_multiply(l, l)`, `try_multiply(i8, i8)`, `try_multiply(dec, dec)`, `try_multiply(f, f)`, `try_multiply(i8, -1Y)`,
	`try_divide(i, i8)`, `try_divide(CAST(l AS DECIMAL(20,0)), i8)`, `try_divide(dec, i8)`, `try_divide(f, 0D)`, `try_divide(i8, 0)`, `try_divide(dec, dec)`,
	`try_divide(f, f)`, `try_add(2147483647, 1)`, `try_divide(1, 0)`, `coalesce(try_divide(i, i8), -1D)`,
	`hex(try_to_binary(s))`, `hex(try_to_binary(s, 'utf-8'))`, `hex(try_to_binary(s, 'UTF8'))`, `hex(try_to_binary(s, 'base64'))`,
	`hex(try_to_binary(s, 'hex'))`, `hex(try_to_binary(s, 'bad'))`, `hex(try_to_binary('616', 'hex'))`, `hex(try_to_binary('6zz', 'Hex'))`,
	`hex(try_to_binary(s, NULL))`,
	`i + -1`, `i8 - 1Y`, `l - -1`, `l + i`, `i8 * i8`, `l * -1`, `i * -1`, `l * 2`, `-1 * l`, `l - 1`, `i8 + 127Y`,
}

// base64Texts are texts to_binary's base64 reads or refuses.
var base64Texts = []string{"YQ", "YQ=", "YQ==", "YQ===", "Y", "YQ==YQ", "YQ\n==", "YWJj\n", " YWJj ", "Y W J j", "YW\tJj",
	"YWJj=", "YWI", "YWI=", "YW==", "YQ=\n=", "YWJjZA", "YWJjZA=", "YWJjZA==", "", "=", "==", "YQ =", "Y€WJj", "YWJ-", "YWJ_",
	"YWJ+", "a b c", "YR==", "YWJjZ", "YQ== ", "YQ= =", "Y\u2003Q", "Y\u00a0Q", "YQ\u001c=="}

// Spark 4 reads the texts try_to_binary reads as base64 as this package
// does, refusing the same.
func TestTryToBinaryAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	var texts []*string
	for _, x := range base64Texts {
		texts = append(texts, sp(x))
	}
	sc, rec, vals := regexBatch(t, texts)
	sparkMatches(t, s, sc, rec, []string{`hex(try_to_binary(s, 'base64'))`, `hex(try_to_binary(s, 'BASE64'))`}, vals, "n, s")
}
