package expr

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// to_number(s, fmt) and try_to_number(s, fmt) as Spark's ToNumberParser
// reads them: a constant format (in upper case, as Spark reads it) of digits 0 and 9 (grouped by , or G),
// a decimal point (. or D), $, and a sign S, MI or PR at either end,
// checked as Spark checks it when bound; the result is a DECIMAL of the
// format's digits and of its digits after the point. A text that does
// not match fails the row as Spark's ANSI mode fails it
// (INVALID_FORMAT.MISMATCH_INPUT); try_to_number gives NULL.

// toNumberNames are the names of this file.
var toNumberNames = map[string]bool{"to_number": true, "try_to_number": true}

// numTokKind is the kind of a token of a to_number format.
type numTokKind int

const (
	ntDigits numTokKind = iota // a group of digits and separators
	ntPoint
	ntDollar
	ntSign  // S: + or -
	ntMinus // MI: -
	ntOpen  // PR's <
	ntClose // PR's >
	ntOther
)

// numTok is one token; for ntDigits, groups are the digit counts between
// separators, the last group first, and exact tells whether the group
// must be full (a run starting with 0 before the point).
type numTok struct {
	kind   numTokKind
	groups []int
	exact  []bool
	seps   int  // separators in the group
	bad    bool // a separator at an end of the group or next to another
	char   rune
}

// numberFormat is a parsed to_number format.
type numberFormat struct {
	src              string
	toks             []numTok
	precision, scale int
	overflow         bool // the last text parsed does not fit the precision
}

// parseNumberFormat tokenizes format and checks it as Spark's
// ToNumberParser.checkInputDataTypes does; the error names Spark's
// INVALID_FORMAT subclass.
func parseNumberFormat(format string) (*numberFormat, error) {
	nf := &numberFormat{src: format}
	rs := []rune(format)
	var flat []numTok // digits runs (kind ntDigits, one group) and separators (ntDigits, seps 1)
	point := false
	for i := 0; i < len(rs); {
		switch c := rs[i]; {
		case c == '0' || c == '9':
			j := i + 1
			for j < len(rs) && (rs[j] == '0' || rs[j] == '9') {
				j++
			}
			flat = append(flat, numTok{kind: ntDigits, groups: []int{j - i}, exact: []bool{c == '0' && !point}})
			i = j
			continue
		case c == '.' || c == 'D':
			flat = append(flat, numTok{kind: ntPoint})
			point = true
		case c == ',' || c == 'G':
			flat = append(flat, numTok{kind: ntDigits, seps: 1})
		case c == '$':
			flat = append(flat, numTok{kind: ntDollar})
		case c == 'S':
			flat = append(flat, numTok{kind: ntSign})
		case c == 'M' && i+1 < len(rs) && rs[i+1] == 'I':
			flat = append(flat, numTok{kind: ntMinus})
			i++
		case c == 'P' && i+1 < len(rs) && rs[i+1] == 'R':
			flat = append([]numTok{{kind: ntOpen}}, flat...)
			flat = append(flat, numTok{kind: ntClose})
			i++
		default:
			flat = append(flat, numTok{kind: ntOther, char: c})
		}
		i++
	}
	// Runs of digits and separators become one group token, read from
	// its end.
	for i := 0; i < len(flat); {
		if flat[i].kind != ntDigits {
			nf.toks = append(nf.toks, flat[i])
			i++
			continue
		}
		j := i
		for j < len(flat) && flat[j].kind == ntDigits {
			j++
		}
		g := numTok{kind: ntDigits}
		for k := j - 1; k >= i; k-- {
			if flat[k].seps > 0 {
				g.seps++
				if k == i || k == j-1 || flat[k-1].seps > 0 || flat[k+1].seps > 0 {
					g.bad = true
				}
				continue
			}
			g.groups = append(g.groups, flat[k].groups[0])
			g.exact = append(g.exact, flat[k].exact[0])
		}
		nf.toks = append(nf.toks, g)
		i = j
	}
	invalid := func(sub, msg string) error {
		return fmt.Errorf("INVALID_FORMAT.%s: the format %q %s", sub, format, msg)
	}
	index := func(k numTokKind) int {
		for i, t := range nf.toks {
			if t.kind == k {
				return i
			}
		}
		return -1
	}
	firstPoint, firstDollar, firstDigit := index(ntPoint), index(ntDollar), index(ntDigits)
	for i, t := range nf.toks {
		if t.kind != ntDigits {
			continue
		}
		n := 0
		for _, g := range t.groups {
			n += g
		}
		nf.precision += n
		if firstPoint >= 0 && i > firstPoint {
			nf.scale += n
		}
	}
	switch {
	case format == "":
		return nil, invalid("EMPTY", "is empty")
	case firstDigit < 0:
		return nil, invalid("WRONG_NUM_DIGIT", "has no digit 0 or 9")
	case firstDigit < firstDollar:
		return nil, invalid("CUR_MUST_BEFORE_DIGIT", "has $ after a digit")
	case firstPoint >= 0 && firstPoint < firstDollar:
		return nil, invalid("CUR_MUST_BEFORE_DEC", "has $ after the decimal point")
	}
	for i, t := range nf.toks {
		if t.kind != ntDigits {
			continue
		}
		before := firstPoint < 0 || i < firstPoint
		if before && t.bad {
			return nil, invalid("CONT_THOUSANDS_SEPS", "has a thousands separator (, or G) without digits on both sides")
		}
		if !before && t.seps > 0 {
			return nil, invalid("THOUSANDS_SEPS_MUST_BEFORE_DEC", "has a thousands separator after the decimal point")
		}
	}
	counts := map[numTokKind]int{}
	for _, t := range nf.toks {
		counts[t.kind]++
	}
	for _, k := range []numTokKind{ntPoint, ntSign, ntMinus, ntDollar, ntClose} {
		if counts[k] > 1 {
			return nil, invalid("WRONG_NUM_TOKEN", "has "+numTokName(k)+" more than once")
		}
	}
	// [PR's <] [MI | S] [$] [digits] [. | D] [digits] [$] [PR | MI | S]
	allowed := [][]numTokKind{{ntOpen}, {ntMinus, ntSign}, {ntDollar}, {ntDigits}, {ntPoint}, {ntDigits}, {ntDollar}, {ntMinus, ntSign, ntClose}}
	at := 0
	for _, kinds := range allowed {
		if at < len(nf.toks) {
			for _, k := range kinds {
				if nf.toks[at].kind == k {
					at++
					break
				}
			}
		}
	}
	if at < len(nf.toks) {
		t := nf.toks[at]
		name := numTokName(t.kind)
		if t.kind == ntOther {
			name = fmt.Sprintf("the character %q", t.char)
		}
		return nil, invalid("UNEXPECTED_TOKEN", "has "+name+" where Spark's order [MI|S] [$] [0|9|G|,] [.|D] [0|9] [$] [PR|MI|S] does not allow it")
	}
	if nf.precision > 38 {
		return nil, fmt.Errorf("the format %q has %d digits, more than a DECIMAL's 38", format, nf.precision)
	}
	return nf, nil
}

func numTokName(k numTokKind) string {
	return [...]string{"digits", ". or D", "$", "S", "MI", "PR", "PR", "a character"}[k]
}

// bindToNumber binds to_number and try_to_number.
func (b *binder) bindToNumber(e *Call) (node, error) {
	s, err := b.stringOperand(e.Args[0])
	if err != nil {
		return nil, err
	}
	format, err := b.constString(e, e.Args[1], "format")
	if err != nil {
		return nil, err
	}
	if format == nil {
		return &lit{v: nil, t: &schema.Decimal{Precision: 10, Scale: 0}, src: e}, nil
	}
	nf, err := parseNumberFormat(strings.ToUpper(*format))
	if err != nil {
		return nil, errAt(e.Args[1], "%s: %v", e.Name, err)
	}
	t := &schema.Decimal{Precision: nf.precision, Scale: nf.scale}
	return b.fold(&callN{fn: e.Name, args: []node{s, &lit{v: *format, t: tString, src: e.Args[1]}}, t: t}, e)
}

// toNumberFunction evaluates to_number and try_to_number.
func (ev *evaluator) toNumberFunction(n *callN, args []value) (value, error) {
	nf, err := parseNumberFormat(strings.ToUpper(n.args[1].(*lit).v.(string)))
	if err != nil {
		return value{}, err
	}
	return ev.mapRows(args[:1], n.t, true, func(v []any) (any, error) {
		s := v[0].(string)
		d, ok := nf.parse(s)
		switch {
		case ok:
			return d, nil
		case nf.overflow:
			return nil, errs.New(errs.InvalidArgument, "", "%s(%q, %q): [NUMERIC_VALUE_OUT_OF_RANGE] the digits read do not fit DECIMAL(%d, %d), which Spark fails (also for try_to_number)", n.fn, s, nf.src, nf.precision, nf.scale)
		case n.fn == "try_to_number":
			return nil, nil
		}
		return nil, errs.New(errs.InvalidArgument, "", "%s(%q, %q): [INVALID_FORMAT.MISMATCH_INPUT] the input does not match the format", n.fn, s, nf.src)
	})
}

// parse reads s as ToNumberParser.parse does: s is read as Java's UTF-16
// characters, whitespace among the digits skipped, a digit any Unicode
// decimal digit of the Basic Multilingual Plane.
func (nf *numberFormat) parse(s string) (decimal128.Num, bool) {
	nf.overflow = false
	in := utf16.Encode([]rune(s))
	var before, after []byte
	point, opened, closed, neg := false, false, false, false
	i := 0
	for _, t := range nf.toks {
		has := i < len(in)
		var c uint16
		if has {
			c = in[i]
		}
		switch t.kind {
		case ntDigits:
			var sizes []int // the last group first
			cur := 0
			for ; i < len(in); i++ {
				r := rune(in[i])
				if javaIsWhitespace(r) {
					continue
				}
				if dv, ok := bmpDigit(r); ok {
					cur++
					if point {
						after = append(after, dv)
					} else {
						before = append(before, dv)
					}
					continue
				}
				if r == ',' {
					sizes = append([]int{cur}, sizes...)
					cur = 0
					continue
				}
				break
			}
			sizes = append([]int{cur}, sizes...)
			if len(sizes) > len(t.groups) {
				return decimal128.Num{}, false
			}
			for k, want := range t.groups {
				got := 0
				if k < len(sizes) {
					got = sizes[k]
				}
				if t.exact[k] && got != want || got > want {
					return decimal128.Num{}, false
				}
			}
		case ntPoint:
			if has && c == '.' {
				point = true
				i++
			}
		case ntDollar:
			if has {
				if c != '$' {
					return decimal128.Num{}, false
				}
				i++
			}
		case ntSign:
			if has && (c == '+' || c == '-') {
				neg = neg != (c == '-')
				i++
			}
		case ntMinus:
			if has && c == '-' {
				neg = !neg
				i++
			}
		case ntOpen:
			if has && c == '<' {
				if opened {
					return decimal128.Num{}, false
				}
				opened = true
				i++
			}
		case ntClose:
			if has && c == '>' {
				if !opened {
					return decimal128.Num{}, false
				}
				closed = true
				neg = !neg
				i++
			}
		}
	}
	if i < len(in) || opened != closed || len(before) == 0 && len(after) == 0 {
		return decimal128.Num{}, false
	}
	digits := string(before) + string(after) + strings.Repeat("0", nf.scale-len(after))
	u, _ := new(big.Int).SetString("0"+digits, 10)
	if u.Cmp(pow10(nf.precision)) >= 0 {
		// Digits read before a point the text left out fill the integer
		// part of a format that has none: Spark's Decimal refuses them.
		nf.overflow = true
		return decimal128.Num{}, false
	}
	if neg {
		u.Neg(u)
	}
	return decimal128.FromBigInt(u), true
}

// bmpDigit is the value, as an ASCII digit, of a decimal digit of the
// Basic Multilingual Plane (Java's Character.isDigit of a char).
func bmpDigit(r rune) (byte, bool) {
	if r >= '0' && r <= '9' {
		return byte(r), true
	}
	if r > 0xFFFF || !unicode.IsDigit(r) {
		return 0, false
	}
	// Unicode's decimal digits come in runs of ten from zero.
	start := r
	for unicode.IsDigit(start - 1) {
		start--
	}
	return byte('0' + (r-start)%10), true
}

// javaIsWhitespace is Java's Character.isWhitespace of a char.
func javaIsWhitespace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r >= 0x1C && r <= 0x1F:
		return true
	case r == 0xA0 || r == 0x2007 || r == 0x202F:
		return false
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}
