package expr

import (
	"math"
	"math/big"
	"strconv"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// rounding binds ROUND(x[, d]), FLOOR(x) and CEIL(x) with Spark's result
// types: ROUND keeps x's type (a decimal keeps at most d digits of scale
// and gains an integer digit); FLOOR and CEIL give a BIGINT, or a decimal
// of scale 0 for a decimal.
func (b *binder) rounding(e *Call) (node, error) {
	x, err := b.bind(e.Args[0])
	if err != nil {
		return nil, err
	}
	xt := x.Type()
	if isVoid(xt) {
		return &lit{t: tVoid, src: e}, nil
	}
	if !isNumeric(xt) {
		return nil, errAt(e.Args[0], "%s needs a number, not %s (%s)", e.Name, typeName(xt), e.Args[0])
	}
	n := &callN{fn: e.Name, args: []node{x}}
	if e.Name != "round" && e.Name != "bround" {
		n.t = tLong
		if d, ok := xt.(*schema.Decimal); ok {
			n.t = &schema.Decimal{Precision: min(d.Precision-d.Scale+1, maxPrecision)}
			if d.Scale == 0 {
				n.t = d
			}
		}
		return b.fold(n, e)
	}
	if len(e.Args) == 2 {
		dn, err := b.bind(e.Args[1])
		if err != nil {
			return nil, err
		}
		l, ok := dn.(*lit)
		if !ok || !isIntegral(l.t) || l.v == nil {
			return nil, errAt(e.Args[1], "%s takes a constant integer number of digits, not %s", e.Name, e.Args[1])
		}
		r, _ := toRat(l.v, l.t)
		if !r.Num().IsInt64() || r.Num().Int64() < math.MinInt32 || r.Num().Int64() > math.MaxInt32 {
			return nil, errAt(e.Args[1], "%s: %s digits is out of range", e.Name, e.Args[1])
		}
		n.scale = int(r.Num().Int64())
		n.args = append(n.args, l)
	}
	n.t = xt
	if d, ok := xt.(*schema.Decimal); ok {
		intDigits := d.Precision - d.Scale + 1
		if n.scale < 0 {
			n.t = &schema.Decimal{Precision: min(max(intDigits, -n.scale+1), maxPrecision)}
		} else {
			s := min(d.Scale, n.scale)
			n.t = &schema.Decimal{Precision: min(intDigits+s, maxPrecision), Scale: s}
		}
	}
	return b.fold(n, e)
}

// roundValue applies round (half up, at digits d), floor or ceil to one
// value of type from, giving a value of type to. A double is rounded as
// its shortest decimal text, as Spark rounds through Java's BigDecimal.
func roundValue(fn string, v any, from, to schema.Type, d int) (any, error) {
	d = min(max(d, minRoundDigits), maxRoundDigits)
	if f, ok := asFloat(v); ok {
		if fn != "round" && fn != "bround" {
			if fn == "floor" {
				f = math.Floor(f)
			} else {
				f = math.Ceil(f)
			}
			return javaLong(f), nil
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return v, nil
		}
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
		out, _ := ratAt(roundAt(r, d, fn == "bround"), d).Float64()
		return castNumber(out, tDouble, to)
	}
	r, ok := toRat(v, from)
	if !ok {
		return nil, castErr(v, from, to)
	}
	switch {
	case fn == "floor" || fn == "ceil" || fn == "ceiling":
		q := new(big.Int)
		m := new(big.Int)
		q.DivMod(r.Num(), r.Denom(), m) // Euclidean: q is the floor, the denominator being positive
		if fn != "floor" && m.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		if dt, ok := to.(*schema.Decimal); ok {
			return fitDecimal(q, 0, dt)
		}
		return q.Int64(), nil // an integer's floor is itself
	case isDecimal(to):
		num := roundAt(r, d, fn == "bround")
		scale := max(d, 0)
		if d < 0 {
			num.Mul(num, pow10(-d))
		}
		return fitDecimal(num, scale, to.(*schema.Decimal))
	}
	if d >= 0 {
		return v, nil
	}
	q := ratAt(roundAt(r, d, fn == "bround"), d)
	if !q.IsInt() || !q.Num().IsInt64() {
		return nil, roundOverflow(v, from)
	}
	out, err := narrowInt(q.Num().Int64(), to)
	if err != nil {
		return nil, roundOverflow(v, from)
	}
	return out, nil
}

func roundOverflow(v any, t schema.Type) error {
	return errs.New(errs.InvalidArgument, "", "round(%s) overflows %s", formatValue(v, t), typeName(t))
}

// Digits beyond these bounds cannot change a rounding: doubles carry no
// digit below 1e-400, and no value of these types reaches 1e40.
const minRoundDigits, maxRoundDigits = -40, 400

// roundAt rounds r half away from zero (half to even for bround) to d
// decimal digits (d < 0 rounds to tens, hundreds, ...), returning the
// unscaled integer N of N·10^-d; d is within the bounds above.
func roundAt(r *big.Rat, d int, even bool) *big.Int {
	div := divRound
	if even {
		div = divRoundEven
	}
	if d >= 0 {
		return div(new(big.Int).Mul(r.Num(), pow10(d)), r.Denom())
	}
	return div(r.Num(), new(big.Int).Mul(r.Denom(), pow10(-d)))
}

// ratAt is N·10^-d.
func ratAt(n *big.Int, d int) *big.Rat {
	if d >= 0 {
		return new(big.Rat).SetFrac(n, pow10(d))
	}
	return new(big.Rat).SetInt(new(big.Int).Mul(n, pow10(-d)))
}

// javaLong converts a double to a BIGINT as Java's cast does (and so
// Spark's floor and ceil): NaN is 0, values beyond the range saturate.
func javaLong(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}
