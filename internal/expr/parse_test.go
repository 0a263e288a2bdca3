package expr

import (
	"errors"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

func TestParseCanonical(t *testing.T) {
	cases := []struct{ in, want string }{
		{`day = "2026-01-01"`, `day = '2026-01-01'`},
		{`a == 1`, `a = 1`},
		{`a <> 1 or b != 2`, `a != 1 OR b != 2`},
		{`a <=> b`, `a <=> b`},
		{`a < 1 AND b <= 2 AND c > 3 AND d >= 4`, `a < 1 AND b <= 2 AND c > 3 AND d >= 4`},
		{`a OR b AND c`, `a OR b AND c`},
		{`(a OR b) AND c`, `(a OR b) AND c`},
		{`NOT a = 1`, `NOT a = 1`},
		{`not (a and b)`, `NOT (a AND b)`},
		{`!a`, `NOT a`},
		{`NOT NOT a`, `NOT NOT a`},
		{`x IN (1, 2, 3)`, `x IN (1, 2, 3)`},
		{`x not in ('a','b')`, `x NOT IN ('a', 'b')`},
		{`x BETWEEN 1 AND 10 AND y`, `x BETWEEN 1 AND 10 AND y`},
		{`x NOT BETWEEN a + 1 AND b * 2`, `x NOT BETWEEN a + 1 AND b * 2`},
		{`x IS NULL`, `x IS NULL`},
		{`x is not null`, `x IS NOT NULL`},
		{`x IS UNKNOWN`, `x IS NULL`},
		{`flag IS TRUE OR flag IS NOT FALSE`, `flag IS TRUE OR flag IS NOT FALSE`},
		{`a IS DISTINCT FROM b`, `NOT a <=> b`},
		{`a IS NOT DISTINCT FROM b`, `a <=> b`},
		{`name LIKE 'a%'`, `name LIKE 'a%'`},
		{`name NOT LIKE 'a\_%' ESCAPE '\\'`, `name NOT LIKE 'a\\_%' ESCAPE '\\'`},
		{`name like 'a!%' escape '!'`, `name LIKE 'a!%' ESCAPE '!'`},
		{`name ILIKE 'A%'`, `name ILIKE 'A%'`},
		{`a + b * c - d / e % f`, `a + b * c - d / e % f`},
		{`(a + b) * c`, `(a + b) * c`},
		{`a - (b - c)`, `a - (b - c)`},
		{`a - b - c`, `a - b - c`},
		{`-a + -1`, `-a + -1`},
		{`- -a`, `-(-a)`},
		{`a DIV 2`, `a DIV 2`},
		{`a || b`, `a || b`},
		{`1e3 = 1000.0 AND 10L = 10S AND 1Y = 1.5BD AND 2D = 2F`, `1e3 = 1000.0 AND 10L = 10S AND 1Y = 1.5BD AND 2D = 2F`},
		{`.5 = 0.5`, `0.5 = 0.5`},
		{`NOT .5 = x`, `NOT 0.5 = x`},
		{`a IN (.5)`, `a IN (0.5)`},
		{`'it\'s' = "say \"hi\""`, `'it\'s' = 'say "hi"'`},
		{`'a' 'b' = 'ab'`, `'ab' = 'ab'`},
		{`'o''x' = "say ""hi""" AND '''' = '' AND 'a' '''b' = x`, `'o\'x' = 'say "hi"' AND '\'' = '' AND 'a\'b' = x`},
		{`'tab\there\n' = x`, `'tab\there\n' = x`},
		{`'\u0041\101' = 'AA'`, `'AA' = 'AA'`},
		{`TRUE AND false OR NULL`, `TRUE AND FALSE OR NULL`},
		{`d = DATE '2026-01-01'`, `d = DATE '2026-01-01'`},
		{`t < TIMESTAMP '2026-01-01 00:00:00' AND u = TIMESTAMP_NTZ '2026-01-01'`, `t < TIMESTAMP '2026-01-01 00:00:00' AND u = TIMESTAMP_NTZ '2026-01-01'`},
		{`CAST(x AS DECIMAL(10,2)) > 1`, `CAST(x AS DECIMAL(10,2)) > 1`},
		{`cast(x as bigint) = x::int`, `CAST(x AS BIGINT) = CAST(x AS INT)`},
		{`CAST(x AS varchar(10)) = 'a'`, `CAST(x AS STRING) = 'a'`},
		{"`my col` = 1", "`my col` = 1"},
		{"`a``b` = 1", "`a``b` = 1"},
		{"`select` = 1", "`select` = 1"},
		{"`not`.x = 1", "`not`.x = 1"},
		{`s.id = t.id AND source.x > target.x`, `s.id = t.id AND source.x > target.x`},
		{"a.b.`c d` = 1", "a.b.`c d` = 1"},
		{`Lower(Name) = 'x'`, `lower(Name) = 'x'`},
		{`coalesce(a, b, 0) = 1`, `coalesce(a, b, 0) = 1`},
		{`substring(s FROM 2 FOR 3) = 'abc'`, `substring(s, 2, 3) = 'abc'`},
		{`date = '2026-01-01' AND timestamp > 5`, `date = '2026-01-01' AND timestamp > 5`},
		{`date(ts) = year`, `date(ts) = year`},
		{`X'0aFF' = b`, `X'0AFF' = b`},
		{`a = 1 -- trailing comment`, `a = 1`},
		{`a /* inline */ = 1`, `a = 1`},
		{`(a = b) = c`, `a = b = c`},
		{`a = (b = c)`, `a = (b = c)`},
		{`a = b IS NULL`, `a = b IS NULL`},
		{`(a IS NULL) = b`, `(a IS NULL) = b`},
		{`a IN (b IN (1), c)`, `a IN (b IN (1), c)`},
		{`é = 1`, "`é` = 1"},
		{`case when a then 1 end = 1`, `CASE WHEN a THEN 1 END = 1`},
		{`CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE NULL END`, `CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE NULL END`},
		{`CASE WHEN a THEN CASE WHEN b THEN 1 END END + 1`, `CASE WHEN a THEN CASE WHEN b THEN 1 END END + 1`},
		{`-CASE WHEN a OR b THEN x + 1 ELSE y END`, `-CASE WHEN a OR b THEN x + 1 ELSE y END`},
		{`end = 1 AND then IS NULL`, "`end` = 1 AND `then` IS NULL"},
		{"CASE WHEN `end` THEN `else` END", "CASE WHEN `end` THEN `else` END"},
		{`IF(a, 1, 2) = NullIf(b, 3)`, `if(a, 1, 2) = nullif(b, 3)`},
	}
	for _, c := range cases {
		e, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := e.String(); got != c.want {
			t.Errorf("Parse(%q) = %s, want %s", c.in, got, c.want)
			continue
		}
		// The canonical text is a fixed point.
		e2, err := Parse(c.want)
		if err != nil {
			t.Errorf("reparse %q: %v", c.want, err)
		} else if e2.String() != c.want {
			t.Errorf("reparse %q = %s", c.want, e2)
		}
	}
}

func TestParseShape(t *testing.T) {
	e, err := Parse("s.id = t.id AND a.b.c > 1")
	if err != nil {
		t.Fatal(err)
	}
	and := e.(*Binary)
	eq := and.L.(*Binary)
	if got := eq.L.(*Column).Parts; strings.Join(got, "|") != "s|id" {
		t.Errorf("qualifier lost: %v", got)
	}
	if got := and.R.(*Binary).L.(*Column).Parts; strings.Join(got, "|") != "a|b|c" {
		t.Errorf("nested path: %v", got)
	}
	if and.R.Pos() != 16 {
		t.Errorf("position of a.b.c > 1 = %d, want 16", and.R.Pos())
	}
	l := mustParse(t, `x LIKE 'a%' ESCAPE '#'`).(*Like)
	if l.Escape != '#' || l.Not || l.Fold {
		t.Errorf("like = %+v", l)
	}
}

func mustParse(t *testing.T, s string) Expr {
	t.Helper()
	e, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return e
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in   string
		col  int
		want string
	}{
		{``, 1, "expected an expression, found end of input"},
		{`a = (1 + 2`, 11, "expected ')', found end of input"},
		{`a = 1)`, 6, "unexpected ')' after the end of the expression"},
		{`a IN (1, 2`, 11, "expected ',' or ')' in the IN list"},
		{`a IN 1`, 6, "expected '('"},
		{`a BETWEEN 1 OR 2`, 13, "expected AND"},
		{`a IS 5`, 6, "expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM"},
		{`a = 'abc`, 5, "unterminated string"},
		{"`abc = 1", 1, "unterminated quoted identifier"},
		{`a = 12abc`, 5, "invalid number"},
		{`a = #`, 5, "unexpected character '#'"},
		{`a AND`, 6, "expected an expression"},
		{`a = b.`, 7, "expected a field name after '.'"},
		{`CAST(a AS blob)`, 11, "unknown or unsupported type"},
		{`CAST(a AS DECIMAL(40,2))`, 11, "invalid DECIMAL(40,2)"},
		{`CAST(a int)`, 8, "expected AS"},
		{`a LIKE ALL ()`, 13, "expected an expression"},
		{`a IN (SELECT 1)`, 7, "IN with a subquery is not supported"},
		{`CASE END`, 6, `expected WHEN, found "END"`},
		{`CASE x END`, 8, `expected WHEN, found "END"`},
		{`CASE WHEN a 1 END`, 13, "expected THEN, found number 1"},
		{`CASE WHEN a THEN 1`, 19, "expected END, found end of input"},
		{`CASE x WHEN 1 THEN 2 ELSE 3 ELSE 4 END`, 29, `expected END, found "ELSE"`},
		{`CASE WHEN a THEN END`, 18, `expected an expression, found "END"`},
		{`CASE WHEN a THEN (b END`, 21, `expected ')', found "END"`},
		{`a LIKE 'x' ESCAPE 'ab'`, 19, "ESCAPE takes a string of one character"},
		{`a = /* open`, 5, "unterminated comment"},
		{`héllo = 'x' AND (`, 18, "expected an expression"},
		{`f(a,`, 5, "expected an expression"},
		{`x = X'0G'`, 5, "invalid hexadecimal binary literal"},
		{`'\u00' = a`, 2, "invalid \\u escape"},
		{strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), 257, "nested too deeply"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded", c.in)
			continue
		}
		if !errors.Is(err, errs.ErrInvalidArgument) {
			t.Errorf("Parse(%q): error kind %v", c.in, err)
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q): no SyntaxError in %v", c.in, err)
			continue
		}
		if se.Column != c.col || !strings.Contains(se.Msg, c.want) {
			t.Errorf("Parse(%q) = column %d %q, want column %d %q", c.in, se.Column, se.Msg, c.col, c.want)
		}
		if !strings.Contains(err.Error(), "at column ") {
			t.Errorf("message %q does not say where", err)
		}
	}
}
