package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// A small lexer for one NDJSON line: an object whose keys come in the
// line's order. encoding/json's Token API does the same at several times
// the cost per value, which doubles with the two passes over the input.

// jsonValue is one value of an object.
type jsonValue struct {
	kind byte   // 'z' null, 'b' boolean, '1' number, 's' string, '{' object, '[' array
	b    bool   // a boolean's value
	text string // a number's literal, a string's decoded text, a nested value's JSON
}

// describe names the value in an error: "5" is a string, 5 a number.
func (v jsonValue) describe() string {
	switch v.kind {
	case 's':
		return fmt.Sprintf("the string %q", v.text)
	case '1':
		return v.text
	case 'b':
		return fmt.Sprint(v.b)
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "null"
}

// jsonSyntaxError is a line that is not one JSON object; at is a byte
// offset in the line.
type jsonSyntaxError struct {
	at   int
	what string
}

func (e *jsonSyntaxError) Error() string { return fmt.Sprintf("character %d: %s", e.at+1, e.what) }

type jsonLexer struct {
	b []byte
	i int
}

func (l *jsonLexer) fail(what string) error {
	if l.i >= len(l.b) && what == "not valid JSON" {
		what = "the JSON object is cut short"
	}
	return &jsonSyntaxError{at: l.i, what: what}
}

func (l *jsonLexer) ws() {
	for l.i < len(l.b) {
		switch l.b[l.i] {
		case ' ', '\t', '\r', '\n':
			l.i++
		default:
			return
		}
	}
}

// object lexes the line as one object, calling fn for each member.
func (l *jsonLexer) object(fn func(key []byte, v jsonValue) error) error {
	l.ws()
	if l.i >= len(l.b) || l.b[l.i] != '{' {
		return l.fail("a line must hold one JSON object")
	}
	l.i++
	l.ws()
	if l.i < len(l.b) && l.b[l.i] == '}' {
		l.i++
	} else {
		for {
			l.ws()
			if l.i >= len(l.b) || l.b[l.i] != '"' {
				return l.fail("not valid JSON")
			}
			key, err := l.str()
			if err != nil {
				return err
			}
			l.ws()
			if l.i >= len(l.b) || l.b[l.i] != ':' {
				return l.fail("not valid JSON")
			}
			l.i++
			l.ws()
			v, err := l.value()
			if err != nil {
				return err
			}
			if err := fn(key, v); err != nil {
				return err
			}
			l.ws()
			if l.i < len(l.b) && l.b[l.i] == ',' {
				l.i++
				continue
			}
			if l.i < len(l.b) && l.b[l.i] == '}' {
				l.i++
				break
			}
			return l.fail("not valid JSON")
		}
	}
	l.ws()
	if l.i < len(l.b) {
		return l.fail("more after the JSON object: a line must hold one JSON object")
	}
	return nil
}

// str lexes a string at l.i (a '"'), returning its decoded bytes.
func (l *jsonLexer) str() ([]byte, error) {
	start := l.i
	l.i++
	escaped, ascii := false, true
	for l.i < len(l.b) {
		switch c := l.b[l.i]; {
		case c == '"':
			l.i++
			// Escapes, and bytes that are not UTF-8 (which become U+FFFD),
			// decode as encoding/json does.
			if !escaped && (ascii || utf8.Valid(l.b[start+1:l.i-1])) {
				return l.b[start+1 : l.i-1], nil
			}
			var s string
			if err := json.Unmarshal(l.b[start:l.i], &s); err != nil {
				l.i = start
				return nil, l.fail("not valid JSON: a bad escape in a string")
			}
			return []byte(s), nil
		case c == '\\':
			escaped = true
			l.i += 2
		case c < 0x20:
			return nil, l.fail("not valid JSON: a control character in a string")
		case c >= 0x80:
			ascii = false
			l.i++
		default:
			l.i++
		}
	}
	return nil, l.fail("not valid JSON")
}

func (l *jsonLexer) value() (jsonValue, error) {
	if l.i >= len(l.b) {
		return jsonValue{}, l.fail("not valid JSON")
	}
	switch c := l.b[l.i]; {
	case c == '"':
		s, err := l.str()
		return jsonValue{kind: 's', text: string(s)}, err
	case c == '{' || c == '[':
		return l.nested()
	case c == '-' || c >= '0' && c <= '9':
		return l.number()
	}
	for _, lit := range []struct {
		text string
		v    jsonValue
	}{{"null", jsonValue{kind: 'z'}}, {"true", jsonValue{kind: 'b', b: true}}, {"false", jsonValue{kind: 'b'}}} {
		if bytes.HasPrefix(l.b[l.i:], []byte(lit.text)) {
			l.i += len(lit.text)
			return lit.v, nil
		}
	}
	return jsonValue{}, l.fail("not valid JSON")
}

// number lexes -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (l *jsonLexer) number() (jsonValue, error) {
	start := l.i
	digits := func() int {
		n := 0
		for l.i < len(l.b) && l.b[l.i] >= '0' && l.b[l.i] <= '9' {
			l.i++
			n++
		}
		return n
	}
	if l.b[l.i] == '-' {
		l.i++
	}
	if l.i < len(l.b) && l.b[l.i] == '0' {
		l.i++
	} else if digits() == 0 {
		return jsonValue{}, l.fail("not valid JSON")
	}
	if l.i < len(l.b) && l.b[l.i] == '.' {
		l.i++
		if digits() == 0 {
			return jsonValue{}, l.fail("not valid JSON")
		}
	}
	if l.i < len(l.b) && (l.b[l.i] == 'e' || l.b[l.i] == 'E') {
		l.i++
		if l.i < len(l.b) && (l.b[l.i] == '+' || l.b[l.i] == '-') {
			l.i++
		}
		if digits() == 0 {
			return jsonValue{}, l.fail("not valid JSON")
		}
	}
	return jsonValue{kind: '1', text: string(l.b[start:l.i])}, nil
}

// nested takes an object or array whole, as JSON text.
func (l *jsonLexer) nested() (jsonValue, error) {
	start, depth := l.i, 0
	for l.i < len(l.b) {
		switch l.b[l.i] {
		case '"':
			if _, err := l.str(); err != nil {
				return jsonValue{}, err
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		l.i++
		if depth == 0 {
			raw := l.b[start:l.i]
			if !json.Valid(raw) {
				l.i = start
				return jsonValue{}, l.fail("not valid JSON")
			}
			return jsonValue{kind: raw[0], text: string(raw)}, nil
		}
	}
	return jsonValue{}, l.fail("not valid JSON")
}
