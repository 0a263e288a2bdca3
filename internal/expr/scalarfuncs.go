package expr

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// Scalar functions of Delta's allowed expressions, as Spark 4 computes
// them with ANSI mode: iff, negative, positive, e, pi, mod, typeof,
// bround, factorial, elt, find_in_set, charindex, assert_true and the
// CASE form of decode (sentences is refused by name). Those that are another expression under another
// name (iff is if, charindex is locate, mod is %, negative and positive
// the unary - and +, decode(x, s1, r1, ...) a CASE of x <=> s1, ...) bind
// as that expression and render as it.

// scalarNames are the names bindScalarFunc binds.
var scalarNames = map[string]bool{"iff": true, "negative": true, "positive": true, "e": true, "pi": true, "mod": true,
	"typeof": true, "bround": true, "factorial": true, "elt": true, "find_in_set": true, "charindex": true,
	"assert_true": true, "decode": true, "sentences": true}

// scalarEvals are the calls scalarFunction evaluates.
var scalarEvals = map[string]bool{"bround": true, "factorial": true, "elt": true, "find_in_set": true, "assert_true": true}

// bindScalarFunc binds the functions of this file.
func (b *binder) bindScalarFunc(e *Call) (node, error) {
	as := func(name string) *Call { return &Call{At: e.At, Name: name, Args: e.Args} }
	switch e.Name {
	case "sentences":
		return nil, errAt(e, "sentences is not supported: Spark splits the text with java.text.BreakIterator's sentence and word rules of a locale (the JVM's by default), which this engine does not reproduce")
	case "iff":
		return b.call(as("if"))
	case "charindex":
		return b.call(as("locate"))
	case "negative", "positive":
		op := map[string]Op{"negative": Neg, "positive": Plus}[e.Name]
		x := e.Args[0]
		if l, ok := x.(*Literal); ok && l.Kind == LitNull {
			x = &Cast{At: l.At, X: l, Type: tDouble} // Spark reads NULL as a DOUBLE here
		}
		return b.bind(&Unary{At: e.At, Op: op, X: x})
	case "mod":
		return b.bind(&Binary{At: e.At, Op: Mod, L: e.Args[0], R: e.Args[1]})
	case "e", "pi":
		v := map[string]float64{"e": math.E, "pi": math.Pi}[e.Name]
		return &lit{v: v, t: tDouble, src: e}, nil
	case "typeof":
		x, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		return &lit{v: sparkTypeName(x.Type()), t: tString, src: e}, nil
	case "bround":
		return b.rounding(e)
	case "decode":
		if len(e.Args) == 2 {
			return b.bindCodecFunc(e) // decode(bin, charset)
		}
		return b.decodeCase(e)
	case "factorial":
		x, err := b.intOperand(e, e.Args[0])
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: []node{x}, t: tLong}, e)
	case "elt":
		return b.bindElt(e)
	case "find_in_set":
		args := make([]node, 2)
		for i, a := range e.Args {
			var err error
			if args[i], err = b.stringOperand(a); err != nil {
				return nil, err
			}
		}
		return b.fold(&callN{fn: e.Name, args: args, t: tInt}, e)
	}
	// assert_true(cond[, message])
	cond, err := b.boolOperand(e.Args[0])
	if err != nil {
		return nil, err
	}
	n := &callN{fn: e.Name, args: []node{cond}, t: tVoid}
	if len(e.Args) == 2 {
		msg, err := b.stringOperand(e.Args[1])
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, msg)
	}
	return b.fold(n, e)
}

// decodeCase binds decode(x, search1, result1, ..., [default]) as Spark
// does: CASE WHEN x <=> search1 THEN result1 ... ELSE default END, the
// default a NULL of type STRING when absent (so that decode(x, 1, 1) is a
// BIGINT, as a string meeting an integer).
func (b *binder) decodeCase(e *Call) (node, error) {
	c := &Case{At: e.At, Else: &Cast{At: e.At, X: &Literal{At: e.At, Kind: LitNull}, Type: tString}}
	rest := e.Args[1:]
	for len(rest) >= 2 {
		c.Whens = append(c.Whens, When{Cond: &Binary{At: rest[0].Pos(), Op: NullSafeEq, L: e.Args[0], R: rest[0]}, Then: rest[1]})
		rest = rest[2:]
	}
	if len(rest) == 1 {
		c.Else = rest[0]
	}
	return b.bind(c)
}

// bindElt binds elt(n, v1, v2, ...): n an INT, the values texts (other
// atomic values cast to text) or all binary.
func (b *binder) bindElt(e *Call) (node, error) {
	idx, err := b.intOperand(e, e.Args[0])
	if err != nil {
		return nil, err
	}
	vals := make([]node, len(e.Args)-1)
	binary := true
	for i, a := range e.Args[1:] {
		if vals[i], err = b.bind(a); err != nil {
			return nil, err
		}
		binary = binary && isType(vals[i].Type(), schema.Binary)
	}
	t := tString
	if binary {
		t = &schema.Primitive{Name: schema.Binary}
	} else {
		for i, a := range e.Args[1:] {
			if vals[i], err = b.stringOperand(a); err != nil {
				return nil, err
			}
		}
	}
	return b.fold(&callN{fn: e.Name, args: append([]node{idx}, vals...), t: t}, e)
}

// scalarFunction evaluates the calls bindScalarFunc makes.
func (ev *evaluator) scalarFunction(n *callN, args []value) (value, error) {
	switch n.fn {
	case "bround":
		from := n.args[0].Type()
		return ev.mapRows(args[:1], n.t, true, func(v []any) (any, error) { return roundValue(n.fn, v[0], from, n.t, n.scale) })
	case "elt":
		count := len(args) - 1
		return ev.mapRows(args, n.t, false, func(v []any) (any, error) {
			if v[0] == nil {
				return nil, nil
			}
			k := int(v[0].(int32))
			if k < 1 || k > count {
				return nil, errs.New(errs.InvalidArgument, "", "[INVALID_ARRAY_INDEX] The index %d is out of bounds. The array has %d elements.", k, count)
			}
			return v[k], nil
		})
	case "assert_true":
		return ev.mapRows(args, tVoid, false, func(v []any) (any, error) {
			if ok, _ := v[0].(bool); ok {
				return nil, nil
			}
			msg := fmt.Sprintf("'%s' is not true!", unbind(n.args[0], false))
			if len(v) > 1 {
				msg = "null"
				if s, ok := v[1].(string); ok {
					msg = s
				}
			}
			return nil, errs.New(errs.InvalidArgument, "", "[USER_RAISED_EXCEPTION] %s", msg)
		})
	}
	return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
		if n.fn == "factorial" {
			k := v[0].(int32)
			if k < 0 || k > 20 {
				return nil, nil
			}
			f := int64(1)
			for i := int64(2); i <= int64(k); i++ {
				f *= i
			}
			return f, nil
		}
		// find_in_set: the 1-based place of s among list's comma-separated
		// items, 0 when absent or when s holds a comma.
		s, list := v[0].(string), v[1].(string)
		if strings.Contains(s, ",") {
			return int32(0), nil
		}
		for i, item := range strings.Split(list, ",") {
			if item == s {
				return int32(i + 1), nil
			}
		}
		return int32(0), nil
	})
}

// sparkTypeName is a type as Spark's typeof names it (its catalogString).
func sparkTypeName(t schema.Type) string {
	switch t := t.(type) {
	case *schema.Decimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case *schema.Array:
		return "array<" + sparkTypeName(t.Element) + ">"
	case *schema.Map:
		return "map<" + sparkTypeName(t.Key) + "," + sparkTypeName(t.Value) + ">"
	case *schema.Struct:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = f.Name + ":" + sparkTypeName(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	}
	return strings.ToLower(typeSQL(t))
}

// divRoundEven divides rounding half to even (BigDecimal's HALF_EVEN).
func divRoundEven(a, b *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() == 0 {
		return q
	}
	m2 := new(big.Int).Abs(m)
	m2.Lsh(m2, 1)
	if c := m2.Cmp(new(big.Int).Abs(b)); c > 0 || c == 0 && q.Bit(0) == 1 {
		if (a.Sign() < 0) != (b.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}
