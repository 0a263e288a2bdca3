package expr

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Spark's regular expressions are java.util.regex patterns; this engine
// runs them on Go's RE2. A pattern is translated construct by construct
// into an RE2 one of the same meaning, and refused, naming the construct,
// when RE2 has none (backreferences, lookaround, possessive and atomic
// groups, class unions and intersections, the flags x, u, U, d, c) or when
// the meaning depends on the JVM (Unicode properties). Where Java's and
// RE2's spelling of one construct differ the translation spells Java's
// meaning: '.' stops at every Java line terminator (unless (?s)), \s
// includes \x0B, \p{Alpha} and the other POSIX names are ASCII, (?i)
// folds ASCII letters only, octal and \c escapes are read as Java reads
// them, \Q...\E quotes.
//
// Meanings no RE2 pattern has are refused on the row instead: Java's $
// (and \Z) also matches before a line terminator ending the text; under
// (?m) Java's lines also end at \r, \u0085, \u2028 and \u2029, and its ^
// does not match after a line terminator ending the text; Java's \b reads
// Unicode letters and digits as word characters (before Java 19; ASCII
// after), so a text beyond ASCII is refused under \b; and Java searches
// UTF-16 units, so after an empty match, or when a search passes a
// character beyond U+FFFF with a pattern that can take a lone surrogate
// (., a negated class), Java tries a match inside the pair. A search that
// goes on past a match sees the character before it, as Java's does, for
// \b and a multi-line ^.

// javaRegex is a translated pattern.
type javaRegex struct {
	src string         // the Java pattern
	re  *regexp.Regexp // for a search from the start of the text (or region)
	mid *regexp.Regexp // for a search from further on: ^ and \A never match
	// endRe and endMid are re and mid for a search at the end of the
	// text, where Java's multi-line ^ never matches; nil without one.
	endRe, endMid *regexp.Regexp
	// dollar: the pattern has $ or \Z; surrogate: it can take a lone
	// surrogate; lone: one where a search may start (not anchored at the
	// start); empty: it can match the empty string; lines: it has a
	// multi-line ^ or $; lineStart: a multi-line ^; ascii: it has \b or \B.
	dollar, surrogate, lone, empty, lines, lineStart, ascii bool
	// context: mid is mid's pattern after one character, which a search
	// from further on matches against the character before its start.
	context bool
	groups  int
}

// javaRegexError is why a pattern is refused.
type javaRegexError struct {
	at  int // the construct's offset in the pattern
	msg string
}

func (e *javaRegexError) Error() string { return e.msg }

// compileJavaRegex translates and compiles the Java pattern src.
func compileJavaRegex(src string) (*javaRegex, error) {
	t := &regexTranslator{src: []rune(src)}
	out, err := t.translate()
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(out)
	if err != nil {
		return nil, &javaRegexError{msg: fmt.Sprintf("not a pattern this engine runs: %v", err)}
	}
	mid := re
	var endRe, endMid *regexp.Regexp
	context := t.ascii || t.lineStart
	if t.start || context {
		mt := &regexTranslator{src: []rune(src), noStart: true}
		mo, _ := mt.translate()
		if context {
			mo = `(?s:.)(?:` + mo + `)`
		}
		if mid, err = regexp.Compile(mo); err != nil {
			return nil, &javaRegexError{msg: fmt.Sprintf("not a pattern this engine runs: %v", err)}
		}
	}
	if t.lineStart {
		for _, v := range []struct {
			noStart bool
			to      **regexp.Regexp
		}{{false, &endRe}, {true, &endMid}} {
			et := &regexTranslator{src: []rune(src), noStart: v.noStart, noLineStart: true}
			eo, _ := et.translate()
			if *v.to, err = regexp.Compile(eo); err != nil {
				return nil, &javaRegexError{msg: fmt.Sprintf("not a pattern this engine runs: %v", err)}
			}
		}
	}
	j := &javaRegex{src: src, re: re, mid: mid, endRe: endRe, endMid: endMid, dollar: t.dollar, surrogate: t.surrogate, empty: re.MatchString(""),
		lines: t.lines, lineStart: t.lineStart, ascii: t.ascii, context: context, groups: re.NumSubexp()}
	// A pattern anchored at the start is only tried there.
	j.lone = t.surrogate && !anchoredStart(out)
	return j, nil
}

// anchoredStart reports whether every match of the RE2 pattern p starts
// at the beginning of the text.
func anchoredStart(p string) bool {
	r, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return false
	}
	prog, err := syntax.Compile(r.Simplify())
	if err != nil {
		return false
	}
	return prog.StartCond()&syntax.EmptyBeginText != 0
}

// regexTranslator reads a Java pattern and writes the RE2 one.
type regexTranslator struct {
	src         []rune
	i           int
	out         strings.Builder
	noStart     bool // write ^ and \A as never matching
	noLineStart bool // write a multi-line ^ as never matching
	// what the pattern holds: ^ or \A; $ or \Z; a construct that takes a
	// lone surrogate (., a negated class, \D, \W, \S, \P); a multi-line ^
	// or $; a multi-line ^; \b or \B
	start, dollar, surrogate, lines, lineStart, ascii bool
	flags                                             regexFlags   // in force
	saved                                             []regexFlags // at each open group
}

// regexFlags are the embedded flags this engine follows.
type regexFlags struct{ fold, dotAll, multiLine bool }

func (t *regexTranslator) refuse(at int, format string, args ...any) error {
	return &javaRegexError{at: at, msg: fmt.Sprintf(format, args...)}
}

func (t *regexTranslator) peek(k int) rune {
	if t.i+k < len(t.src) {
		return t.src[t.i+k]
	}
	return -1
}

// lineTerminators are Java's, outside which '.' matches.
const javaDot = `[^\n\r\x{85}\x{2028}\x{2029}]`

func (t *regexTranslator) translate() (string, error) {
	for t.i < len(t.src) {
		at := t.i
		c := t.src[t.i]
		t.i++
		switch c {
		case '\\':
			if err := t.escape(at); err != nil {
				return "", err
			}
		case '[':
			if err := t.class(at); err != nil {
				return "", err
			}
		case '(':
			if err := t.group(at); err != nil {
				return "", err
			}
		case ')':
			if n := len(t.saved); n > 0 {
				t.flags, t.saved = t.saved[n-1], t.saved[:n-1]
			}
			t.out.WriteRune(c)
		case '|':
			t.out.WriteRune(c)
		case '.':
			t.surrogate = true
			if t.flags.dotAll {
				t.out.WriteString(`(?s:.)`)
			} else {
				t.out.WriteString(javaDot)
			}
		case '^':
			if t.flags.multiLine {
				t.lines, t.lineStart = true, true
				if t.noLineStart {
					t.out.WriteString(`[^\x00-\x{10FFFF}]`)
				} else {
					t.out.WriteString(`(?m:^)`)
				}
			} else {
				t.anchorStart(`^`)
			}
		case '$':
			if t.peek(0) == '{' {
				return "", t.refuse(at, "'${' (Spark substitutes ${...} in SQL text as a variable)")
			}
			if t.flags.multiLine {
				t.lines = true
				t.out.WriteString(`(?m:$)`)
				break
			}
			t.dollar = true
			t.out.WriteString(`\z`)
		case '*', '+', '?':
			t.out.WriteRune(c)
			if err := t.quantSuffix(at); err != nil {
				return "", err
			}
		case '{':
			if err := t.repeat(at); err != nil {
				return "", err
			}
		default:
			if err := t.literal(at, c); err != nil {
				return "", err
			}
		}
	}
	return t.out.String(), nil
}

func (t *regexTranslator) anchorStart(s string) {
	t.start = true
	if t.noStart {
		s = `[^\x00-\x{10FFFF}]`
	}
	t.out.WriteString(s)
}

// quantSuffix reads what may follow a quantifier: ? (lazy, as in RE2)
// or + (possessive, which RE2 lacks).
func (t *regexTranslator) quantSuffix(at int) error {
	switch t.peek(0) {
	case '?':
		t.out.WriteRune('?')
		t.i++
	case '+':
		return t.refuse(at, "the possessive quantifier %q (RE2 has none)", string(t.src[at:t.i+1]))
	}
	return nil
}

// repeat reads {n}, {n,} or {n,m}; Java refuses any other '{'.
func (t *regexTranslator) repeat(at int) error {
	end := -1
	for k := t.i; k < len(t.src); k++ {
		if t.src[k] == '}' {
			end = k
			break
		}
	}
	if end < 0 {
		return t.refuse(at, "'{' that is no repetition {n}, {n,} or {n,m} (Java refuses it)")
	}
	body := string(t.src[t.i:end])
	lo, hi, comma := body, "", false
	if k := strings.IndexByte(body, ','); k >= 0 {
		lo, hi, comma = body[:k], body[k+1:], true
	}
	n, err1 := strconv.Atoi(lo)
	m, err2 := n, error(nil)
	if hi != "" {
		m, err2 = strconv.Atoi(hi)
	}
	if err1 != nil || err2 != nil || lo == "" || lo[0] == '+' || lo[0] == '-' || hi != "" && (hi[0] == '+' || hi[0] == '-') || m < n {
		return t.refuse(at, "'{%s}' that is no repetition {n}, {n,} or {n,m} (Java refuses it)", body)
	}
	if n > 1000 || comma && hi != "" && m > 1000 {
		return t.refuse(at, "the repetition {%s}: this engine repeats at most 1000 times", body)
	}
	t.out.WriteString("{" + body + "}")
	t.i = end + 1
	return t.quantSuffix(at)
}

// group reads what follows '('.
func (t *regexTranslator) group(at int) error {
	if t.peek(0) == '?' && t.peek(1) != ':' && t.peek(1) != '=' && t.peek(1) != '!' && t.peek(1) != '>' && t.peek(1) != '<' {
		return t.embeddedFlags(at)
	}
	t.saved = append(t.saved, t.flags)
	if t.peek(0) != '?' {
		t.out.WriteRune('(')
		return nil
	}
	switch t.peek(1) {
	case ':':
		t.out.WriteString("(?:")
		t.i += 2
		return nil
	case '=', '!':
		return t.refuse(at, "the lookahead %q (RE2 has no lookaround)", string(t.src[at:t.i+2]))
	case '>':
		return t.refuse(at, "the atomic group '(?>' (RE2 has none)")
	case '<':
		if t.peek(2) == '=' || t.peek(2) == '!' {
			return t.refuse(at, "the lookbehind %q (RE2 has no lookaround)", string(t.src[at:t.i+3]))
		}
		k := t.i + 2
		for k < len(t.src) && isASCIIAlnum(t.src[k]) {
			k++
		}
		name := string(t.src[t.i+2 : k])
		if k >= len(t.src) || t.src[k] != '>' || name == "" || !isASCIILetter(rune(name[0])) {
			return t.refuse(at, "a group name that is not a letter and letters or digits")
		}
		t.out.WriteString("(?P<" + name + ">")
		t.i = k + 1
		return nil
	}
	return nil
}

// embeddedFlags reads (?flags) or (?flags:X) after '(': i (ASCII letters
// fold), s (. takes line terminators) and m (^ and $ at lines), each
// possibly turned off after '-'. Java's other flags are refused.
func (t *regexTranslator) embeddedFlags(at int) error {
	f, on := t.flags, true
	for k := t.i + 1; k < len(t.src); k++ {
		switch c := t.src[k]; c {
		case '-':
			on = false
		case 'i':
			f.fold = on
		case 's':
			f.dotAll = on
		case 'm':
			f.multiLine = on
		case ')', ':':
			t.i = k + 1
			if c == ')' {
				t.flags = f // to the end of the enclosing group
				return nil
			}
			t.saved = append(t.saved, t.flags)
			t.flags = f
			t.out.WriteString("(?:")
			return nil
		default:
			return t.refuse(at, "the embedded flag %q in %q (only i, s and m are supported: Java's x, u, U, d and c mean otherwise in RE2 or depend on the JVM)", string(c), string(t.src[at:min(k+1, len(t.src))]))
		}
	}
	return t.refuse(at, "an unclosed group")
}

// literal writes the character c, which matches itself.
func (t *regexTranslator) literal(at int, c rune) error {
	if c >= 0xD800 && c <= 0xDFFF {
		return t.refuse(at, "a lone surrogate character")
	}
	if t.flags.fold && isASCIILetter(c) {
		t.out.WriteString("[" + string(c|0x20) + string(c&^0x20) + "]")
		return nil
	}
	t.out.WriteString(classLiteral(c))
	return nil
}

// otherCase is the class contents of the ASCII letters in lo-hi in the
// other case, as Java's (?i) adds them.
func otherCase(lo, hi rune) string {
	var sb strings.Builder
	for _, r := range [][2]rune{{'a', 'z'}, {'A', 'Z'}} {
		a, b := max(lo, r[0]), min(hi, r[1])
		if a <= b {
			sb.WriteString(classLiteral(a^0x20) + "-" + classLiteral(b^0x20))
		}
	}
	return sb.String()
}

// classLiteral spells c so that RE2 reads it as itself, in a class or
// out of one.
func classLiteral(c rune) string {
	if isASCIIAlnum(c) {
		return string(c)
	}
	return fmt.Sprintf(`\x{%x}`, c)
}

func isASCIILetter(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isASCIIAlnum(c rune) bool  { return isASCIILetter(c) || c >= '0' && c <= '9' }

// posixClasses are Java's ASCII-only \p{...} names as RE2 class contents.
var posixClasses = map[string]string{
	"Lower": `a-z`, "Upper": `A-Z`, "ASCII": `\x00-\x7f`, "Alpha": `a-zA-Z`, "Digit": `0-9`, "Alnum": `a-zA-Z0-9`,
	"Punct": `!-/:-@\[-` + "`" + `{-~`, "Graph": `!-~`, "Print": ` -~`, "Blank": ` \t`, "Cntrl": `\x00-\x1f\x7f`,
	"XDigit": `0-9a-fA-F`, "Space": ` \t\n\x0b\f\r`,
}

const javaSpace = ` \t\n\x0b\f\r`

// escape reads the escape after a backslash outside a class.
func (t *regexTranslator) escape(at int) error {
	if t.i >= len(t.src) {
		return t.refuse(at, "a trailing backslash (Java refuses it)")
	}
	c := t.src[t.i]
	t.i++
	switch c {
	case 'd', 'w':
		t.out.WriteString(`\` + string(c))
	case 'D', 'W':
		t.surrogate = true
		t.out.WriteString(`\` + string(c))
	case 's':
		t.out.WriteString(`[` + javaSpace + `]`)
	case 'S':
		t.surrogate = true
		t.out.WriteString(`[^` + javaSpace + `]`)
	case 'b', 'B':
		t.ascii = true
		t.out.WriteString(`\` + string(c))
	case 'A':
		t.anchorStart(`\A`)
	case 'z':
		t.out.WriteString(`\z`)
	case 'Z':
		t.dollar = true
		t.out.WriteString(`\z`)
	case 'p', 'P':
		if t.flags.fold {
			return t.refuse(at, `\%c under (?i) (not supported)`, c)
		}
		set, err := t.property(at, c)
		if err != nil {
			return err
		}
		if c == 'P' {
			t.surrogate = true
			t.out.WriteString(`[^` + set + `]`)
		} else {
			t.out.WriteString(`[` + set + `]`)
		}
	case 'Q':
		for t.i < len(t.src) {
			if t.src[t.i] == '\\' && t.peek(1) == 'E' {
				t.i += 2
				return nil
			}
			if err := t.literal(t.i, t.src[t.i]); err != nil {
				return err
			}
			t.i++
		}
	default:
		r, err := t.charEscape(at, c)
		if err != nil {
			return err
		}
		return t.literal(at, r)
	}
	return nil
}

// property reads \p / \P's name: one of Java's ASCII POSIX classes.
func (t *regexTranslator) property(at int, c rune) (string, error) {
	var name string
	switch {
	case t.peek(0) == '{':
		k := t.i + 1
		for k < len(t.src) && t.src[k] != '}' {
			k++
		}
		if k >= len(t.src) {
			return "", t.refuse(at, "an unclosed \\%c{", c)
		}
		name = string(t.src[t.i+1 : k])
		t.i = k + 1
	case t.i < len(t.src):
		name = string(t.src[t.i])
		t.i++
	}
	if set, ok := posixClasses[name]; ok {
		return set, nil
	}
	return "", t.refuse(at, "the Unicode property \\%c{%s} (Java's Unicode tables depend on the JVM version; the ASCII names Lower, Upper, Alpha, Digit, Alnum, Punct, Graph, Print, Blank, Cntrl, XDigit, Space, ASCII are supported)", c, name)
}

// charEscape reads an escape that stands for one character (c follows
// the backslash), or refuses one RE2 cannot mean.
func (t *regexTranslator) charEscape(at int, c rune) (rune, error) {
	switch c {
	case 't':
		return '\t', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 'f':
		return '\f', nil
	case 'a':
		return 7, nil
	case 'e':
		return 0x1b, nil
	case '0':
		// \0n, \0nn or \0mnn (m up to 3), octal.
		v, k := rune(0), 0
		for k < 3 && t.i < len(t.src) && t.src[t.i] >= '0' && t.src[t.i] <= '7' {
			nv := v*8 + t.src[t.i] - '0'
			if nv > 0377 {
				break
			}
			v = nv
			t.i++
			k++
		}
		if k == 0 {
			return 0, t.refuse(at, `'\0' without an octal digit (Java refuses it)`)
		}
		return v, nil
	case 'x':
		if t.peek(0) == '{' {
			k := t.i + 1
			for k < len(t.src) && t.src[k] != '}' {
				k++
			}
			v, err := strconv.ParseUint(string(t.src[t.i+1:min(k, len(t.src))]), 16, 32)
			if k >= len(t.src) || err != nil || v > utf8.MaxRune {
				return 0, t.refuse(at, `an invalid \x{...} escape`)
			}
			t.i = k + 1
			return rune(v), nil
		}
		return t.hex(at, 2)
	case 'u':
		r, err := t.hex(at, 4)
		if err != nil {
			return 0, err
		}
		// A surrogate pair spelled as two \u escapes is one character.
		if r >= 0xD800 && r < 0xDC00 && t.peek(0) == '\\' && t.peek(1) == 'u' {
			save := t.i
			t.i += 2
			lo, err := t.hex(at, 4)
			if err == nil && lo >= 0xDC00 && lo <= 0xDFFF {
				return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, nil
			}
			t.i = save
		}
		return r, nil
	case 'c':
		if t.i >= len(t.src) {
			return 0, t.refuse(at, `'\c' without a character (Java refuses it)`)
		}
		t.i++
		return t.src[t.i-1] ^ 64, nil
	case 'k':
		return 0, t.refuse(at, `the backreference \k (RE2 has none)`)
	case 'h', 'H', 'v', 'V', 'R', 'X', 'G', 'N', 'E':
		return 0, t.refuse(at, `the escape \%c (not supported)`, c)
	}
	switch {
	case c >= '1' && c <= '9':
		return 0, t.refuse(at, `the backreference \%c (RE2 has none)`, c)
	case isASCIILetter(c):
		return 0, t.refuse(at, `the escape \%c (Java refuses it)`, c)
	}
	return c, nil // an escaped symbol is itself
}

// hex reads n hex digits.
func (t *regexTranslator) hex(at, n int) (rune, error) {
	if t.i+n > len(t.src) {
		return 0, t.refuse(at, "an escape without %d hex digits", n)
	}
	v, err := strconv.ParseUint(string(t.src[t.i:t.i+n]), 16, 32)
	if err != nil {
		return 0, t.refuse(at, "an escape without %d hex digits", n)
	}
	t.i += n
	return rune(v), nil
}

// class reads a character class after '['.
func (t *regexTranslator) class(at int) error {
	var sb strings.Builder
	sb.WriteRune('[')
	if t.peek(0) == '^' {
		t.i++
		sb.WriteRune('^')
		t.surrogate = true
	}
	first := true
	for {
		if t.i >= len(t.src) {
			return t.refuse(at, "an unclosed character class")
		}
		c := t.src[t.i]
		itemAt := t.i
		t.i++
		if c == ']' && !first {
			break
		}
		first = false
		var lo rune
		switch {
		case c == '[':
			return t.refuse(itemAt, "a class inside a class (Java's union; RE2 has none)")
		case c == '&' && t.peek(0) == '&':
			return t.refuse(itemAt, "the class intersection '&&' (RE2 has none)")
		case c == '\\':
			if t.i >= len(t.src) {
				return t.refuse(itemAt, "an unclosed character class")
			}
			e := t.src[t.i]
			t.i++
			switch e {
			case 'd', 'w', 'D', 'W':
				sb.WriteString(`\` + string(e))
				continue
			case 's':
				sb.WriteString(javaSpace)
				continue
			case 'p':
				if t.flags.fold {
					return t.refuse(itemAt, `\p inside a class under (?i) (not supported)`)
				}
				set, err := t.property(itemAt, e)
				if err != nil {
					return err
				}
				sb.WriteString(set)
				continue
			case 'S', 'P', 'Q':
				return t.refuse(itemAt, `\%c inside a class (not supported)`, e)
			}
			r, err := t.charEscape(itemAt, e)
			if err != nil {
				return err
			}
			lo = r
		default:
			lo = c
		}
		if lo >= 0xD800 && lo <= 0xDFFF {
			return t.refuse(itemAt, "a lone surrogate character")
		}
		sb.WriteString(classLiteral(lo))
		hi := lo
		// a range lo-hi, unless '-' ends the class
		if t.peek(0) == '-' && t.peek(1) != ']' && t.peek(1) != -1 {
			t.i++
			hiAt := t.i
			h := t.src[t.i]
			t.i++
			switch {
			case h == '\\':
				if t.i >= len(t.src) {
					return t.refuse(hiAt, "an unclosed character class")
				}
				e := t.src[t.i]
				t.i++
				r, err := t.charEscape(hiAt, e)
				if err != nil {
					return err
				}
				hi = r
			case h == '[' || h == '&':
				return t.refuse(hiAt, "a range ending in %q (not supported)", h)
			default:
				hi = h
			}
			if hi < lo {
				return t.refuse(itemAt, "the range %s-%s that runs backwards (Java refuses it)", string(lo), string(hi))
			}
			if hi >= 0xD800 && hi <= 0xDFFF {
				return t.refuse(hiAt, "a lone surrogate character")
			}
			sb.WriteString("-" + classLiteral(hi))
		}
		if t.flags.fold {
			sb.WriteString(otherCase(lo, hi))
		}
	}
	sb.WriteRune(']')
	t.out.WriteString(sb.String())
	return nil
}
