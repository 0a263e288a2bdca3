package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// format_number(x, d) and format_number(x, 'pattern') as Spark's
// FormatNumber computes them: java.text.DecimalFormat with Locale.US's
// symbols, which rounds half to even; with d digits the pattern is
// #,##0.000... (d zeros), and an empty pattern is #,###,###,###,###,###,##0.
// Integers and decimals are rounded exactly; a double is printed with
// Java's digits for it (the shortest that read back as it, padded with
// zeros), rounded half to even on its exact binary value when the
// fraction digits cut them. A double of 2^53 or more is refused on the
// row: its digits are those of the JVM's FloatingDecimal, which is not
// shortest before Java 19 (1e23 prints as 99,999,999,999,999,990,000,000).
// A pattern (a column's, read on each row, or a constant) is read as
// DecimalFormat.applyLocalizedPattern reads it: a
// prefix and a suffix of literal text (quoted with '), an integer part of
// # then 0 with , grouping, a fraction of 0 then #, % to multiply by 100
// and a negative subpattern after ;. An exponent (E), per mille and
// currency signs, and a pattern outside this shape are refused, naming
// the part (a constant pattern when bound).

// decFormat is a parsed DecimalFormat pattern.
type decFormat struct {
	posPrefix, posSuffix, negPrefix, negSuffix string
	minInt, minFrac, maxFrac, grouping         int
	percent, pointAlways                       bool
}

// fixedFormat is the pattern of format_number(x, d): #,##0.000 (d zeros).
func fixedFormat(d int) *decFormat {
	return &decFormat{negPrefix: "-", minInt: 1, minFrac: d, maxFrac: d, grouping: 3}
}

// parseDecimalPattern reads pattern as DecimalFormat does, within the
// shape this engine formats.
func parseDecimalPattern(pattern string) (*decFormat, error) {
	if pattern == "" {
		pattern = "#,###,###,###,###,###,##0"
	}
	f := &decFormat{}
	subs := splitUnquoted(pattern)
	if len(subs) > 2 {
		return nil, fmt.Errorf("the pattern %q has more than one ';'", pattern)
	}
	var err error
	var number string
	if f.posPrefix, number, f.posSuffix, err = splitAffixes(pattern, subs[0], &f.percent); err != nil {
		return nil, err
	}
	f.negPrefix, f.negSuffix = "-"+f.posPrefix, f.posSuffix
	if len(subs) == 2 && subs[1] != "" {
		if f.negPrefix, _, f.negSuffix, err = splitAffixes(pattern, subs[1], &f.percent); err != nil {
			return nil, err
		}
	}
	intPart, frac, hasPoint := strings.Cut(number, ".")
	malformed := fmt.Errorf("the pattern %q is malformed (Java's DecimalFormat refuses it)", pattern)
	if strings.Contains(frac, ".") {
		return nil, malformed
	}
	f.pointAlways = hasPoint && frac == ""
	zeros, hashes, afterComma, comma := 0, 0, 0, false
	for _, c := range intPart {
		switch c {
		case '#':
			if zeros > 0 {
				return nil, malformed
			}
			hashes++
			afterComma++
		case '0':
			zeros++
			afterComma++
		case ',':
			comma, afterComma = true, 0
		}
	}
	if comma {
		if afterComma == 0 {
			return nil, malformed
		}
		f.grouping = afterComma
	}
	fracHashes := 0
	for _, c := range frac {
		switch c {
		case '0':
			if fracHashes > 0 {
				return nil, malformed
			}
			f.minFrac++
		case '#':
			fracHashes++
		case ',':
			return nil, malformed
		}
	}
	f.maxFrac = f.minFrac + fracHashes
	f.minInt = zeros
	if zeros == 0 && f.minFrac == 0 && hasPoint && hashes+fracHashes > 0 {
		// DecimalFormat reads "#.##" as "0.##", and ".##" as ".0#".
		if hashes > 0 {
			f.minInt = 1
		} else {
			f.minFrac = 1
		}
	}
	if zeros+hashes+f.maxFrac == 0 {
		return nil, fmt.Errorf("the pattern %q has no digit # or 0; not supported", pattern)
	}
	return f, nil
}

// splitUnquoted splits pattern at each ';' outside quotes.
func splitUnquoted(pattern string) []string {
	var out []string
	quoted, start := false, 0
	for i, c := range pattern {
		switch {
		case c == '\'':
			quoted = !quoted
		case c == ';' && !quoted:
			out = append(out, pattern[start:i])
			start = i + 1
		}
	}
	return append(out, pattern[start:])
}

// splitAffixes splits a subpattern into its prefix text, number part and
// suffix text, quotes resolved; % sets percent.
func splitAffixes(pattern, sub string, percent *bool) (prefix, number, suffix string, err error) {
	var pre, suf, num strings.Builder
	phase := 0
	rs := []rune(sub)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		special := c == '#' || c == '0' || c == ',' || c == '.'
		switch {
		case phase == 1 && (special || c == 'E'):
			if c == 'E' {
				return "", "", "", fmt.Errorf("the pattern %q has an exponent (E), which is not supported", pattern)
			}
			num.WriteRune(c)
			continue
		case phase == 0 && special:
			phase = 1
			num.WriteRune(c)
			continue
		case phase == 1:
			phase = 2
		}
		out := &pre
		if phase == 2 {
			out = &suf
		}
		switch {
		case c == '\'':
			j := i + 1
			if j < len(rs) && rs[j] == '\'' {
				out.WriteRune('\'')
				i = j
				continue
			}
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j >= len(rs) {
				return "", "", "", fmt.Errorf("the pattern %q has an unterminated quote", pattern)
			}
			out.WriteString(string(rs[i+1 : j]))
			i = j
		case special:
			return "", "", "", fmt.Errorf("the pattern %q has the character %q after its number part, unquoted; not supported", pattern, c)
		case c == '%':
			*percent = true
			out.WriteRune(c)
		case c == '\u2030' || c == '\u00a4':
			return "", "", "", fmt.Errorf("the pattern %q has the sign %q, which is not supported", pattern, c)
		default:
			out.WriteRune(c)
		}
	}
	return pre.String(), num.String(), suf.String(), nil
}

// bindFormatNumber binds format_number.
func (b *binder) bindFormatNumber(e *Call) (node, error) {
	x, err := b.bind(e.Args[0])
	if err != nil {
		return nil, err
	}
	switch t := x.Type(); {
	case isIntegral(t):
		x, err = b.coerce(x, tLong, e.Args[0])
	case isFloating(t):
		x, err = b.coerce(x, tDouble, e.Args[0])
	case isDecimal(t), isVoid(t):
	default:
		return nil, errAt(e.Args[0], "format_number needs a number, not %s (%s)", e.Args[0], typeName(t))
	}
	if err != nil {
		return nil, err
	}
	d, err := b.bind(e.Args[1])
	if err != nil {
		return nil, err
	}
	if isString(d.Type()) {
		if l, ok := d.(*lit); ok && l.v != nil {
			if _, err := parseDecimalPattern(l.v.(string)); err != nil {
				return nil, errAt(e.Args[1], "format_number: %v", err)
			}
		}
		return b.fold(&callN{fn: e.Name, args: []node{x, d}, t: tString}, e)
	}
	if d, err = b.narrowIntOperand(e, e.Args[1], false); err != nil {
		return nil, err
	}
	return b.fold(&callN{fn: e.Name, args: []node{x, d}, t: tString}, e)
}

// formatNumberFunction evaluates format_number.
func (ev *evaluator) formatNumberFunction(n *callN, args []value) (value, error) {
	from := n.args[0].Type()
	last, lastFormat := "", (*decFormat)(nil)
	return ev.mapRows(args, tString, true, func(v []any) (any, error) {
		var f *decFormat
		switch d := v[1].(type) {
		case int32:
			if d < 0 {
				return nil, nil
			}
			f = fixedFormat(int(d))
		case string:
			if lastFormat == nil || d != last {
				p, err := parseDecimalPattern(d)
				if err != nil {
					return nil, errs.New(errs.InvalidArgument, "", "format_number: %v", err)
				}
				last, lastFormat = d, p
			}
			f = lastFormat
		}
		return f.format(v[0], from)
	})
}

// format is DecimalFormat.format of x, a long, decimal or double.
func (f *decFormat) format(x any, from schema.Type) (any, error) {
	switch x := x.(type) {
	case int64:
		r := new(big.Rat).SetInt64(x)
		return f.layout(x < 0, f.round(r.Abs(r))), nil
	case decimal128.Num:
		sc := int32(from.(*schema.Decimal).Scale)
		r := new(big.Rat).SetFrac(x.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sc)), nil))
		return f.layout(x.Sign() < 0, f.round(r.Abs(r))), nil
	case float64:
		return f.formatDouble(x)
	}
	return nil, nil
}

// round is r (not negative) with maxFrac decimals, as an integer of
// units of 10^-maxFrac, rounded half to even; % multiplies it by 100.
func (f *decFormat) round(r *big.Rat) *big.Int {
	if f.percent {
		r = new(big.Rat).Mul(r, big.NewRat(100, 1))
	}
	return roundHalfEven(r, f.maxFrac)
}

// formatDouble is DecimalFormat's rendering of a double.
func (f *decFormat) formatDouble(x float64) (any, error) {
	if f.percent {
		x *= 100 // as DecimalFormat multiplies, in double arithmetic
	}
	neg := x < 0 || x == 0 && math.Signbit(x)
	switch {
	case math.IsNaN(x):
		return "NaN", nil
	case math.IsInf(x, 1):
		return f.posPrefix + "∞" + f.posSuffix, nil
	case math.IsInf(x, -1):
		return f.negPrefix + "∞" + f.negSuffix, nil
	case math.Abs(x) >= 1<<53:
		return nil, errs.New(errs.InvalidArgument, "", "format_number(%v): the digits Java prints for a double of 2^53 or more depend on the JVM version; not supported", x)
	}
	a := math.Abs(x)
	// The shortest digits: mantissa digits and exponent.
	e := strconv.FormatFloat(a, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	ex, _ := strconv.Atoi(exp)
	if frac := len(digits) - 1 - ex; frac <= f.maxFrac {
		r, _ := new(big.Rat).SetString(strings.TrimLeft(digits, "0") + "e" + strconv.Itoa(ex-len(digits)+1))
		if r == nil {
			r = new(big.Rat)
		}
		return f.layout(neg, roundHalfEven(r, f.maxFrac)), nil
	}
	r := new(big.Rat).SetFloat64(a)
	return f.layout(neg, roundHalfEven(r, f.maxFrac)), nil
}

// roundHalfEven is r (not negative) times 10^d, rounded half to even.
func roundHalfEven(r *big.Rat, d int) *big.Int {
	s := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil)))
	q, m := new(big.Int).QuoRem(s.Num(), s.Denom(), new(big.Int))
	switch c := new(big.Int).Lsh(m, 1).Cmp(s.Denom()); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	return q
}

// layout writes v / 10^maxFrac as the pattern lays it out: at least
// minInt integer digits grouped, the fraction's trailing zeros cut down
// to minFrac, the prefix and suffix of the sign (negative also for a
// value that rounds to zero, as DecimalFormat writes it).
func (f *decFormat) layout(neg bool, v *big.Int) string {
	s := v.String()
	if len(s) <= f.maxFrac {
		s = strings.Repeat("0", f.maxFrac-len(s)+1) + s
	}
	intPart, frac := strings.TrimLeft(s[:len(s)-f.maxFrac], "0"), s[len(s)-f.maxFrac:]
	for len(frac) > f.minFrac && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if len(intPart) < f.minInt {
		intPart = strings.Repeat("0", f.minInt-len(intPart)) + intPart
	}
	if intPart == "" && frac == "" {
		intPart = "0"
	}
	var sb strings.Builder
	prefix, suffix := f.posPrefix, f.posSuffix
	if neg {
		prefix, suffix = f.negPrefix, f.negSuffix
	}
	sb.WriteString(prefix)
	for i, c := range intPart {
		if i > 0 && f.grouping > 0 && (len(intPart)-i)%f.grouping == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(c)
	}
	if frac != "" || f.pointAlways {
		sb.WriteString("." + frac)
	}
	sb.WriteString(suffix)
	return sb.String()
}
