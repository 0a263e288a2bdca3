package expr

import (
	"strings"
	"testing"
)

func TestSplitAnd(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`a = 1`, []string{`a = 1`}},
		{`t.id = s.id AND t.day = '2026-01-02'`, []string{`t.id = s.id`, `t.day = '2026-01-02'`}},
		{`a AND (b AND c) AND ((d))`, []string{`a`, `b`, `c`, `d`}},
		{`(a AND b) AND (c AND d)`, []string{`a`, `b`, `c`, `d`}},
		{`a OR b AND c`, []string{`a OR b AND c`}},
		{`(a OR b) AND c`, []string{`a OR b`, `c`}},
		{`NOT (a AND b)`, []string{`NOT (a AND b)`}},
		{`x BETWEEN 1 AND 2 AND y`, []string{`x BETWEEN 1 AND 2`, `y`}},
		{`a = 1 AND (b OR c AND d)`, []string{`a = 1`, `b OR c AND d`}},
	}
	for _, c := range cases {
		parts := SplitAnd(mustParse(t, c.in))
		got := make([]string, len(parts))
		for i, p := range parts {
			got[i] = p.String()
		}
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("SplitAnd(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := SplitAnd(nil); got != nil {
		t.Errorf("SplitAnd(nil) = %v, want nil", got)
	}
}

func TestAnd(t *testing.T) {
	if And() != nil || And(nil, nil) != nil {
		t.Fatal("And of nothing must be nil")
	}
	a := mustParse(t, `a = 1`)
	if And(nil, a) != a {
		t.Fatal("And of one expression must be that expression")
	}
	cases := []struct{ in, want string }{
		{`a AND (b AND c)`, `a AND b AND c`},
		{`(a OR b) AND c`, `(a OR b) AND c`},
		{`a OR b`, `a OR b`},
		{`x BETWEEN 1 AND 2 AND NOT (y AND z)`, `x BETWEEN 1 AND 2 AND NOT (y AND z)`},
	}
	for _, c := range cases {
		joined := And(SplitAnd(mustParse(t, c.in))...)
		if got := joined.String(); got != c.want {
			t.Errorf("And(SplitAnd(%q)) = %q, want %q", c.in, got, c.want)
		}
		// The rendering parses back to the same conjuncts.
		if again := SplitAnd(mustParse(t, joined.String())); len(again) != len(SplitAnd(joined)) {
			t.Errorf("%q: %d conjuncts after a round trip, want %d", c.in, len(again), len(SplitAnd(joined)))
		}
	}
	// An OR conjunct keeps its parentheses when joined.
	e := And(mustParse(t, `a > 1`), mustParse(t, `a < 3 OR a IS NULL`))
	if got := e.String(); got != `a > 1 AND (a < 3 OR a IS NULL)` {
		t.Errorf("And rendered %q", got)
	}
	if e.Pos() != 0 {
		t.Errorf("And position %d, want the first conjunct's 0", e.Pos())
	}
}
