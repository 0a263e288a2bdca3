package expr

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deltalite-go/deltalite/internal/editdist"
	"github.com/deltalite-go/deltalite/schema"
)

// Further deterministic functions of Delta's allowed generation
// expressions, as Spark 4 computes them: substring_index, locate /
// position, translate, space, octet_length, bit_length, chr / char,
// levenshtein, nvl2, isnan, nanvl, sign / signum, sqrt, bin, shiftleft,
// shiftright and shiftrightunsigned.

// moreFuncs are the functions of this file (their arities are in
// functions).
var moreFuncs = map[string]bool{"substring_index": true, "locate": true, "position": true, "translate": true, "space": true,
	"octet_length": true, "bit_length": true, "chr": true, "char": true, "levenshtein": true, "nvl2": true, "isnan": true,
	"nanvl": true, "sign": true, "signum": true, "sqrt": true, "bin": true, "shiftleft": true, "shiftright": true,
	"shiftrightunsigned": true}

// bindMoreFunc binds the functions of this file.
func (b *binder) bindMoreFunc(e *Call) (node, error) {
	args := make([]node, len(e.Args))
	var err error
	kinds := map[string]string{ // per argument: s string, i int, l long, d double, a any
		"substring_index": "ssi", "locate": "ssi", "position": "ssi", "translate": "sss", "space": "i",
		"octet_length": "s", "bit_length": "s", "chr": "l", "char": "l", "levenshtein": "ss",
		"isnan": "d", "nanvl": "dd", "sign": "d", "signum": "d", "sqrt": "d", "bin": "l",
		"shiftleft": "ai", "shiftright": "ai", "shiftrightunsigned": "ai",
	}
	if e.Name == "nvl2" {
		for i, a := range e.Args {
			if args[i], err = b.bind(a); err != nil {
				return nil, err
			}
		}
		rest, err := b.unify(args[1:], e.Args[1:], e)
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: append(args[:1], rest...), t: rest[0].Type()}, e)
	}
	for i, a := range e.Args {
		switch kinds[e.Name][i] {
		case 's':
			args[i], err = b.stringOperand(a)
		case 'i':
			args[i], err = b.intOperand(e, a)
		case 'l', 'd', 'a':
			if args[i], err = b.bind(a); err != nil {
				return nil, err
			}
			t := args[i].Type()
			switch k := kinds[e.Name][i]; {
			case k == 'l' && (isIntegral(t) || isVoid(t)):
				args[i], err = b.coerce(args[i], tLong, a)
			case k == 'd' && (isNumeric(t) || isVoid(t)):
				args[i], err = b.coerce(args[i], tDouble, a)
			case k == 'a' && (integralRank(t) > integralRank(tInt)):
				// a long shifts as a long
			case k == 'a' && (isIntegral(t) || isVoid(t)):
				args[i], err = b.coerce(args[i], tInt, a)
			default:
				return nil, errAt(a, "%s takes a number here, not %s (%s)", e.Name, a, typeName(t))
			}
		}
		if err != nil {
			return nil, err
		}
	}
	t := map[string]schema.Type{"locate": tInt, "position": tInt, "octet_length": tInt, "bit_length": tInt, "levenshtein": tInt,
		"isnan": tBool, "nanvl": tDouble, "sign": tDouble, "signum": tDouble, "sqrt": tDouble}[e.Name]
	switch {
	case t != nil:
	case strings.HasPrefix(e.Name, "shift"):
		t = args[0].Type()
	default:
		t = tString
	}
	if e.Name == "locate" || e.Name == "position" {
		if len(args) == 2 {
			args = append(args, &lit{v: int32(1), t: tInt, src: &Literal{Kind: LitNumber, Text: "1"}})
		}
	}
	return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
}

// moreFunction evaluates the functions bindMoreFunc binds.
func (ev *evaluator) moreFunction(n *callN, args []value) (value, error) {
	switch n.fn {
	case "nvl2":
		return ev.mapRows(args, n.t, false, func(v []any) (any, error) {
			if v[0] != nil {
				return v[1], nil
			}
			return v[2], nil
		})
	case "isnan":
		return ev.mapRows(args, tBool, false, func(v []any) (any, error) {
			f, ok := v[0].(float64)
			return ok && math.IsNaN(f), nil
		})
	case "nanvl":
		return ev.mapRows(args, tDouble, false, func(v []any) (any, error) {
			if f, ok := v[0].(float64); ok && math.IsNaN(f) {
				return v[1], nil
			}
			return v[0], nil
		})
	}
	return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
		switch n.fn {
		case "substring_index":
			return substringIndex(v[0].(string), v[1].(string), int(v[2].(int32))), nil
		case "locate", "position":
			sub, s, start := v[0].(string), v[1].(string), int(v[2].(int32))
			rs := []rune(s)
			switch {
			case start < 1:
				return int32(0), nil
			case sub == "":
				return int32(1), nil // UTF8String.indexOf finds "" at 0, wherever it starts
			case start > len(rs):
				return int32(0), nil
			}
			i := strings.Index(string(rs[start-1:]), sub)
			if i < 0 {
				return int32(0), nil
			}
			return int32(start + utf8.RuneCountInString(string(rs[start-1:])[:i])), nil
		case "translate":
			return translate(v[0].(string), v[1].(string), v[2].(string)), nil
		case "space":
			return strings.Repeat(" ", max(int(v[0].(int32)), 0)), nil
		case "octet_length":
			return int32(len(v[0].(string))), nil
		case "bit_length":
			return int32(len(v[0].(string)) * 8), nil
		case "chr", "char":
			c := v[0].(int64)
			if c < 0 {
				return "", nil
			}
			return string(rune(c & 0xFF)), nil
		case "levenshtein":
			return int32(editdist.Distance(v[0].(string), v[1].(string))), nil
		case "sign", "signum":
			f := v[0].(float64)
			switch {
			case f > 0:
				return 1.0, nil
			case f < 0:
				return -1.0, nil
			}
			return f, nil // 0, -0 and NaN as they are
		case "sqrt":
			return math.Sqrt(v[0].(float64)), nil
		case "bin":
			return strconv.FormatUint(uint64(v[0].(int64)), 2), nil
		}
		// shifts: Java's, the distance masked to the width.
		k := uint(v[1].(int32))
		if x, ok := v[0].(int64); ok {
			switch n.fn {
			case "shiftleft":
				return x << (k & 63), nil
			case "shiftright":
				return x >> (k & 63), nil
			}
			return int64(uint64(x) >> (k & 63)), nil
		}
		x := v[0].(int32)
		switch n.fn {
		case "shiftleft":
			return x << (k & 31), nil
		case "shiftright":
			return x >> (k & 31), nil
		}
		return int32(uint32(x) >> (k & 31)), nil
	})
}

// substringIndex is Spark's substring_index: the text before the count-th
// delim from the left (count > 0) or after the count-th from the right.
func substringIndex(s, delim string, count int) string {
	if delim == "" || count == 0 {
		return ""
	}
	// Occurrences may overlap, as UTF8String.subStringIndex finds them.
	if count > 0 {
		idx := -1
		for range count {
			j := strings.Index(s[idx+1:], delim)
			if j < 0 {
				return s
			}
			idx += 1 + j
		}
		return s[:idx]
	}
	idx := len(s) - len(delim) + 1
	for range -count {
		start := idx - 1 // the last occurrence starting at or before it
		if start < 0 {
			return s
		}
		j := strings.LastIndex(s[:min(start+len(delim), len(s))], delim)
		if j < 0 {
			return s
		}
		idx = j
	}
	return s[idx+len(delim):]
}

// translate is Spark's translate: each character of from replaced by the
// one at its position in to, deleted when to is shorter; the first
// occurrence of a character in from decides.
func translate(s, from, to string) string {
	tr := []rune(to)
	m := map[rune]int{}
	for i, r := range []rune(from) {
		if _, seen := m[r]; !seen {
			m[r] = i
		}
	}
	var sb strings.Builder
	for _, r := range s {
		i, ok := m[r]
		switch {
		case !ok:
			sb.WriteRune(r)
		case i < len(tr):
			sb.WriteRune(tr[i])
		}
	}
	return sb.String()
}
