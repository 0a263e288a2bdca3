package expr

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// numberTexts are texts to_number reads or refuses: signs, brackets,
// currency, separators in and out of place, whitespace, digits of other
// scripts, too many digits.
var numberTexts = []*string{
	sp("123"), sp("-12.5"), sp("+7"), sp("12,345.67"), sp("1,2,3"), sp("12,34"), sp("<42>"), sp("<42"), sp("42>"), sp("$1,000.5"),
	sp("$-3"), sp("-$3"), sp(" 1 2 "), sp("\t5\n"), sp("٣٤.٥"), sp("１２"), sp(""), sp(" "), sp("."), sp(".5"), sp("5."),
	sp("1e3"), sp("0012"), sp("99999999"), sp("1-"), sp("12-"), sp("--1"), nil, sp("1\u00a0"), sp("1\u2003"), sp("12,3456"),
	sp("1,234,567.891"), sp("abc"), sp("0"), sp("-0.00"),
}

// numberFormats are formats of every token, in upper and lower case.
var numberFormats = []string{
	"999", "S999.99", "999.99S", "99,999.99", "9G999D99", "$9,999.9", "$99MI", "999PR", "99.99", "999.9PR", "MI999", "00099",
	"0,000", "9,9,9", "99,999", "s9d9", "9,999,999.999", "99.", "999.00", "$999.99S", "000.000",
}

// Spark 4 reads numbers as this package does: try_to_number over every
// text and format (NULL where the text does not match), to_number where
// it does, and the result types.
func TestToNumberAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec, vals := regexBatch(t, numberTexts)
	var exprs []string
	for _, f := range numberFormats {
		exprs = append(exprs, "try_to_number(s, '"+f+"')")
	}
	exprs = append(exprs, `to_number(concat('1', regexp_replace(s, '[^0-9]', '')), '999999999999')`, `to_number(CAST(n AS STRING), '99')`,
		`to_number(n * 10 - 170, 'S999')`, `try_to_number(s, NULL)`, `to_number(NULL, '99')`)
	sparkAgrees(t, s, sc, rec, exprs, vals, "n, s")
}

// A format Spark refuses is refused when bound, naming Spark's error;
// to_number fails the row of a text that does not match.
func TestToNumberRefusals(t *testing.T) {
	sc, rec, _ := regexBatch(t, []*string{sp("12"), sp("x"), nil})
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`to_number(s, '')`, `INVALID_FORMAT.EMPTY`},
		{`to_number(s, '$')`, `INVALID_FORMAT.WRONG_NUM_DIGIT`},
		{`to_number(s, '9$')`, `INVALID_FORMAT.CUR_MUST_BEFORE_DIGIT`},
		{`to_number(s, '9,')`, `INVALID_FORMAT.CONT_THOUSANDS_SEPS`},
		{`to_number(s, '9,,9')`, `INVALID_FORMAT.CONT_THOUSANDS_SEPS`},
		{`to_number(s, '9.9,9')`, `INVALID_FORMAT.THOUSANDS_SEPS_MUST_BEFORE_DEC`},
		{`to_number(s, '9.9.9')`, `INVALID_FORMAT.WRONG_NUM_TOKEN`},
		{`to_number(s, 'S9S')`, `INVALID_FORMAT.WRONG_NUM_TOKEN`},
		{`to_number(s, 'x9')`, `INVALID_FORMAT.UNEXPECTED_TOKEN`},
		{`to_number(s, '9PR9')`, `INVALID_FORMAT.UNEXPECTED_TOKEN`},
		{`to_number(s, repeat('9', 39))`, `more than a DECIMAL's 38`},
		{`to_number(s, s)`, `constant format`},
	} {
		_, err := BindValue(mustParse(t, c.e), rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	for e, want := range map[string]string{`to_number(s, '$99,999.00S')`: "DECIMAL(7,2)", `to_number(s, NULL)`: "DECIMAL(10,0)", `to_number(s, '9D9MI')`: "DECIMAL(2,1)"} {
		if b, err := BindValue(mustParse(t, e), rels); err != nil || !strings.EqualFold(typeName(b.Type()), want) {
			t.Errorf("%s: %v, want %s", e, err, want)
		}
	}
	rowsAre(t, rels, rec, []struct{ e, want string }{
		{`to_number(s, '99')`, `12|ERR|NULL`},
		{`try_to_number(s, '99')`, `12|NULL|NULL`},
		{`to_number(s, '9')`, `ERR|ERR|NULL`},
		{`try_to_number(s, '.99')`, `ERR|NULL|NULL`},
	})
}
