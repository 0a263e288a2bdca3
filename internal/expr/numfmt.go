package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// format_number(x, d) as Spark's FormatNumber computes it with d digits:
// java.text.DecimalFormat("#,##0.000...", Locale.US), which rounds half
// to even. Integers and decimals are rounded exactly; a double is printed
// with Java's digits for it (the shortest that read back as it, padded
// with zeros), rounded half to even on its exact binary value when d cuts
// them. A double of 2^53 or more is refused on the row: its digits are
// those of the JVM's FloatingDecimal, which is not shortest before Java 19
// (1e23 prints as 99,999,999,999,999,990,000,000). A pattern as d is
// refused.

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
		return nil, errAt(e.Args[1], "format_number with a DecimalFormat pattern (%s) is not supported; give the number of decimal places", e.Args[1])
	}
	if d, err = b.narrowIntOperand(e, e.Args[1], false); err != nil {
		return nil, err
	}
	return b.fold(&callN{fn: e.Name, args: []node{x, d}, t: tString}, e)
}

// formatNumberFunction evaluates format_number.
func (ev *evaluator) formatNumberFunction(n *callN, args []value) (value, error) {
	from := n.args[0].Type()
	return ev.mapRows(args, tString, true, func(v []any) (any, error) {
		d := int(v[1].(int32))
		if d < 0 {
			return nil, nil
		}
		switch x := v[0].(type) {
		case int64:
			r := new(big.Rat).SetInt64(x)
			return groupDigits(x < 0, roundHalfEven(r.Abs(r), d), d), nil
		case decimal128.Num:
			sc := int32(from.(*schema.Decimal).Scale)
			r := new(big.Rat).SetFrac(x.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sc)), nil))
			return groupDigits(x.Sign() < 0, roundHalfEven(r.Abs(r), d), d), nil
		case float64:
			return formatNumberDouble(x, d)
		}
		return nil, nil
	})
}

// formatNumberDouble is DecimalFormat's rendering of x with d decimal places.
func formatNumberDouble(x float64, d int) (any, error) {
	neg := x < 0 || x == 0 && math.Signbit(x)
	switch {
	case math.IsNaN(x):
		return "NaN", nil
	case math.IsInf(x, 1):
		return "∞", nil
	case math.IsInf(x, -1):
		return "-∞", nil
	case math.Abs(x) >= 1<<53:
		return nil, errs.New(errs.InvalidArgument, "", "format_number(%v, %d): the digits Java prints for a double of 2^53 or more depend on the JVM version; not supported", x, d)
	}
	a := math.Abs(x)
	// The shortest digits: mantissa digits and exponent.
	e := strconv.FormatFloat(a, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	ex, _ := strconv.Atoi(exp)
	if frac := len(digits) - 1 - ex; frac <= d {
		r, _ := new(big.Rat).SetString(strings.TrimLeft(digits, "0") + "e" + strconv.Itoa(ex-len(digits)+1))
		if r == nil {
			r = new(big.Rat)
		}
		return groupDigits(neg, roundHalfEven(r, d), d), nil
	}
	r := new(big.Rat).SetFloat64(a)
	return groupDigits(neg, roundHalfEven(r, d), d), nil
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

// groupDigits writes v / 10^d with d decimals and the integer part in
// groups of three, '-' first when neg (also for a value that rounds to
// zero, as DecimalFormat writes it).
func groupDigits(neg bool, v *big.Int, d int) string {
	s := v.String()
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	intPart, frac := s[:len(s)-d], s[len(s)-d:]
	var sb strings.Builder
	if neg {
		sb.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(c)
	}
	if d > 0 {
		sb.WriteString("." + frac)
	}
	return sb.String()
}
