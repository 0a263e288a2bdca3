package expr

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// likeMatcher is a compiled LIKE pattern: segments of literal characters
// and '_' separated by '%'. Matching places each segment at its leftmost
// possible position, which is exact because segments have fixed lengths.
type likeMatcher struct {
	segs    []likeSeg
	leading bool // pattern starts with '%'
	trail   bool // pattern ends with '%'
	fold    bool
}

// likeSeg is a run of pattern elements between '%' signs: literal text
// with '_' positions marked in any.
type likeSeg struct {
	runes []rune
	any   []bool // any[i]: runes[i] is '_'
	plain string // the text when no '_' is present
	wild  bool
}

// compileLike parses a pattern with Spark's rules: escape may precede only
// '_', '%' or itself, and may not end the pattern.
func compileLike(pattern string, esc rune, fold bool) (*likeMatcher, error) {
	m := &likeMatcher{fold: fold}
	lit := func(r rune) rune {
		if fold {
			return unicode.ToLower(r)
		}
		return r
	}
	cur := likeSeg{}
	flush := func() {
		if !cur.wild {
			cur.plain = string(cur.runes)
		}
		m.segs = append(m.segs, cur)
		cur = likeSeg{}
	}
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == esc:
			if i+1 >= len(rs) {
				return nil, fmt.Errorf("LIKE pattern %s ends with the escape character", quoteString(pattern))
			}
			n := rs[i+1]
			if n != '_' && n != '%' && n != esc {
				return nil, fmt.Errorf("LIKE pattern %s: the escape character may not precede %q", quoteString(pattern), n)
			}
			cur.runes = append(cur.runes, lit(n))
			cur.any = append(cur.any, false)
			i++
		case r == '%':
			if i == 0 {
				m.leading = true
			}
			if i == len(rs)-1 {
				m.trail = true
			}
			flush()
		case r == '_':
			cur.runes = append(cur.runes, r)
			cur.any = append(cur.any, true)
			cur.wild = true
		default:
			cur.runes = append(cur.runes, lit(r))
			cur.any = append(cur.any, false)
		}
	}
	flush()
	return m, nil
}

// prefix is the literal text every match starts with, for file skipping.
func (m *likeMatcher) prefix() string {
	if m.fold || m.leading || len(m.segs) == 0 {
		return ""
	}
	var sb strings.Builder
	for i, r := range m.segs[0].runes {
		if m.segs[0].any[i] {
			break
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// exact reports whether the pattern has no wildcard, returning its text.
func (m *likeMatcher) exact() (string, bool) {
	if len(m.segs) == 1 && !m.segs[0].wild && !m.fold {
		return m.segs[0].plain, true
	}
	return "", false
}

func (m *likeMatcher) match(s string) bool {
	if m.fold {
		s = strings.ToLower(s)
	}
	segs := m.segs
	if len(segs) == 1 {
		end, ok := segs[0].matchAt(s, 0)
		return ok && end == len(s)
	}
	// First segment anchored at the start, last at the end.
	pos, ok := segs[0].matchAt(s, 0)
	if !ok {
		return false
	}
	last := segs[len(segs)-1]
	for _, seg := range segs[1 : len(segs)-1] {
		_, end, found := seg.find(s, pos)
		if !found {
			return false
		}
		pos = end
	}
	start, ok := last.matchSuffix(s)
	return ok && start >= pos
}

// matchAt matches the segment at byte offset i, returning the end offset.
func (g *likeSeg) matchAt(s string, i int) (int, bool) {
	if !g.wild {
		if strings.HasPrefix(s[i:], g.plain) {
			return i + len(g.plain), true
		}
		return 0, false
	}
	for k, r := range g.runes {
		if i >= len(s) {
			return 0, false
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if !g.any[k] && c != r {
			return 0, false
		}
		i += size
	}
	return i, true
}

// matchSuffix matches the segment at the end of s, returning its start.
func (g *likeSeg) matchSuffix(s string) (int, bool) {
	if !g.wild {
		if strings.HasSuffix(s, g.plain) {
			return len(s) - len(g.plain), true
		}
		return 0, false
	}
	i := len(s)
	for k := len(g.runes) - 1; k >= 0; k-- {
		if i <= 0 {
			return 0, false
		}
		c, size := utf8.DecodeLastRuneInString(s[:i])
		if !g.any[k] && c != g.runes[k] {
			return 0, false
		}
		i -= size
	}
	return i, true
}

// find locates the leftmost match of the segment at or after byte offset
// from.
func (g *likeSeg) find(s string, from int) (at, end int, ok bool) {
	if !g.wild {
		k := strings.Index(s[from:], g.plain)
		if k < 0 {
			return 0, 0, false
		}
		return from + k, from + k + len(g.plain), true
	}
	for i := from; i <= len(s); {
		if e, ok := g.matchAt(s, i); ok {
			return i, e, true
		}
		if i == len(s) {
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return 0, 0, false
}
