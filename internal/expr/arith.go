package expr

import (
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

var errDivideByZero = errs.New(errs.InvalidArgument, "", "division by zero")

// arith evaluates arithmetic with Spark's ANSI semantics: integer overflow
// and division by zero are errors, / on integers is a double division.
func (ev *evaluator) arith(n *arithN, l, r value) (value, error) {
	if isDecimal(n.t) {
		return ev.decimalArith(n, l, r)
	}
	switch n.op {
	case Add, Sub, Mul:
		if isIntegral(n.t) {
			// Arrow's checked kernels miss a signed overflow below the
			// minimum (-2147483648 + -1): the integers are checked here.
			li, ri := intsOf(l), intsOf(r)
			return ev.numericRows(l, r, n.t, func(i int) (any, error) {
				if v, ok := exactIntOp(n.op, li(i), ri(i)); ok {
					if x, err := narrowInt(v, n.t); err == nil {
						return x, nil
					}
				}
				return nil, errs.New(errs.InvalidArgument, "", "arithmetic overflow: %s result does not fit %s", n.op, typeName(n.t))
			})
		}
		name := map[Op]string{Add: "add", Sub: "subtract", Mul: "multiply"}[n.op]
		v, err := ev.call(name, nil, l, r)
		if err != nil {
			return value{}, errs.New(errs.InvalidArgument, "", "arithmetic overflow: %s result does not fit %s", n.op, typeName(n.t))
		}
		return v, nil
	case Div:
		lf, rf := floatsOf(l), floatsOf(r)
		return ev.numericRows(l, r, n.t, func(i int) (any, error) {
			d := rf(i)
			if d == 0 {
				return nil, errDivideByZero
			}
			return lf(i) / d, nil
		})
	case Mod:
		if isFloating(n.t) {
			lf, rf := floatsOf(l), floatsOf(r)
			return ev.numericRows(l, r, n.t, func(i int) (any, error) {
				d := rf(i)
				if d == 0 {
					return nil, errDivideByZero
				}
				m := math.Mod(lf(i), d)
				if isType(n.t, schema.Float) {
					return float32(m), nil
				}
				return m, nil
			})
		}
		li, ri := intsOf(l), intsOf(r)
		return ev.numericRows(l, r, n.t, func(i int) (any, error) {
			d := ri(i)
			if d == 0 {
				return nil, errDivideByZero
			}
			return narrowInt(li(i)%d, n.t)
		})
	case IntDiv:
		if isDecimal(n.l.Type()) {
			return ev.decimalDiv(n, l, r)
		}
		li, ri := intsOf(l), intsOf(r)
		return ev.numericRows(l, r, n.t, func(i int) (any, error) {
			a, d := li(i), ri(i)
			if d == 0 {
				return nil, errDivideByZero
			}
			if a == math.MinInt64 && d == -1 {
				return nil, errs.New(errs.InvalidArgument, "", "arithmetic overflow: DIV result does not fit BIGINT")
			}
			return a / d, nil
		})
	}
	return value{}, fmt.Errorf("unknown operator %s", n.op)
}

// exactIntOp is a + b, a - b or a * b when it fits an int64.
func exactIntOp(op Op, a, b int64) (int64, bool) {
	switch op {
	case Add:
		s := a + b
		return s, (s > a) == (b > 0)
	case Sub:
		s := a - b
		return s, (s < a) == (b > 0)
	}
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	return p, p/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
}

// numericRows builds a result row by row where both operands are valid.
func (ev *evaluator) numericRows(l, r value, t schema.Type, f func(i int) (any, error)) (value, error) {
	lv, rv := validity(l), validity(r)
	b, err := newBuilder(ev.mem, t)
	if err != nil {
		return value{}, err
	}
	defer b.Release()
	b.Reserve(ev.n)
	for i := 0; i < ev.n; i++ {
		if !lv(i) || !rv(i) {
			b.AppendNull()
			continue
		}
		v, err := f(i)
		if err != nil {
			return value{}, err
		}
		appendValue(b, v)
	}
	return value{arr: b.NewArray()}, nil
}

// narrowInt converts an int64 to the Go kind of integral type t.
func narrowInt(v int64, t schema.Type) (any, error) {
	switch primName(t) {
	case schema.Byte:
		if v >= math.MinInt8 && v <= math.MaxInt8 {
			return int8(v), nil
		}
	case schema.Short:
		if v >= math.MinInt16 && v <= math.MaxInt16 {
			return int16(v), nil
		}
	case schema.Integer:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return int32(v), nil
		}
	case schema.Long:
		return v, nil
	}
	return nil, errs.New(errs.InvalidArgument, "", "arithmetic overflow: %d does not fit %s", v, typeName(t))
}

// decimalArith computes exactly with big integers, then rounds half up to
// the result scale; a result beyond the result precision is an error.
func (ev *evaluator) decimalArith(n *arithN, l, r value) (value, error) {
	ld, rd := n.l.Type().(*schema.Decimal), n.r.Type().(*schema.Decimal)
	res := n.t.(*schema.Decimal)
	return ev.mapRows([]value{l, r}, n.t, true, func(v []any) (any, error) {
		a, b := v[0].(decimal128.Num).BigInt(), v[1].(decimal128.Num).BigInt()
		var num *big.Int
		var scale int
		switch n.op {
		case Add, Sub, Mod:
			scale = max(ld.Scale, rd.Scale)
			a = new(big.Int).Mul(a, pow10(scale-ld.Scale))
			b = new(big.Int).Mul(b, pow10(scale-rd.Scale))
			switch n.op {
			case Add:
				num = a.Add(a, b)
			case Sub:
				num = a.Sub(a, b)
			default:
				if b.Sign() == 0 {
					return nil, errDivideByZero
				}
				num = new(big.Int).Rem(a, b)
			}
		case Mul:
			num, scale = a.Mul(a, b), ld.Scale+rd.Scale
		case Div:
			if b.Sign() == 0 {
				return nil, errDivideByZero
			}
			// a/10^s1 ÷ b/10^s2 at scale s: a·10^(s-s1+s2) / b.
			shift := res.Scale - ld.Scale + rd.Scale
			if shift >= 0 {
				a = new(big.Int).Mul(a, pow10(shift))
			} else {
				b = new(big.Int).Mul(b, pow10(-shift))
			}
			num, scale = divRound(a, b), res.Scale
		}
		return fitDecimal(num, scale, res)
	})
}

// decimalDiv is DIV of decimals as Spark's IntegralDivide: the quotient
// truncated toward zero, failing beyond DECIMAL(38,0), then its low 64
// bits as a BIGINT (Decimal.toLong, which wraps).
func (ev *evaluator) decimalDiv(n *arithN, l, r value) (value, error) {
	ld, rd := n.l.Type().(*schema.Decimal), n.r.Type().(*schema.Decimal)
	return ev.mapRows([]value{l, r}, tLong, true, func(v []any) (any, error) {
		a, b := v[0].(decimal128.Num).BigInt(), v[1].(decimal128.Num).BigInt()
		if b.Sign() == 0 {
			return nil, errDivideByZero
		}
		// a/10^s1 ÷ b/10^s2 = a·10^s2 / (b·10^s1)
		q := new(big.Int).Quo(a.Mul(a, pow10(rd.Scale)), b.Mul(b, pow10(ld.Scale)))
		if len(new(big.Int).Abs(q).String()) > maxPrecision {
			return nil, errs.New(errs.InvalidArgument, "", "[NUMERIC_VALUE_OUT_OF_RANGE] %s cannot be represented as DECIMAL(38,0)", q)
		}
		return int64(new(big.Int).And(q, new(big.Int).SetUint64(math.MaxUint64)).Uint64()), nil
	})
}

// divRound divides rounding half away from zero.
func divRound(a, b *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() != 0 {
		m2 := new(big.Int).Abs(m)
		m2.Lsh(m2, 1)
		if m2.Cmp(new(big.Int).Abs(b)) >= 0 {
			if (a.Sign() < 0) != (b.Sign() < 0) {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	return q
}

// fitDecimal rescales an unscaled value from scale to t's scale, rounding
// half up, and checks t's precision.
func fitDecimal(num *big.Int, scale int, t *schema.Decimal) (decimal128.Num, error) {
	switch {
	case scale < t.Scale:
		num = new(big.Int).Mul(num, pow10(t.Scale-scale))
	case scale > t.Scale:
		num = divRound(num, pow10(scale-t.Scale))
	}
	if len(new(big.Int).Abs(num).String()) > t.Precision {
		return decimal128.Num{}, errs.New(errs.InvalidArgument, "", "decimal overflow: the value does not fit %s", typeName(t))
	}
	return decimal128.FromBigInt(num), nil
}
