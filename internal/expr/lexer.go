package expr

import (
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tkEOF    tokKind = iota
	tkIdent          // a plain word: keyword or identifier
	tkQIdent         // a `backquoted` identifier
	tkNumber
	tkString
	tkBinary // X'0AFF'
	tkSym
)

type token struct {
	kind tokKind
	text string // identifier, number text, decoded string, symbol
	pos  int    // byte offset
}

// describe names a token for error messages.
func (t token) describe() string {
	switch t.kind {
	case tkEOF:
		return "end of input"
	case tkIdent:
		return fmt.Sprintf("%q", t.text)
	case tkQIdent:
		return "identifier " + quoteIdent(t.text)
	case tkNumber:
		return "number " + t.text
	case tkString:
		return "string " + quoteString(t.text)
	case tkBinary:
		return "binary literal"
	}
	return fmt.Sprintf("'%s'", t.text)
}

// symbols, longest first so that "<=>" wins over "<=".
var symbols = []string{"<=>", "==", "!=", "<>", "<=", ">=", "||", "::", "->",
	"=", "<", ">", "(", ")", "[", "]", ",", ".", "+", "-", "*", "/", "%", "!", "&", "|", "^", "~"}

// lex splits src into tokens; the last one is tkEOF.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for {
		for i < len(src) {
			c := src[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
				i++
				continue
			}
			if strings.HasPrefix(src[i:], "--") {
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			}
			if strings.HasPrefix(src[i:], "/*") {
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return nil, syntaxErr(src, i, "unterminated comment")
				}
				i += end + 4
				continue
			}
			break
		}
		if i >= len(src) {
			return append(toks, token{kind: tkEOF, pos: len(src)}), nil
		}
		start := i
		c := src[i]
		switch {
		case (c == 'x' || c == 'X') && i+1 < len(src) && src[i+1] == '\'':
			s, n, err := lexString(src, i+1)
			if err != nil {
				return nil, err
			}
			b, herr := hex.DecodeString(s)
			if herr != nil {
				return nil, syntaxErr(src, start, "invalid hexadecimal binary literal")
			}
			toks = append(toks, token{kind: tkBinary, text: string(b), pos: start})
			i = n
		case isIdentStart(c) || c >= 0x80:
			// Spark's lexer accepts letters beyond ASCII in identifiers.
			for i < len(src) {
				if isIdentPart(src[i]) {
					i++
					continue
				}
				r, size := utf8.DecodeRuneInString(src[i:])
				if src[i] < 0x80 || !isLetterRune(r) {
					break
				}
				i += size
			}
			if i == start {
				r, _ := utf8.DecodeRuneInString(src[i:])
				if r == utf8.RuneError {
					return nil, syntaxErr(src, i, "invalid UTF-8")
				}
				return nil, syntaxErr(src, i, "unexpected character %q", r)
			}
			toks = append(toks, token{kind: tkIdent, text: src[start:i], pos: start})
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && isDigit(src[i+1]) && !afterName(toks):
			n, err := lexNumber(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tkNumber, text: src[start:n], pos: start})
			i = n
		case c == '\'' || c == '"':
			s, n, err := lexString(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tkString, text: s, pos: start})
			i = n
		case c == '`':
			var sb strings.Builder
			i++
			for {
				if i >= len(src) {
					return nil, syntaxErr(src, start, "unterminated quoted identifier")
				}
				if src[i] == '`' {
					if i+1 < len(src) && src[i+1] == '`' {
						sb.WriteByte('`')
						i += 2
						continue
					}
					i++
					break
				}
				sb.WriteByte(src[i])
				i++
			}
			if !utf8.ValidString(sb.String()) {
				return nil, syntaxErr(src, start, "invalid UTF-8")
			}
			toks = append(toks, token{kind: tkQIdent, text: sb.String(), pos: start})
		default:
			matched := false
			for _, s := range symbols {
				if strings.HasPrefix(src[i:], s) {
					toks = append(toks, token{kind: tkSym, text: s, pos: start})
					i += len(s)
					matched = true
					break
				}
			}
			if !matched {
				r, _ := utf8.DecodeRuneInString(src[i:])
				return nil, syntaxErr(src, i, "unexpected character %q", r)
			}
		}
	}
}

// afterName reports whether the previous token ends a name, so that ".5"
// after it is a field access, not a number.
func afterName(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	t := toks[len(toks)-1]
	return t.kind == tkIdent && !reserved[strings.ToUpper(t.text)] || t.kind == tkQIdent || t.kind == tkSym && t.text == ")"
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) }

func isLetterRune(r rune) bool {
	return r >= 0x80 && r != utf8.RuneError && (r < 0x2000 || r > 0x206f) && r != 0xfeff && r != 0xa0
}

// lexNumber scans digits, an optional fraction and exponent, and one of
// Spark's type suffixes (L, S, Y, D, F, BD); it returns the end offset.
func lexNumber(src string, i int) (int, error) {
	start := i
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '.' {
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			i = j
		}
	}
	if i+1 < len(src) && strings.EqualFold(src[i:i+2], "bd") && (i+2 >= len(src) || !isIdentPart(src[i+2])) {
		return i + 2, nil
	}
	if i < len(src) && strings.ContainsRune("lLsSyYdDfF", rune(src[i])) && (i+1 >= len(src) || !isIdentPart(src[i+1])) {
		return i + 1, nil
	}
	if i < len(src) && isIdentPart(src[i]) {
		return 0, syntaxErr(src, start, "invalid number %q", src[start:i+1])
	}
	return i, nil
}

// lexString decodes a quoted string starting at src[i] (the quote) with
// Spark's backslash escapes; it returns the value and the end offset.
func lexString(src string, i int) (string, int, error) {
	q := src[i]
	start := i
	i++
	var sb strings.Builder
	for {
		if i >= len(src) {
			return "", 0, syntaxErr(src, start, "unterminated string")
		}
		c := src[i]
		if c == q {
			// A doubled quote is one quote character, as in Spark 4 and
			// standard SQL: 'o''x' is o'x (where 'o' 'x' joins to ox).
			if i+1 < len(src) && src[i+1] == q {
				sb.WriteByte(q)
				i += 2
				continue
			}
			i++
			break
		}
		if c != '\\' {
			sb.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(src) {
			return "", 0, syntaxErr(src, start, "unterminated string")
		}
		e := src[i+1]
		i += 2
		switch e {
		case '0', '1', '2', '3':
			// \ooo octal when three digits follow the backslash, else \0.
			if i+1 < len(src) && isOctal(src[i]) && isOctal(src[i+1]) {
				sb.WriteRune(rune((e-'0')*64 + (src[i]-'0')*8 + (src[i+1] - '0')))
				i += 2
			} else if e == '0' {
				sb.WriteByte(0)
			} else {
				sb.WriteByte(e)
			}
		case 'b':
			sb.WriteByte('\b')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'Z':
			sb.WriteByte(0x1a)
		case '%', '_':
			// Kept escaped so that LIKE sees a literal wildcard character.
			sb.WriteByte('\\')
			sb.WriteByte(e)
		case 'u':
			if i+4 > len(src) {
				return "", 0, syntaxErr(src, i-2, "invalid \\u escape")
			}
			var r rune
			for _, h := range src[i : i+4] {
				d := hexDigit(h)
				if d < 0 {
					return "", 0, syntaxErr(src, i-2, "invalid \\u escape")
				}
				r = r*16 + rune(d)
			}
			sb.WriteRune(r)
			i += 4
		default:
			sb.WriteByte(e)
		}
	}
	s := sb.String()
	if !utf8.ValidString(s) {
		return "", 0, syntaxErr(src, start, "string is not valid UTF-8")
	}
	return s, i, nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func hexDigit(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}
