package expr

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// caseN is CASE WHEN whens[i] THEN thens[i] ... ELSE els END: the value of
// the first branch whose condition IS TRUE, else els (nil: NULL). Every
// branch is of type t. form says how it was written, for rendering: "" for
// a searched CASE, "simple" for CASE x WHEN v, "if" and "nullif".
type caseN struct {
	whens, thens []node
	els          node
	t            schema.Type
	form         string
}

func (n *caseN) Type() schema.Type { return n.t }

func (n *caseN) children() []node {
	out := append(append([]node(nil), n.whens...), n.thens...)
	if n.els != nil {
		out = append(out, n.els)
	}
	return out
}

// rebuilt copies n with every operand replaced by f(operand).
func (n *caseN) rebuilt(f func(node) node) *caseN {
	c := &caseN{t: n.t, form: n.form}
	for i := range n.whens {
		c.whens = append(c.whens, f(n.whens[i]))
		c.thens = append(c.thens, f(n.thens[i]))
	}
	if n.els != nil {
		c.els = f(n.els)
	}
	return c
}

// caseExpr binds CASE. Only the first condition is evaluated for every
// row; later conditions and all values are conditional, as in Spark, so a
// constant that fails to evaluate there (1/0) is an error only for the
// rows that reach it.
func (b *binder) caseExpr(e *Case) (node, error) {
	var x node
	if e.Operand != nil {
		var err error
		if x, err = b.bind(e.Operand); err != nil {
			return nil, err
		}
	}
	n := &caseN{}
	if x != nil {
		n.form = "simple"
	}
	var vals []node
	var srcs []Expr
	for i, w := range e.Whens {
		var cond node
		var err error
		if x != nil {
			cond, err = b.equal(x, e.Operand, w.Cond)
		} else if cond, err = b.bind(w.Cond); err == nil && !isBool(cond.Type()) {
			// Spark takes no untyped NULL here, unlike in AND or IF.
			return nil, errAt(w.Cond, "CASE WHEN needs a boolean condition, not %s (%s)", w.Cond, typeName(cond.Type()))
		}
		if err != nil {
			return nil, err
		}
		n.whens = append(n.whens, cond)
		if i == 0 {
			b.lazy++ // everything after the first condition
		}
		v, err := b.bind(w.Then)
		if err != nil {
			return nil, err
		}
		vals, srcs = append(vals, v), append(srcs, w.Then)
	}
	if e.Else != nil {
		v, err := b.bind(e.Else)
		if err != nil {
			return nil, err
		}
		vals, srcs = append(vals, v), append(srcs, e.Else)
	}
	return b.finishCase(n, vals, srcs, e)
}

// equal binds l = r for the simple CASE and NULLIF, with the comparison's
// coercion; l is already bound.
func (b *binder) equal(l node, lsrc, rsrc Expr) (node, error) {
	r, err := b.bind(rsrc)
	if err != nil {
		return nil, err
	}
	whole := &Binary{At: rsrc.Pos(), Op: Eq, L: lsrc, R: rsrc}
	ns, err := b.unify([]node{l, r}, []Expr{lsrc, rsrc}, whole)
	if err != nil {
		return nil, err
	}
	return b.fold(&cmpN{op: Eq, l: ns[0], r: ns[1]}, whole)
}

// finishCase brings the branch values (thens, then the else value when
// there is one) to their common type and folds the whole. The caller has
// entered one lazy level for the branches; finishCase leaves it (after an
// error the binder is not used again).
func (b *binder) finishCase(n *caseN, vals []node, srcs []Expr, whole Expr) (node, error) {
	t, err := b.widest(vals, srcs, whole)
	if err != nil {
		return nil, err
	}
	n.t = t
	for i, v := range vals {
		c, err := b.coerceAsWritten(v, t, srcs[i])
		if err != nil {
			return nil, err
		}
		if i < len(n.whens) {
			n.thens = append(n.thens, c)
		} else {
			n.els = c
		}
	}
	b.lazy--
	return b.fold(n, whole)
}

// widest is the type the values of CASE, IF, GREATEST and LEAST meet in:
// Spark's wider common type (ANSI), where a string meeting an integer is a
// BIGINT, meeting a fractional number a DOUBLE, and meeting any other
// atomic type that type.
func (b *binder) widest(vals []node, srcs []Expr, whole Expr) (schema.Type, error) {
	t := tVoid
	for i, v := range vals {
		vt := v.Type()
		w, ok := widerType(t, vt)
		if !ok {
			return nil, errAt(srcs[i], "%s is of type %s, which does not combine with %s in %s", srcs[i], typeName(vt), typeName(t), whole)
		}
		t = w
	}
	return t, nil
}

// coerceAsWritten coerces a value of CASE, IF, GREATEST or LEAST. A
// literal keeps rendering as written: its own type took part in the
// result type, so the rendering must give that type again ('42' with a
// TINYINT makes a BIGINT, 42 would make an INT).
func (b *binder) coerceAsWritten(n node, t schema.Type, src Expr) (node, error) {
	c, err := b.coerce(n, t, src)
	if l, ok := n.(*lit); ok && err == nil {
		if cl, ok := c.(*lit); ok && cl != l {
			cl.src = unbind(l, false)
		}
	}
	return c, err
}

func widerType(a, b schema.Type) (schema.Type, bool) {
	if isString(b) {
		a, b = b, a
	}
	switch {
	case isString(a) && isIntegral(b):
		return tLong, true
	case isString(a) && (isFloating(b) || isDecimal(b)):
		return tDouble, true
	}
	return commonType(a, b)
}

// caseWhen evaluates CASE branch by branch on the rows still undecided,
// so that a branch's errors (a division by zero, a failed cast) arise only
// from rows that take it.
func (ev *evaluator) caseWhen(n *caseN) (value, error) {
	dt, err := arrowType(n.t)
	if err != nil {
		return value{}, err
	}
	if ev.n == 0 {
		return value{arr: array.MakeArrayOfNull(ev.mem, dt, 0)}, nil
	}
	rows := make([]int32, ev.n)
	for i := range rows {
		rows[i] = int32(i)
	}
	var parts []arrow.Array
	var partRows [][]int32
	defer func() { releaseArrays(parts) }()
	for k := 0; k < len(n.whens) && len(rows) > 0; k++ {
		c, err := ev.on(rows, n.whens[k])
		if err != nil {
			return value{}, err
		}
		truth := c.(*array.Boolean)
		var taken, rest []int32
		for j, r := range rows {
			if truth.IsValid(j) && truth.Value(j) {
				taken = append(taken, r)
			} else {
				rest = append(rest, r)
			}
		}
		c.Release()
		if len(taken) > 0 {
			v, err := ev.on(taken, n.thens[k])
			if err != nil {
				return value{}, err
			}
			parts, partRows = append(parts, v), append(partRows, taken)
		}
		rows = rest
	}
	if len(rows) > 0 {
		var v arrow.Array
		if n.els != nil {
			if v, err = ev.on(rows, n.els); err != nil {
				return value{}, err
			}
		} else {
			v = array.MakeArrayOfNull(ev.mem, dt, len(rows))
		}
		parts, partRows = append(parts, v), append(partRows, rows)
	}
	if len(parts) == 1 {
		parts[0].Retain()
		return value{arr: parts[0]}, nil
	}
	// Put every row's value back in place: row r takes element idx[r] of
	// the parts laid end to end.
	all, err := array.Concatenate(parts, ev.mem)
	if err != nil {
		return value{}, err
	}
	defer all.Release()
	ib := array.NewInt32Builder(ev.mem)
	defer ib.Release()
	idx := make([]int32, ev.n)
	off := int32(0)
	for p, rs := range partRows {
		for j, r := range rs {
			idx[r] = off + int32(j)
		}
		off += int32(parts[p].Len())
	}
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	defer ia.Release()
	out, err := compute.TakeArray(ev.ctx, all, ia)
	if err != nil {
		return value{}, err
	}
	return value{arr: out}, nil
}

// logic evaluates AND and OR as Spark does, row by row from the left: the
// right side only on the rows the left does not decide (OR: not TRUE;
// AND: not FALSE), so that its errors (a division by zero, a failed cast)
// arise only from those rows. A right side that cannot fail is evaluated
// on every row, which is cheaper and gives the same result.
func (ev *evaluator) logic(n *logicN) (value, error) {
	name, decides := "and_kleene", false
	if n.op == OpOr {
		name, decides = "or_kleene", true
	}
	lv, err := ev.eval(n.l)
	if err != nil {
		return value{}, err
	}
	defer func() { lv.release() }()
	var rows []int32 // where the right side is needed; nil for every row
	if canFail(n.r) {
		if lv.arr == nil {
			if b, ok := lv.sc.(*scalar.Boolean); ok && b.Valid && b.Value == decides {
				lv.sc = nil // the value moves to the caller
				return value{sc: b}, nil
			}
		} else {
			truth := lv.arr.(*array.Boolean)
			rows = make([]int32, 0, ev.n)
			for i := range ev.n {
				if !truth.IsValid(i) || truth.Value(i) != decides {
					rows = append(rows, int32(i))
				}
			}
			if len(rows) == ev.n {
				rows = nil
			}
		}
	}
	var rv value
	if rows == nil {
		if rv, err = ev.eval(n.r); err != nil {
			return value{}, err
		}
	} else {
		if rv.arr, err = ev.scatter(rows, n.r); err != nil {
			return value{}, err
		}
	}
	defer rv.release()
	return ev.call(name, nil, lv, rv)
}

// scatter evaluates the boolean n on the given rows (ascending) only, as
// an array of every row, NULL on the others.
func (ev *evaluator) scatter(rows []int32, n node) (arrow.Array, error) {
	b := array.NewBooleanBuilder(ev.mem)
	defer b.Release()
	if len(rows) == 0 {
		b.AppendNulls(ev.n)
		return b.NewArray(), nil
	}
	v, err := ev.on(rows, n)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	got := v.(*array.Boolean)
	next := 0
	for i := range ev.n {
		if next < len(rows) && rows[next] == int32(i) {
			if got.IsValid(next) {
				b.Append(got.Value(next))
			} else {
				b.AppendNull()
			}
			next++
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray(), nil
}

// canFail reports whether evaluating n can fail a row: anything but
// columns, constants, comparisons of atomic values and the logic over them.
func canFail(n node) bool {
	fails := false
	walk(n, func(x node) {
		switch x := x.(type) {
		case *colRef, *lit, *logicN, *notN, *isNullN, *isBoolN:
		case *cmpN:
			fails = fails || isNestedType(x.l.Type()) || isNestedType(x.r.Type())
		default:
			fails = true
		}
	})
	return fails
}

// on evaluates n on the given rows (ascending) of the inputs, as an array
// of len(rows) values.
func (ev *evaluator) on(rows []int32, n node) (arrow.Array, error) {
	if len(rows) == ev.n {
		v, err := ev.eval(n)
		if err != nil {
			return nil, err
		}
		defer v.release()
		return ev.array(v)
	}
	sub, err := ev.subset(rows, n)
	if err != nil {
		return nil, err
	}
	defer sub.close()
	v, err := sub.eval(n)
	if err != nil {
		return nil, err
	}
	defer v.release()
	return sub.array(v)
}

// subset is an evaluator of n over the given rows of ev's inputs (in any
// order, repeated or not): the top-level columns and the lambda variables
// n reads, taken. The caller closes it.
func (ev *evaluator) subset(rows []int32, n node) (*evaluator, error) {
	ib := array.NewInt32Builder(ev.mem)
	ib.AppendValues(rows, nil)
	idx := ib.NewArray()
	ib.Release()
	defer idx.Release()
	// Only the top-level columns n reads are taken.
	used := map[string]map[string]bool{}
	walk(n, func(m node) {
		if c, ok := m.(*colRef); ok {
			if used[c.rel] == nil {
				used[c.rel] = map[string]bool{}
			}
			used[c.rel][c.path[0]] = true
		}
	})
	inputs := map[string]arrow.RecordBatch{}
	sub := newEvaluator(ev.ctx, inputs, len(rows), ev.loc)
	sub.ownsInputs = true
	for rel, names := range used {
		rec := ev.inputs[rel]
		if rec == nil {
			sub.close()
			return nil, errs.New(errs.InvalidArgument, "", "no input batch for relation %q", rel)
		}
		var fields []arrow.Field
		var cols []arrow.Array
		for name := range names {
			i := fieldIndex(rec.Schema().Fields(), name)
			if i < 0 {
				continue // evaluation reports the missing column
			}
			col, err := compute.TakeArray(ev.ctx, rec.Column(i), idx)
			if err != nil {
				for _, c := range cols {
					c.Release()
				}
				sub.close()
				return nil, err
			}
			fields, cols = append(fields, rec.Schema().Field(i)), append(cols, col)
		}
		inputs[rel] = array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(rows)))
		for _, c := range cols {
			c.Release()
		}
	}
	if err := sub.takeVars(ev, idx, n); err != nil {
		sub.close()
		return nil, err
	}
	return sub, nil
}

// unbindCase renders a CASE in the form it was written.
func unbindCase(n *caseN, qualify bool) Expr {
	u := func(m node) Expr { return unbind(m, qualify) }
	cmps := make([]*cmpN, len(n.whens))
	for i, w := range n.whens {
		cmps[i], _ = w.(*cmpN)
		if cmps[i] == nil && n.form != "if" {
			n = &caseN{whens: n.whens, thens: n.thens, els: n.els, t: n.t} // a folded test: searched form
		}
	}
	switch n.form {
	case "if":
		var els Expr = &Literal{Kind: LitNull}
		if n.els != nil {
			els = u(n.els)
		}
		return &Call{Name: "if", Args: []Expr{u(n.whens[0]), u(n.thens[0]), els}}
	case "nullif":
		return &Call{Name: "nullif", Args: []Expr{u(cmps[0].l), u(cmps[0].r)}}
	}
	c := &Case{}
	for i := range n.whens {
		w := When{Cond: u(n.whens[i]), Then: u(n.thens[i])}
		if n.form == "simple" {
			c.Operand, w.Cond = u(cmps[i].l), u(cmps[i].r)
		}
		c.Whens = append(c.Whens, w)
	}
	if n.els != nil {
		c.Else = u(n.els)
	}
	return c
}

// conditional binds IF, NULLIF, GREATEST and LEAST.
func (b *binder) conditional(e *Call) (node, error) {
	switch e.Name {
	case "if":
		cond, err := b.boolOperand(e.Args[0])
		if err != nil {
			return nil, err
		}
		b.lazy++
		var vals []node
		for _, a := range e.Args[1:] {
			v, err := b.bind(a)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		return b.finishCase(&caseN{whens: []node{cond}, form: "if"}, vals, e.Args[1:], e)
	case "nullif":
		// NULLIF(a, b) is CASE WHEN a = b THEN NULL ELSE a END, of a's type.
		a, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		eq, err := b.equal(a, e.Args[0], e.Args[1])
		if err != nil {
			return nil, err
		}
		n := &caseN{whens: []node{eq}, thens: []node{&lit{t: a.Type()}}, els: a, t: a.Type(), form: "nullif"}
		return b.fold(n, e)
	}
	args := make([]node, len(e.Args))
	for i, a := range e.Args {
		n, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		if t := n.Type(); !isAtomic(t) {
			return nil, errAt(a, "%s needs values that can be ordered, not %s (%s)", e.Name, typeName(t), a)
		}
		args[i] = n
	}
	t, err := b.widest(args, e.Args, e)
	if err != nil {
		return nil, err
	}
	for i := range args {
		if args[i], err = b.coerceAsWritten(args[i], t, e.Args[i]); err != nil {
			return nil, err
		}
	}
	return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
}

// extreme evaluates GREATEST and LEAST as Spark does: nulls are skipped,
// the result is null only when every argument is; floats order with NaN
// above every number.
func (ev *evaluator) extreme(n *callN, args []value) (value, error) {
	want := 1
	if n.fn == "least" {
		want = -1
	}
	return ev.mapRows(args, n.t, false, func(v []any) (any, error) {
		var best any
		for _, x := range v {
			if x != nil && (best == nil || compareValues(x, best)*want > 0) {
				best = x
			}
		}
		return best, nil
	})
}

// compareValues orders two non-null values of one type: booleans false
// first, numbers by value (floats as Spark orders them), strings and
// binaries by their bytes, dates and timestamps by time.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case y:
			return -1
		}
		return 1
	case int8:
		return cmp.Compare(x, b.(int8))
	case int16:
		return cmp.Compare(x, b.(int16))
	case int32:
		return cmp.Compare(x, b.(int32))
	case int64:
		return cmp.Compare(x, b.(int64))
	case float32:
		return floatOrder(float64(x), float64(b.(float32)))
	case float64:
		return floatOrder(x, b.(float64))
	case decimal128.Num:
		return x.Cmp(b.(decimal128.Num))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case arrow.Date32:
		return cmp.Compare(x, b.(arrow.Date32))
	case arrow.Timestamp:
		return cmp.Compare(x, b.(arrow.Timestamp))
	}
	return 0
}
