package expr

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// decimalPatterns are DecimalFormat patterns format_number takes:
// grouping of other sizes, optional and required digits, percent,
// negative subpatterns, quoted and unquoted literal text.
var decimalPatterns = []string{
	"", "#,##0.00", "#,##0.###", "0.###", "#.##", "##.0#", ".##", "0", "#", "00000", "#,#0", ",##0", "#,##,##0.0", "0.00%", "#%",
	"0%;(0)%", "$#,##0.00;($#,##0.00)", "'#'0", "0 'units'", "0''s", "#,##0.00 €", "0.", "1#", "0;", "0;x#y", "###0.##########",
}

// Spark 4 formats with a DecimalFormat pattern as this package does, for
// integers, decimals and doubles (dbl, the text as a DOUBLE).
func TestFormatNumberPatternsAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	texts := []*string{sp("0.125"), sp("2.675"), sp("-1234567.891"), sp("0.5"), sp("-2.5"), sp("1.005"), sp("-0.0"), sp("0"), sp("1e-5"),
		sp("-0.0001"), sp("123456.789"), sp("NaN"), sp("Infinity"), sp("-Infinity"), nil, sp("9.995"), sp("0.3333333333333333"), sp("1e13")}
	sc, rec, vals := regexBatch(t, texts)
	var exprs []string
	for _, p := range decimalPatterns {
		q := strings.ReplaceAll(p, "'", "''")
		exprs = append(exprs, "format_number(CAST(s AS DOUBLE), '"+q+"')",
			"format_number(n * 123457 - 1000000, '"+q+"')",
			"format_number(CAST(n - 9 AS DECIMAL(10, 0)) / 8, '"+q+"')")
	}
	// A pattern a column gives, read on each row.
	exprs = append(exprs, "format_number(n * 1234.5, if(n % 3 = 0, '#,##0.0#', concat('0.', repeat('0', n % 4), '%')))")
	sparkAgrees(t, s, sc, rec, exprs, vals, "n, s")
}

// A pattern DecimalFormat refuses, or that this engine does not format,
// is refused when bound, naming the part.
func TestFormatNumberPatternRefusals(t *testing.T) {
	sc, rec, _ := regexBatch(t, []*string{sp("0"), sp(".")})
	rels := map[string]*schema.Struct{"": sc}
	rowsAre(t, rels, rec, []struct{ e, want string }{{`format_number(1.5, concat('0.', s, '#'))`, `1.5|ERR`}, {`format_number(1.5, s)`, `2|ERR`}})
	for _, c := range []struct{ e, want string }{
		{`format_number(1, '0,')`, `malformed`},
		{`format_number(1, '0.#0')`, `malformed`},
		{`format_number(1, '0..0')`, `malformed`},
		{`format_number(1, '#0#')`, `malformed`},
		{`format_number(1, '0,.0')`, `malformed`},
		{`format_number(1, '0.0E0')`, `exponent (E)`},
		{`format_number(1, '0‰')`, `the sign '‰'`},
		{`format_number(1, '¤0')`, `the sign '¤'`},
		{`format_number(1, '0 0')`, `after its number part`},
		{`format_number(1, '0;1;2')`, `more than one ';'`},
		{`format_number(1, '''0')`, `unterminated quote`},
		{`format_number(1e15D, '0%')`, `2^53 or more`},
	} {
		_, err := BindValue(mustParse(t, c.e), rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
}
