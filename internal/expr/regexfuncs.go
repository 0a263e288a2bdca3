package expr

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// The regular expression functions of Spark 4 (rlike / regexp_like /
// regexp, regexp_extract, regexp_replace, regexp_count, regexp_substr,
// regexp_instr, regexp_extract_all, split) over a constant java.util.regex pattern (javaregex.go),
// searching as Java's Matcher.find does: an empty match may follow a
// match at its end, positions count UTF-16 units, and a group index or a
// replacement Java refuses fails the row that finds a match, as Spark's
// ANSI mode fails it.

// regexFuncs are the functions of this file (their arities are in
// functions).
var regexFuncs = map[string]bool{"rlike": true, "regexp_like": true, "regexp": true, "regexp_extract": true,
	"regexp_replace": true, "regexp_count": true, "regexp_substr": true, "regexp_instr": true, "split": true,
	"regexp_extract_all": true, "str_to_map": true}

// regexCall is what a bound regular expression function keeps beside its
// arguments: the compiled pattern and, for regexp_replace, the read
// replacement (or why Java refuses it) and the start position.
type regexCall struct {
	re      *javaRegex
	kv      *javaRegex // str_to_map's key-value delimiter
	urlPart string     // parse_url's part (re its key's pattern)
	repl    []replPart
	replErr string
	pos     int // 1-based, in UTF-16 units
}

// replPart is a piece of a replacement: literal text, or group g >= 0.
type replPart struct {
	text  string
	group int
}

// bindRegexFunc binds the functions of this file.
func (b *binder) bindRegexFunc(e *Call) (node, error) {
	name := e.Name
	if name == "regexp_like" || name == "regexp" {
		name = "rlike"
	}
	if name == "str_to_map" {
		return b.bindStrToMap(e)
	}
	t := map[string]schema.Type{"rlike": tBool, "regexp_count": tInt, "regexp_instr": tInt,
		"split": &schema.Array{Element: tString}, "regexp_extract_all": &schema.Array{Element: tString}}[name]
	if t == nil {
		t = tString
	}
	s, err := b.stringOperand(e.Args[0])
	if err != nil {
		return nil, err
	}
	pat, err := b.constString(e, e.Args[1], "pattern")
	if err != nil {
		return nil, err
	}
	rc := &regexCall{pos: 1}
	args := []node{s}
	if pat == nil {
		return &lit{v: nil, t: t, src: e}, nil
	}
	if rc.re, err = compileJavaRegex(*pat); err != nil {
		je := err.(*javaRegexError)
		return nil, errAt(e.Args[1], "%s: the pattern %q is refused at offset %d: %s", e.Name, *pat, je.at, je.msg)
	}
	switch name {
	case "split":
		var limit node = &lit{v: int32(-1), t: tInt, src: &Literal{Kind: LitNumber, Text: "-1"}}
		if len(e.Args) == 3 {
			if limit, err = b.intOperand(e, e.Args[2]); err != nil {
				return nil, err
			}
		}
		args = append(args, limit)
	case "regexp_extract", "regexp_instr", "regexp_extract_all":
		var idx node = &lit{v: int32(1), t: tInt, src: &Literal{Kind: LitNumber, Text: "1"}}
		if name == "regexp_instr" {
			idx = &lit{v: int32(0), t: tInt, src: &Literal{Kind: LitNumber, Text: "0"}}
		}
		if len(e.Args) == 3 {
			if idx, err = b.intOperand(e, e.Args[2]); err != nil {
				return nil, err
			}
		}
		args = append(args, idx)
	case "regexp_replace":
		r, err := b.constString(e, e.Args[2], "replacement")
		if err != nil {
			return nil, err
		}
		if r == nil {
			return &lit{v: nil, t: t, src: e}, nil
		}
		if strings.Contains(*r, "${") {
			return nil, errAt(e.Args[2], "%s: the replacement %q holds '${', which Spark substitutes in SQL text as a variable before the function sees it; not supported", e.Name, *r)
		}
		rc.repl, rc.replErr = javaReplacement(*r, rc.re)
		if len(e.Args) == 4 {
			p, err := b.intOperand(e, e.Args[3])
			if err != nil {
				return nil, err
			}
			l, ok := p.(*lit)
			if !ok {
				return nil, errAt(e.Args[3], "%s takes a constant position, not %s", e.Name, e.Args[3])
			}
			if l.v == nil {
				return &lit{v: nil, t: t, src: e}, nil
			}
			if rc.pos = int(l.v.(int32)); rc.pos <= 0 {
				return nil, errAt(e.Args[3], "%s: the position must be between (0, 2147483647], not %d", e.Name, rc.pos)
			}
		}
	}
	return b.fold(&callN{fn: name, args: args, t: t, rx: rc}, e)
}

// constString binds argument a of fn, which must be a constant string
// (nil for NULL).
func (b *binder) constString(fn *Call, a Expr, what string) (*string, error) {
	n, err := b.stringOperand(a)
	if err != nil {
		return nil, err
	}
	l, ok := n.(*lit)
	if !ok {
		return nil, errAt(a, "%s takes a constant %s, not %s", fn.Name, what, a)
	}
	if l.v == nil {
		return nil, nil
	}
	s := l.v.(string)
	return &s, nil
}

// javaReplacement reads a replacement as Java's Matcher.appendReplacement
// does: \c is c, $n the group n (more digits taken while the number stays
// a group), ${name} a named group. What Java refuses comes back as the
// reason, raised when a row has a match.
func javaReplacement(r string, re *javaRegex) ([]replPart, string) {
	var parts []replPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, replPart{text: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(r); {
		c := r[i]
		switch c {
		case '\\':
			if i+1 >= len(r) {
				return nil, "character to be escaped is missing"
			}
			_, w := utf8.DecodeRuneInString(r[i+1:])
			lit.WriteString(r[i+1 : i+1+w])
			i += 1 + w
		case '$':
			i++
			if i >= len(r) {
				return nil, "Illegal group reference: group index is missing"
			}
			if r[i] == '{' { // refused at bind: Spark substitutes ${...}
				return nil, "named group references are not supported"
			}
			g := int(r[i]) - '0'
			if g < 0 || g > 9 {
				return nil, "Illegal group reference"
			}
			i++
			for i < len(r) && r[i] >= '0' && r[i] <= '9' {
				ng := g*10 + int(r[i]-'0')
				if ng > re.groups {
					break
				}
				g = ng
				i++
			}
			if g > re.groups {
				return nil, "No group " + strconv.Itoa(g)
			}
			flush()
			parts = append(parts, replPart{group: g})
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return parts, ""
}

// regexFunction evaluates the functions bindRegexFunc binds.
func (ev *evaluator) regexFunction(n *callN, args []value) (value, error) {
	rc := n.rx
	j := rc.re
	return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
		s := v[0].(string)
		start, anchor := 0, 0
		if n.fn == "regexp_replace" && rc.pos > 1 {
			p, ok := utf16Offset(s, rc.pos-1)
			switch {
			case !ok && (j.surrogate || j.empty):
				return nil, errs.New(errs.InvalidArgument, "", "%s(%q, %q): position %d falls inside a character beyond U+FFFF, where Java's search can match; not supported", n.fn, s, j.src, rc.pos)
			case !ok:
				// Java starts at the pair's second half, where nothing of
				// this pattern matches, not even ^.
				start, anchor = p, -1
			case p >= len(s):
				return s, nil
			default:
				start, anchor = p, p
			}
		}
		if n.fn == "str_to_map" {
			return strToMap(n, rc, s)
		}
		find, each, searchErr, err := javaSearch(n.fn, j, s, start, anchor)
		if err != nil {
			return nil, err
		}
		out, err := regexRow(n, rc, s, start, v, find, each)
		if *searchErr != nil {
			return nil, *searchErr
		}
		return out, err
	})
}

// javaSearch searches s with j from byte offset start (^ matching at
// anchor) as Java's Matcher.find does: find is the match at or after an
// offset, each calls f with every match; a search RE2 cannot follow (one
// Java would run inside a UTF-16 pair) stops, leaving its error in
// *searchErr; a text ending in a line terminator under $ is refused.
func javaSearch(fn string, j *javaRegex, s string, start, anchor int) (func(int) []int, func(func([]int)), *error, error) {
	if j.dollar {
		for _, t := range []string{"\r\n", "\n", "\r", "\u0085", "\u2028", "\u2029"} {
			if strings.HasSuffix(s, t) {
				return nil, nil, nil, errs.New(errs.InvalidArgument, "", "%s(%q, %q): the text ends with a line terminator, before which Java's $ also matches; not supported", fn, s, j.src)
			}
		}
	}
	if j.lines && strings.ContainsAny(s, "\r\u0085\u2028\u2029") || j.lineStart && strings.HasSuffix(s, "\n") {
		return nil, nil, nil, errs.New(errs.InvalidArgument, "", "%s(%q, %q): under (?m) the text has a line terminator other than \\n, or ends with one (after which Java's ^ does not match), where Java's lines differ from this engine's; not supported", fn, s, j.src)
	}
	if j.ascii {
		for _, r := range s {
			if r >= utf8.RuneSelf {
				return nil, nil, nil, errs.New(errs.InvalidArgument, "", "%s(%q, %q): the text goes beyond ASCII, where Java's \\b reads letters and digits by the JVM's Unicode tables; not supported", fn, s, j.src)
			}
		}
	}
	splitErr := new(error)
	find := func(from int) []int {
		m, ok := j.find(s, from, anchor)
		if !ok {
			*splitErr = errs.New(errs.InvalidArgument, "", "%s(%q, %q): the search passes a character beyond U+FFFF, inside whose UTF-16 pair Java's search can match this pattern; not supported", fn, s, j.src)
			return nil
		}
		return m
	}
	each := func(f func(m []int)) {
		for from := start; from <= len(s); {
			m := find(from)
			if m == nil {
				return
			}
			f(m)
			from = m[1]
			if m[0] == m[1] {
				if from >= len(s) {
					return
				}
				r, w := utf8.DecodeRuneInString(s[from:])
				if r > 0xFFFF {
					*splitErr = errs.New(errs.InvalidArgument, "", "%s(%q, %q): an empty match before a character beyond U+FFFF, whose UTF-16 pair Java's search enters next; not supported", fn, s, j.src)
					return
				}
				from += w
			}
		}
	}
	return find, each, splitErr, nil
}

// tStrMap is the type of str_to_map.
var tStrMap = &schema.Map{Key: tString, Value: tString, ValueContainsNull: true}

// bindStrToMap binds str_to_map(text[, pairDelim[, keyValueDelim]]): the
// delimiters are constant java.util.regex patterns (',' and ':' by
// default), as Spark requires them.
func (b *binder) bindStrToMap(e *Call) (node, error) {
	s, err := b.stringOperand(e.Args[0])
	if err != nil {
		return nil, err
	}
	rc := &regexCall{pos: 1}
	for i, def := range []string{",", ":"} {
		pat := &def
		if len(e.Args) > i+1 {
			if pat, err = b.constString(e, e.Args[i+1], "delimiter"); err != nil {
				return nil, err
			}
			if pat == nil {
				return &lit{v: nil, t: tStrMap, src: e}, nil
			}
		}
		re, err := compileJavaRegex(*pat)
		if err != nil {
			je := err.(*javaRegexError)
			return nil, errAt(e, "%s: the delimiter %q is refused at offset %d: %s", e.Name, *pat, je.at, je.msg)
		}
		if i == 0 {
			rc.re = re
		} else {
			rc.kv = re
		}
	}
	// Not folded: a map is no constant this package holds; it is
	// computed on each batch.
	return &callN{fn: e.Name, args: []node{s}, t: tStrMap, rx: rc}, nil
}

// strMap is a map value: its keys and values in order.
type strMap struct{ keys, vals []any }

// strToMap is Spark's StringToMap of s: s split at every pair delimiter
// (trailing empty parts kept), each part split at its first key-value
// delimiter, a part without one a key with a NULL value; a key given
// twice fails the row, as spark.sql.mapKeyDedupPolicy=EXCEPTION does.
func strToMap(n *callN, rc *regexCall, s string) (any, error) {
	pairs, err := javaSplitText(n.fn, rc.re, s, -1)
	if err != nil {
		return nil, err
	}
	m := &strMap{}
	seen := map[string]bool{}
	for _, p := range pairs {
		kv, err := javaSplitText(n.fn, rc.kv, p.(string), 2)
		if err != nil {
			return nil, err
		}
		key := kv[0].(string)
		if seen[key] {
			return nil, errs.New(errs.InvalidArgument, "", "%s(%q): duplicate map key %q (Spark's default spark.sql.mapKeyDedupPolicy=EXCEPTION fails it)", n.fn, s, key)
		}
		seen[key] = true
		var val any
		if len(kv) == 2 {
			val = kv[1]
		}
		m.keys, m.vals = append(m.keys, key), append(m.vals, val)
	}
	return m, nil
}

// javaSplitText is s split at j as UTF8String.split(j, limit) does.
func javaSplitText(fn string, j *javaRegex, s string, limit int) ([]any, error) {
	_, each, searchErr, err := javaSearch(fn, j, s, 0, 0)
	if err != nil {
		return nil, err
	}
	parts := javaSplit(s, j.src, limit, each)
	if *searchErr != nil {
		return nil, *searchErr
	}
	return parts, nil
}

// regexRow computes function n of text s (v its arguments) with find, the
// match at or after an offset, and each, every match of the search.
func regexRow(n *callN, rc *regexCall, s string, start int, v []any, find func(int) []int, each func(func([]int))) (any, error) {
	j := rc.re
	switch n.fn {
	case "rlike":
		return find(start) != nil, nil
	case "regexp_extract", "regexp_substr", "regexp_instr":
		m := find(start)
		switch {
		case m == nil && n.fn == "regexp_instr":
			return int32(0), nil
		case n.fn == "regexp_instr":
			return int32(utf16Len(s[:m[0]]) + 1), nil
		case m == nil && n.fn == "regexp_substr":
			return nil, nil
		case m == nil:
			return "", nil
		case n.fn == "regexp_substr":
			if m[0] == m[1] {
				return nil, nil
			}
			return s[m[0]:m[1]], nil
		}
		return extractGroup(n, s, j, m, int(v[1].(int32)))
	case "regexp_extract_all":
		// Every match's group, "" where an optional group took no part;
		// the index is checked at the first match, as Spark checks it.
		out := []any{}
		var err error
		each(func(m []int) {
			if err == nil {
				var g any
				g, err = extractGroup(n, s, j, m, int(v[1].(int32)))
				out = append(out, g)
			}
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	case "regexp_count":
		k := int32(0)
		each(func([]int) { k++ })
		return k, nil
	case "split":
		return javaSplit(s, j.src, int(v[1].(int32)), each), nil
	}
	// regexp_replace
	var sb strings.Builder
	last := 0
	var err error
	each(func(m []int) {
		if rc.replErr != "" && err == nil {
			err = errs.New(errs.InvalidArgument, "", "%s(%q, %q): the replacement cannot be applied: %s", n.fn, s, j.src, rc.replErr)
		}
		sb.WriteString(s[last:m[0]])
		for _, p := range rc.repl {
			switch {
			case p.group < 0:
				sb.WriteString(p.text)
			case m[2*p.group] >= 0:
				sb.WriteString(s[m[2*p.group]:m[2*p.group+1]])
			}
		}
		last = m[1]
	})
	if err != nil {
		return nil, err
	}
	sb.WriteString(s[last:])
	return sb.String(), nil
}

// extractGroup is group g of match m of s, as regexp_extract and
// regexp_extract_all take it: "" for a group that took no part, an index
// beyond the pattern's groups failing the row.
func extractGroup(n *callN, s string, j *javaRegex, m []int, g int) (any, error) {
	if g < 0 || g > j.groups {
		return nil, errs.New(errs.InvalidArgument, "", "%s(%q, %q, %d): expects group index between 0 and %d, but got %d", n.fn, s, j.src, g, j.groups, g)
	}
	if m[2*g] < 0 {
		return "", nil
	}
	return s[m[2*g]:m[2*g+1]], nil
}

// javaSplit is Spark's split: Java's Pattern.split with a limit of 0 read
// as -1 (trailing empty parts kept); at most limit parts when limit > 0,
// no empty first part for an empty match at the start. An empty pattern
// splits a text into its characters, as UTF8String.split does.
func javaSplit(s, pattern string, limit int, each func(func([]int))) []any {
	if pattern == "" && s != "" {
		n := utf8.RuneCountInString(s)
		if limit > n || limit <= 0 {
			limit = n
		}
		parts := make([]any, 0, limit)
		for len(parts) < limit-1 {
			_, w := utf8.DecodeRuneInString(s)
			parts = append(parts, s[:w])
			s = s[w:]
		}
		return append(parts, s)
	}
	if limit == 0 {
		limit = -1
	}
	var parts []any
	index, done := 0, false
	each(func(m []int) {
		switch {
		case done:
		case limit <= 0 || len(parts) < limit-1:
			if index == 0 && m[0] == 0 && m[1] == 0 {
				return
			}
			parts = append(parts, s[index:m[0]])
			index = m[1]
		default:
			parts = append(parts, s[index:])
			index, done = m[1], true
		}
	})
	if index == 0 {
		return []any{s}
	}
	if limit <= 0 || len(parts) < limit {
		parts = append(parts, s[index:])
	}
	return parts
}

// find is Java's Matcher.find from byte offset from, ^ matching at
// anchor: the submatch offsets in s, or nil; false when Java's search,
// trying every UTF-16 unit, could start inside a pair before the match.
func (j *javaRegex) find(s string, from, anchor int) ([]int, bool) {
	re, at := j.mid, from
	switch {
	case j.endRe != nil && from == len(s) && from == anchor:
		re = j.endRe
	case j.endRe != nil && from == len(s):
		re = j.endMid
	case from == anchor:
		re = j.re
	case j.context && from > 0:
		// mid matches one character more: the one before from, which
		// \b and a multi-line ^ read.
		_, w := utf8.DecodeLastRuneInString(s[:from])
		at = from - w
	}
	m := re.FindStringSubmatchIndex(s[at:])
	for i := range m {
		if m[i] >= 0 {
			m[i] += at
		}
	}
	if m != nil && at != from {
		_, w := utf8.DecodeRuneInString(s[m[0]:])
		m[0] += w
	}
	if j.lone {
		end := len(s)
		if m != nil {
			end = m[0]
		}
		for _, r := range s[from:end] {
			if r > 0xFFFF {
				return nil, false
			}
		}
	}
	return m, true
}

// utf16Len is the length of s in UTF-16 units, Java's String.length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// utf16Offset is the byte offset of UTF-16 unit k of s (len(s) past the
// end); false when k falls inside a surrogate pair, with the offset of
// the character after the pair.
func utf16Offset(s string, k int) (int, bool) {
	u := 0
	for i, r := range s {
		if u == k {
			return i, true
		}
		if u > k {
			return i, false
		}
		u += utf16.RuneLen(r)
	}
	return len(s), u <= k
}
