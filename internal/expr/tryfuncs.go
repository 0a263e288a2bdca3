package expr

import (
	"strings"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/schema"
)

// The try_ functions, as Spark 4 computes them: try_add, try_subtract,
// try_multiply and try_divide are +, -, * and / (their types, a date plus
// or minus days included) with NULL where the operator's ANSI error (an
// overflow, a division by zero) would fail the row; try_to_binary(s[,
// fmt]) is to_binary's hex (the default), utf-8 or base64 reading of s,
// NULL where that fails or fmt is none of them.

// tryNames are the names bindTryFunc binds.
var tryNames = map[string]bool{"try_add": true, "try_subtract": true, "try_multiply": true, "try_divide": true, "try_to_binary": true}

// tryOps are the operators of the arithmetic try_ functions.
var tryOps = map[string]Op{"try_add": Add, "try_subtract": Sub, "try_multiply": Mul, "try_divide": Div}

// bindTryFunc binds the functions of this file.
func (b *binder) bindTryFunc(e *Call) (node, error) {
	if e.Name == "try_to_binary" {
		return b.bindTryToBinary(e)
	}
	// The operator binds lazily: a constant that fails is NULL, not an
	// error when bound.
	b.lazy++
	n, err := b.bind(&Binary{At: e.At, Op: tryOps[e.Name], L: e.Args[0], R: e.Args[1]})
	b.lazy--
	if err != nil {
		return nil, err
	}
	var args []node
	switch n := n.(type) {
	case *lit:
		return &lit{v: n.v, t: n.t, src: e}, nil
	case *arithN:
		args = []node{n.l, n.r}
	case *dateArithN:
		args = []node{n.d, n.n}
	default:
		return nil, errAt(e, "%s cannot take %s and %s", e.Name, e.Args[0], e.Args[1])
	}
	return b.fold(&callN{fn: e.Name, args: args, t: n.Type(), op: n}, e)
}

// bindTryToBinary binds try_to_binary(s[, fmt]), fmt a constant.
func (b *binder) bindTryToBinary(e *Call) (node, error) {
	s, err := b.stringOperand(e.Args[0])
	if err != nil {
		return nil, err
	}
	args := []node{s}
	if len(e.Args) == 2 {
		f, err := b.stringOperand(e.Args[1])
		if err != nil {
			return nil, err
		}
		if _, ok := f.(*lit); !ok {
			return nil, errAt(e.Args[1], "try_to_binary takes a constant format ('hex', 'utf-8', 'utf8' or 'base64'), not %s", e.Args[1])
		}
		args = append(args, f)
	}
	return b.fold(&callN{fn: e.Name, args: args, t: &schema.Primitive{Name: schema.Binary}}, e)
}

// tryFunction evaluates the calls bindTryFunc makes.
func (ev *evaluator) tryFunction(n *callN, args []value) (value, error) {
	if n.fn == "try_to_binary" {
		return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
			format := "hex"
			if len(v) > 1 {
				format = strings.ToLower(v[1].(string))
			}
			return toBinary(v[0].(string), format), nil
		})
	}
	out, err := ev.tryOp(n.op, args[0], args[1])
	if err == nil {
		return out, nil
	}
	// A row failed: each row on its own, NULL where it fails.
	b, err := newBuilder(ev.mem, n.t)
	if err != nil {
		return value{}, err
	}
	defer b.Release()
	one := &evaluator{ctx: ev.ctx, mem: ev.mem, inputs: ev.inputs, n: 1, loc: ev.loc}
	for i := 0; i < ev.n; i++ {
		l, r := rowValue(args[0], i), rowValue(args[1], i)
		v, err := one.tryOp(n.op, l, r)
		l.release()
		r.release()
		if err != nil {
			b.AppendNull()
			continue
		}
		appendValue(b, anyOf(v)(0))
		v.release()
	}
	return value{arr: b.NewArray()}, nil
}

// tryOp evaluates the operator of a try_ function on its operands.
func (ev *evaluator) tryOp(op node, l, r value) (value, error) {
	if d, ok := op.(*dateArithN); ok {
		return ev.dateArith(d.sub, l, r)
	}
	return ev.arith(op.(*arithN), l, r)
}

// rowValue is row i of v as a value of one row; the caller releases it.
func rowValue(v value, i int) value {
	if v.arr == nil {
		return value{sc: v.sc}
	}
	return value{arr: array.NewSlice(v.arr, int64(i), int64(i+1))}
}

// toBinary is Spark's to_binary(s, format) in try mode: nil where s does
// not read in the format or the format is unknown.
func toBinary(s, format string) any {
	switch format {
	case "hex":
		return unhex(s)
	case "utf-8", "utf8":
		return []byte(s)
	case "base64":
		if !strictBase64(s) {
			return nil
		}
		if out, err := unbase64(s); err == nil {
			return out
		}
	}
	return nil
}

// strictBase64 is the check Spark's UnBase64 makes before decoding for
// to_binary: white space ignored before any padding, at most two '='
// ending the text, nothing but the alphabet otherwise, and the last group
// of 2 to 4 symbols completed to 4 by its padding when it has any.
func strictBase64(s string) bool {
	symbols, pad := 0, 0
	for _, c := range s {
		switch {
		case c == '=':
			if pad++; pad > 2 {
				return false
			}
		case pad > 0:
			return false
		case javaWhitespace(c):
		case base64Value(c) < 0:
			return false
		default:
			symbols++
		}
	}
	switch k := symbols % 4; {
	case k == 1:
		return false
	case pad > 0:
		return k != 0 && k+pad == 4
	}
	return true
}

// javaWhitespace is Java's Character.isWhitespace.
func javaWhitespace(c rune) bool {
	switch c {
	case '\u00a0', '\u2007', '\u202f':
		return false
	}
	return c >= 0x09 && c <= 0x0d || c >= 0x1c && c <= 0x1f || unicode.In(c, unicode.Zs, unicode.Zl, unicode.Zp)
}
