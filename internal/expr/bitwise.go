package expr

import (
	"math/bits"

	"github.com/deltalite-go/deltalite/schema"
)

// The bitwise operators &, |, ^ and ~ and bit_count, as Spark 4 computes
// them: operands of integral types (a narrower one widened to the wider,
// as for +; a text with an integer makes both BIGINT), the result of
// their type; bit_count of an integral or a
// boolean, the bits of the value sign-extended to 64 (Long.bitCount).

// bitOps are the operators' names as calls; they render back as operators.
var bitOps = map[string]Op{"&": BitAnd, "|": BitOr, "^": BitXor, "~": BitNot}

// bitFuncs are the names bindBitFunc binds: bit_count (the operators bind
// from Binary and Unary through bitwise).
var bitFuncs = map[string]bool{"bit_count": true}

// bitEvals are the calls bitFunction evaluates.
var bitEvals = map[string]bool{"&": true, "|": true, "^": true, "~": true, "bit_count": true}

// bitwise binds x & y, x | y, x ^ y (two operands) and ~x (one).
func (b *binder) bitwise(e Expr, op Op, srcs ...Expr) (node, error) {
	args := make([]node, len(srcs))
	var t schema.Type = tVoid
	texts := 0
	for i, s := range srcs {
		n, err := b.bind(s)
		if err != nil {
			return nil, err
		}
		st := n.Type()
		if isString(st) && len(srcs) == 2 {
			// A text meeting an integer: both BIGINT, the text cast.
			st, texts = tLong, texts+1
		}
		if !isIntegral(st) && !isVoid(st) || texts == 2 {
			return nil, errAt(e, "%s needs integral operands (TINYINT, SMALLINT, INT, BIGINT), not %s (%s); CAST it to one", e, s, typeName(st))
		}
		if isVoid(t) {
			t = st
		} else if !isVoid(st) {
			t = numericCommon(t, st)
		}
		args[i] = n
	}
	if isVoid(t) {
		t = tInt // NULL & NULL, ~NULL: Spark reads the NULLs as INT
	}
	for i, n := range args {
		c, err := b.coerce(n, t, srcs[i])
		if err != nil {
			return nil, err
		}
		args[i] = c
	}
	return b.fold(&callN{fn: string(op), args: args, t: t}, e)
}

// bindBitFunc binds bit_count.
func (b *binder) bindBitFunc(e *Call) (node, error) {
	x, err := b.bind(e.Args[0])
	if err != nil {
		return nil, err
	}
	t := x.Type()
	if !isIntegral(t) && !isBool(t) && !isVoid(t) {
		return nil, errAt(e, "bit_count needs an integral or a boolean, not %s (%s)", e.Args[0], typeName(t))
	}
	return b.fold(&callN{fn: e.Name, args: []node{x}, t: tInt}, e)
}

// bitFunction evaluates the operators and bit_count.
func (ev *evaluator) bitFunction(n *callN, args []value) (value, error) {
	return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
		if n.fn == "bit_count" {
			if x, ok := v[0].(bool); ok {
				if x {
					return int32(1), nil
				}
				return int32(0), nil
			}
			return int32(bits.OnesCount64(uint64(toInt64(v[0])))), nil
		}
		x := toInt64(v[0])
		var r int64
		switch n.fn {
		case "~":
			r = ^x
		case "&":
			r = x & toInt64(v[1])
		case "|":
			r = x | toInt64(v[1])
		default:
			r = x ^ toInt64(v[1])
		}
		return narrowInt(r, n.t) // within the type: the operands are
	})
}
