package expr

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// likeRegexp is an independent reference: the pattern as an anchored
// regular expression.
func likeRegexp(pattern string, esc rune) *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString(`(?s)^`)
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == esc:
			i++
			sb.WriteString(regexp.QuoteMeta(string(rs[i])))
		case r == '%':
			sb.WriteString(`.*`)
		case r == '_':
			sb.WriteString(`.`)
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	sb.WriteString(`$`)
	return regexp.MustCompile(sb.String())
}

func TestLikeAgainstRegexp(t *testing.T) {
	alphabet := []rune{'a', 'b', 'é', '日', '%', '_', '\\'}
	rnd := rand.New(rand.NewPCG(1, 2))
	randString := func(n int, pattern bool) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			r := alphabet[rnd.IntN(len(alphabet))]
			if pattern && r == '\\' {
				// keep escapes valid: escape a wildcard or itself
				sb.WriteRune('\\')
				r = []rune{'%', '_', '\\'}[rnd.IntN(3)]
			}
			sb.WriteRune(r)
		}
		return sb.String()
	}
	for k := 0; k < 3000; k++ {
		pat := randString(rnd.IntN(7), true)
		m, err := compileLike(pat, '\\', false)
		if err != nil {
			t.Fatalf("compile %q: %v", pat, err)
		}
		re := likeRegexp(pat, '\\')
		for j := 0; j < 20; j++ {
			s := randString(rnd.IntN(8), false)
			if got, want := m.match(s), re.MatchString(s); got != want {
				t.Fatalf("%q LIKE %q = %v, want %v", s, pat, got, want)
			}
		}
	}
}

func TestLikePrefix(t *testing.T) {
	for _, c := range []struct{ pat, prefix string }{
		{"abc%", "abc"}, {"ab_c%", "ab"}, {"%abc", ""}, {"a\\%b%", "a%b"}, {"abc", "abc"}, {"", ""},
	} {
		m, err := compileLike(c.pat, '\\', false)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.prefix(); got != c.prefix {
			t.Errorf("prefix(%q) = %q, want %q", c.pat, got, c.prefix)
		}
	}
}
