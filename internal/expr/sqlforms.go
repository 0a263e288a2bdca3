package expr

import (
	"strings"

	"github.com/deltalite-go/deltalite/schema"
)

// The functions behind Spark's SQL syntax forms, as Spark 4 computes
// them: trim, ltrim and rtrim of spaces or, given characters first (the
// form trim(BOTH | LEADING | TRAILING chars FROM s) parses to), of those
// characters; btrim(s[, chars]); overlay(s, r, pos[, len]) (what
// overlay(s PLACING r FROM pos FOR len) parses to) of texts or binaries.
// The parser reads position(sub IN s) as locate(sub, s) and LIKE ANY /
// ALL (patterns) as the patterns' LIKEs joined by OR / AND.

// formNames are the names bindFormFunc binds.
var formNames = map[string]bool{"trim": true, "ltrim": true, "rtrim": true, "btrim": true, "overlay": true}

// bindFormFunc binds the functions of this file.
func (b *binder) bindFormFunc(e *Call) (node, error) {
	args := make([]node, len(e.Args))
	var err error
	if e.Name != "overlay" {
		for i, a := range e.Args {
			if args[i], err = b.stringOperand(a); err != nil {
				return nil, err
			}
		}
		return b.fold(&callN{fn: e.Name, args: args, t: tString}, e)
	}
	for i, a := range e.Args[:2] {
		if args[i], err = b.bind(a); err != nil {
			return nil, err
		}
	}
	t := tString
	if isType(args[0].Type(), schema.Binary) && isType(args[1].Type(), schema.Binary) {
		t = args[0].Type()
	} else {
		for i, a := range e.Args[:2] {
			if args[i], err = b.stringOperand(a); err != nil {
				return nil, err
			}
		}
	}
	for i := 2; i < len(e.Args); i++ {
		if args[i], err = b.intOperand(e, e.Args[i]); err != nil {
			return nil, err
		}
	}
	return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
}

// trimFuncs trim the characters a function's name says.
var trimFuncs = map[string]func(string, func(rune) bool) string{
	"trim": strings.TrimFunc, "btrim": strings.TrimFunc, "ltrim": strings.TrimLeftFunc, "rtrim": strings.TrimRightFunc}

// formFunction evaluates the calls bindFormFunc makes.
func (ev *evaluator) formFunction(n *callN, args []value) (value, error) {
	return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
		if n.fn == "overlay" {
			pos, length := v[2].(int32), int32(-1)
			if len(v) > 3 {
				length = v[3].(int32)
			}
			if b, ok := v[0].([]byte); ok {
				return overlayBytes(b, v[1].([]byte), pos, length), nil
			}
			return overlayString(v[0].(string), v[1].(string), pos, length), nil
		}
		// trim(s), trim(chars, s), btrim(s), btrim(s, chars), ...
		s, chars := v[len(v)-1].(string), " "
		if n.fn == "btrim" {
			s = v[0].(string)
		}
		if len(v) == 2 {
			chars = v[0].(string)
			if n.fn == "btrim" {
				chars = v[1].(string)
			}
		}
		return trimFuncs[n.fn](s, func(r rune) bool { return strings.ContainsRune(chars, r) }), nil
	})
}

// overlayString is Spark's Overlay.calculate: the characters of s before
// pos, then r, then those from pos + len on, len being r's length when
// negative (Java int arithmetic).
func overlayString(s, r string, pos, length int32) string {
	if length < 0 {
		length = int32(len([]rune(r)))
	}
	return substringSQL(s, 1, int64(pos-1)) + r + substringSQL(s, int64(pos+length), int64(^uint32(0)>>1))
}

// overlayBytes is overlayString of bytes (ByteArray.subStringSQL).
func overlayBytes(s, r []byte, pos, length int32) []byte {
	if length < 0 {
		length = int32(len(r))
	}
	out := append(make([]byte, 0, len(s)+len(r)), bytesSQL(s, 1, int64(pos-1))...)
	out = append(out, r...)
	return append(out, bytesSQL(s, int64(pos+length), int64(^uint32(0)>>1))...)
}

// bytesSQL is substringSQL of bytes.
func bytesSQL(s []byte, pos, length int64) []byte {
	start, end := sqlRange(int64(len(s)), pos, length)
	if start >= end {
		return nil
	}
	return s[start:end]
}

// sqlRange is the part [start, end) of n characters that Spark's
// substring(pos, length) takes: 1-based, 0 counts as 1, a negative
// position counts from the end; empty when start >= end.
func sqlRange(n, pos, length int64) (start, end int64) {
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
	}
	end = min(start+length, n)
	return max(start, 0), end
}
