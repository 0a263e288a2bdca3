package expr

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Reading JSON text as Spark's JSON functions do: Jackson's parser with
// single-quoted strings and names and unescaped control characters in
// strings allowed (Spark's SharedFactory for get_json_object), its
// default limits (1000 nested arrays and objects, numbers of 1000
// characters) and rules: only space, tab, CR and LF between tokens, no
// leading zeros, no trailing commas, a number at the top level followed
// by white space or the end, a literal (true, false, null) not followed by
// a letter or digit. Only the first value of a text is read. Spark's
// JSONOptions (from_json, schema_of_json) set the parser up otherwise:
// control characters must be escaped, and NaN, Infinity, +Infinity,
// -Infinity, +INF and -INF are numbers (dataSource).

// errJackson is a text Jackson refuses.
var errJackson = errors.New("malformed JSON")

// jacksonMaxDepth and jacksonMaxNumber are Jackson's StreamReadConstraints
// defaults.
const (
	jacksonMaxDepth  = 1000
	jacksonMaxNumber = 1000
)

// jacksonReader reads one value of a text.
type jacksonReader struct {
	s     string
	i     int
	depth int
	// lone is set when a string escapes a UTF-16 surrogate that is not
	// half of a pair (Go keeps U+FFFD for it, Java the unit itself).
	lone bool
	// dataSource: JSONOptions' parser rather than get_json_object's.
	dataSource bool
	word       string // the last of NaN and the infinities read
}

// readJackson reads the first value of text; errJackson when Jackson
// would fail on it (an empty text included).
func readJackson(text string) (*jsonValue, bool, error) {
	return readJacksonAs(&jacksonReader{s: text})
}

// readJacksonAs reads the first value of r's text.
func readJacksonAs(r *jacksonReader) (*jsonValue, bool, error) {
	if !r.skipWS() {
		return nil, false, errJackson
	}
	v, err := r.value(true)
	return v, r.lone, err
}

// skipWS skips white space; false at the end or on another control
// character.
func (r *jacksonReader) skipWS() bool {
	for r.i < len(r.s) {
		switch c := r.s[r.i]; c {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return c > ' '
		}
	}
	return false
}

func (r *jacksonReader) value(root bool) (*jsonValue, error) {
	switch c := r.s[r.i]; {
	case c == '{' || c == '[':
		r.depth++
		if r.depth > jacksonMaxDepth {
			return nil, errJackson
		}
		r.i++
		v, err := r.container(c)
		r.depth--
		return v, err
	case c == '"' || c == '\'':
		s, err := r.str(c)
		return &jsonValue{kind: 's', text: s}, err
	case r.dataSource && (c == 'N' || c == 'I' || c == '+' || c == '-') && r.nonNumeric():
		return &jsonValue{kind: 'n', text: r.word}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return r.number(root)
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(r.s)-r.i >= len(lit) && r.s[r.i:r.i+len(lit)] == lit {
				r.i += len(lit)
				if r.i < len(r.s) {
					if n, _ := utf8.DecodeRuneInString(r.s[r.i:]); n == '_' || n == '$' || unicode.IsLetter(n) || unicode.IsDigit(n) {
						return nil, errJackson
					}
				}
				if lit == "null" {
					return &jsonValue{kind: 'z'}, nil
				}
				return &jsonValue{kind: 'b', text: lit}, nil
			}
		}
	}
	return nil, errJackson
}

// container reads an array or object after its opening bracket.
func (r *jacksonReader) container(open byte) (*jsonValue, error) {
	v := &jsonValue{kind: 'a'}
	end := byte(']')
	if open == '{' {
		v.kind, end = 'o', '}'
	}
	if !r.skipWS() {
		return nil, errJackson
	}
	if r.s[r.i] == end {
		r.i++
		return v, nil
	}
	for {
		var name string
		if v.kind == 'o' {
			q := r.s[r.i]
			if q != '"' && q != '\'' {
				return nil, errJackson
			}
			var err error
			if name, err = r.str(q); err != nil {
				return nil, err
			}
			if !r.skipWS() || r.s[r.i] != ':' {
				return nil, errJackson
			}
			r.i++
			if !r.skipWS() {
				return nil, errJackson
			}
		}
		c, err := r.value(false)
		if err != nil {
			return nil, err
		}
		if v.kind == 'o' {
			v.fields = append(v.fields, jsonField{name, c})
		} else {
			v.elems = append(v.elems, c)
		}
		if !r.skipWS() {
			return nil, errJackson
		}
		switch r.s[r.i] {
		case end:
			r.i++
			return v, nil
		case ',':
			r.i++
			if !r.skipWS() {
				return nil, errJackson
			}
		default:
			return nil, errJackson
		}
	}
}

// str reads a string quoted by q: control characters are taken as they
// are, a backslash escapes one of "\/bfnrt, a quote ' or uXXXX.
func (r *jacksonReader) str(q byte) (string, error) {
	r.i++
	var b []byte
	var units []uint16 // \u escapes waiting to be paired
	flush := func() {
		if len(units) == 0 {
			return
		}
		for _, ru := range utf16.Decode(units) {
			b = utf8.AppendRune(b, ru)
		}
		for k, u := range units {
			if utf16.IsSurrogate(rune(u)) {
				paired := (u < 0xDC00 && k+1 < len(units) && units[k+1] >= 0xDC00 && units[k+1] <= 0xDFFF) ||
					(u >= 0xDC00 && k > 0 && units[k-1] >= 0xD800 && units[k-1] < 0xDC00)
				if !paired {
					r.lone = true
				}
			}
		}
		units = units[:0]
	}
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case c == q:
			r.i++
			flush()
			return string(b), nil
		case c == '\\':
			if r.i+1 >= len(r.s) {
				return "", errJackson
			}
			e := r.s[r.i+1]
			r.i += 2
			if e == 'u' {
				if r.i+4 > len(r.s) {
					return "", errJackson
				}
				var u uint16
				for _, h := range []byte(r.s[r.i : r.i+4]) {
					switch {
					case h >= '0' && h <= '9':
						u = u<<4 | uint16(h-'0')
					case h >= 'a' && h <= 'f':
						u = u<<4 | uint16(h-'a'+10)
					case h >= 'A' && h <= 'F':
						u = u<<4 | uint16(h-'A'+10)
					default:
						return "", errJackson
					}
				}
				r.i += 4
				units = append(units, u)
				continue
			}
			flush()
			switch e {
			case '"', '\\', '/', '\'':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			default:
				return "", errJackson
			}
		case c < ' ' && r.dataSource:
			return "", errJackson
		default:
			flush()
			b = append(b, c)
			r.i++
		}
	}
	return "", errJackson
}

// nonNumeric reads NaN, Infinity, +Infinity, -Infinity, +INF or -INF.
func (r *jacksonReader) nonNumeric() bool {
	for _, w := range []string{"NaN", "Infinity", "+Infinity", "-Infinity", "+INF", "-INF"} {
		if strings.HasPrefix(r.s[r.i:], w) {
			r.i += len(w)
			r.word = w
			return true
		}
	}
	return false
}

// number reads a number as Jackson's grammar has it; at the top level it
// must be followed by white space or the end.
func (r *jacksonReader) number(root bool) (*jsonValue, error) {
	start := r.i
	digits := func() int {
		n := 0
		for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
			r.i++
			n++
		}
		return n
	}
	if r.s[r.i] == '-' {
		r.i++
	}
	intStart := r.i
	if digits() == 0 || (r.s[intStart] == '0' && r.i-intStart > 1) {
		return nil, errJackson
	}
	if r.i < len(r.s) && r.s[r.i] == '.' {
		r.i++
		if digits() == 0 {
			return nil, errJackson
		}
	}
	if r.i < len(r.s) && (r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.i++
		if r.i < len(r.s) && (r.s[r.i] == '+' || r.s[r.i] == '-') {
			r.i++
		}
		if digits() == 0 {
			return nil, errJackson
		}
	}
	if r.i-start > jacksonMaxNumber {
		return nil, errJackson
	}
	if root && r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
		default:
			return nil, errJackson
		}
	}
	return &jsonValue{kind: 'n', text: r.s[start:r.i]}, nil
}
