package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// boolResult builds a boolean array of n rows from f, writing bitmaps
// directly; f returns the value and whether it is not null.
func boolResult(mem memory.Allocator, n int, f func(i int) (v, ok bool)) value {
	size := int(bitutil.BytesForBits(int64(n)))
	data := memory.NewResizableBuffer(mem)
	data.Resize(size)
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(size)
	db, vb := data.Bytes(), valid.Bytes()
	clear(db)
	clear(vb)
	nulls := 0
	for i := 0; i < n; i++ {
		v, ok := f(i)
		if !ok {
			nulls++
			continue
		}
		bitutil.SetBit(vb, i)
		if v {
			bitutil.SetBit(db, i)
		}
	}
	if nulls == 0 {
		valid.Release()
		valid = nil
	}
	out := array.NewBoolean(n, data, valid, nulls)
	data.Release()
	if valid != nil {
		valid.Release()
	}
	return value{arr: out}
}

// validity returns a per-row validity test for v.
func validity(v value) func(int) bool {
	if v.arr == nil {
		ok := v.sc.IsValid()
		return func(int) bool { return ok }
	}
	if v.arr.NullN() == 0 {
		return func(int) bool { return true }
	}
	return v.arr.IsValid
}

// boolsOf returns a per-row accessor of a boolean value.
func boolsOf(v value) func(int) bool {
	if v.arr == nil {
		b, _ := v.sc.(*scalar.Boolean)
		c := b != nil && b.Valid && b.Value
		return func(int) bool { return c }
	}
	return v.arr.(*array.Boolean).Value
}

// floatsOf returns a per-row accessor of a float or double value.
func floatsOf(v value) func(int) float64 {
	if v.arr == nil {
		var c float64
		switch s := v.sc.(type) {
		case *scalar.Float32:
			c = float64(s.Value)
		case *scalar.Float64:
			c = s.Value
		}
		return func(int) float64 { return c }
	}
	switch a := v.arr.(type) {
	case *array.Float32:
		return func(i int) float64 { return float64(a.Value(i)) }
	case *array.Float64:
		return a.Value
	}
	return func(int) float64 { return 0 }
}

// intsOf returns a per-row accessor of an integer, date or timestamp value.
func intsOf(v value) func(int) int64 {
	if v.arr == nil {
		var c int64
		switch s := v.sc.(type) {
		case *scalar.Int8:
			c = int64(s.Value)
		case *scalar.Int16:
			c = int64(s.Value)
		case *scalar.Int32:
			c = int64(s.Value)
		case *scalar.Int64:
			c = s.Value
		case *scalar.Date32:
			c = int64(s.Value)
		case *scalar.Timestamp:
			c = int64(s.Value)
		}
		return func(int) int64 { return c }
	}
	switch a := v.arr.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int16:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int32:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int64:
		return a.Value
	case *array.Date32:
		return func(i int) int64 { return int64(a.Value(i)) }
	case *array.Timestamp:
		return func(i int) int64 { return int64(a.Value(i)) }
	}
	return func(int) int64 { return 0 }
}

// anyOf returns a per-row accessor of v as Go values (nil for null).
func anyOf(v value) func(int) any {
	if v.arr == nil {
		c := scalarGo(v.sc)
		return func(int) any { return c }
	}
	return func(i int) any { return goValue(v.arr, i) }
}

func scalarGo(sc scalar.Scalar) any {
	if !sc.IsValid() {
		return nil
	}
	switch s := sc.(type) {
	case *scalar.Boolean:
		return s.Value
	case *scalar.Int8:
		return s.Value
	case *scalar.Int16:
		return s.Value
	case *scalar.Int32:
		return s.Value
	case *scalar.Int64:
		return s.Value
	case *scalar.Float32:
		return s.Value
	case *scalar.Float64:
		return s.Value
	case *scalar.String:
		return s.String()
	case *scalar.Binary:
		return append([]byte(nil), s.Data()...)
	case *scalar.Date32:
		return s.Value
	case *scalar.Timestamp:
		return s.Value
	case *scalar.Decimal128:
		return s.Value
	}
	return nil
}

// mapRows builds a value of type t row by row from the Go values of args.
// With strict, a row with a null argument is null without calling f.
func (ev *evaluator) mapRows(args []value, t schema.Type, strict bool, f func(vals []any) (any, error)) (value, error) {
	b, err := newBuilder(ev.mem, t)
	if err != nil {
		return value{}, err
	}
	defer b.Release()
	get := make([]func(int) any, len(args))
	for i, a := range args {
		get[i] = anyOf(a)
	}
	vals := make([]any, len(args))
	b.Reserve(ev.n)
rows:
	for i := 0; i < ev.n; i++ {
		for k := range args {
			vals[k] = get[k](i)
			if strict && vals[k] == nil {
				b.AppendNull()
				continue rows
			}
		}
		v, err := f(vals)
		if err != nil {
			return value{}, err
		}
		appendValue(b, v)
	}
	return value{arr: b.NewArray()}, nil
}

var compareFuncs = map[Op]string{Eq: "equal", Ne: "not_equal", Lt: "less", Le: "less_equal", Gt: "greater", Ge: "greater_equal"}

// compare evaluates a comparison of two values of type t with SQL nulls.
func (ev *evaluator) compare(op Op, l, r value, t schema.Type) (value, error) {
	if isVoid(t) || !validity(l)(0) && l.arr == nil || !validity(r)(0) && r.arr == nil {
		if op == NullSafeEq {
			return ev.nullSafe(value{sc: scalar.MakeNullScalar(arrow.FixedWidthTypes.Boolean)}, l, r), nil
		}
		return value{sc: scalar.MakeNullScalar(arrow.FixedWidthTypes.Boolean)}, nil
	}
	if op == NullSafeEq {
		eq, err := ev.compare(Eq, l, r, t)
		if err != nil {
			return value{}, err
		}
		defer eq.release()
		return ev.nullSafe(eq, l, r), nil
	}
	if isFloating(t) {
		return ev.compareFloats(op, l, r), nil
	}
	return ev.call(compareFuncs[op], nil, l, r)
}

// nullSafe turns an equality result into <=>: true when both sides are
// null, false when one is.
func (ev *evaluator) nullSafe(eq, l, r value) value {
	lv, rv := validity(l), validity(r)
	ev2, eb := validity(eq), boolsOf(eq)
	return boolResult(ev.mem, ev.n, func(i int) (bool, bool) {
		a, b := lv(i), rv(i)
		if a && b {
			return ev2(i) && eb(i), true
		}
		return !a && !b, true
	})
}

// compareFloats orders floats as Spark does: NaN equals NaN and is above
// every other value; -0.0 equals 0.0.
func (ev *evaluator) compareFloats(op Op, l, r value) value {
	lv, rv := validity(l), validity(r)
	lf, rf := floatsOf(l), floatsOf(r)
	return boolResult(ev.mem, ev.n, func(i int) (bool, bool) {
		if !lv(i) || !rv(i) {
			return false, false
		}
		c := floatOrder(lf(i), rf(i))
		switch op {
		case Eq:
			return c == 0, true
		case Ne:
			return c != 0, true
		case Lt:
			return c < 0, true
		case Le:
			return c <= 0, true
		case Gt:
			return c > 0, true
		}
		return c >= 0, true
	})
}

func floatOrder(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (ev *evaluator) isBool(x value, want, not bool) (value, error) {
	valid, vals := validity(x), boolsOf(x)
	return boolResult(ev.mem, ev.n, func(i int) (bool, bool) {
		is := valid(i) && vals(i) == want
		return is != not, true
	}), nil
}

// in evaluates x IN (list) with SQL semantics: null when x is null, or
// when no element matches and the list holds a null.
func (ev *evaluator) in(n *inN) (value, error) {
	x, err := ev.eval(n.x)
	if err != nil {
		return value{}, err
	}
	defer x.release()
	t := n.x.Type()
	var consts []any
	var others []node
	hasNull := false
	for _, e := range n.list {
		if l, ok := e.(*lit); ok && !isFloating(t) {
			if l.v == nil {
				hasNull = true
			} else {
				consts = append(consts, l.v)
			}
			continue
		}
		others = append(others, e)
	}
	acc := value{sc: scalar.NewBooleanScalar(false)}
	defer func() { acc.release() }()
	if len(consts) > 0 && !isVoid(t) {
		set, err := ev.constArray(consts, t)
		if err != nil {
			return value{}, err
		}
		found, err := compute.IsIn(ev.ctx, compute.SetOptions{ValueSet: compute.NewDatumWithoutOwning(set)}, x.datum())
		set.Release()
		if err != nil {
			return value{}, err
		}
		fv := fromDatum(found)
		xv, fb, fok := validity(x), boolsOf(fv), validity(fv)
		res := boolResult(ev.mem, ev.n, func(i int) (bool, bool) { return fok(i) && fb(i), xv(i) })
		fv.release()
		acc.release()
		acc = res
	}
	for _, e := range others {
		ev2, err := ev.eval(e)
		if err != nil {
			return value{}, err
		}
		eq, err := ev.compare(Eq, x, ev2, t)
		ev2.release()
		if err != nil {
			return value{}, err
		}
		next, err := ev.call("or_kleene", nil, acc, eq)
		eq.release()
		if err != nil {
			return value{}, err
		}
		acc.release()
		acc = next
	}
	if hasNull || isVoid(t) {
		next, err := ev.call("or_kleene", nil, acc, value{sc: scalar.MakeNullScalar(arrow.FixedWidthTypes.Boolean)})
		if err != nil {
			return value{}, err
		}
		acc.release()
		acc = next
	}
	if !validity(x)(0) && x.arr == nil {
		acc.release()
		acc = value{sc: scalar.MakeNullScalar(arrow.FixedWidthTypes.Boolean)}
	}
	if n.not {
		return ev.call("not", nil, acc)
	}
	out := acc
	acc = value{sc: scalar.NewBooleanScalar(false)}
	return out, nil
}

// constArray builds an array of constants of type t.
func (ev *evaluator) constArray(vs []any, t schema.Type) (arrow.Array, error) {
	b, err := newBuilder(ev.mem, t)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	for _, v := range vs {
		appendValue(b, v)
	}
	return b.NewArray(), nil
}

func (ev *evaluator) between(n *betweenN) (value, error) {
	x, err := ev.eval(n.x)
	if err != nil {
		return value{}, err
	}
	defer x.release()
	bound := func(op Op, e node) (value, error) {
		v, err := ev.eval(e)
		if err != nil {
			return value{}, err
		}
		defer v.release()
		return ev.compare(op, x, v, n.x.Type())
	}
	ge, err := bound(Ge, n.lo)
	if err != nil {
		return value{}, err
	}
	defer ge.release()
	le, err := bound(Le, n.hi)
	if err != nil {
		return value{}, err
	}
	defer le.release()
	both, err := ev.call("and_kleene", nil, ge, le)
	if err != nil || !n.not {
		return both, err
	}
	defer both.release()
	return ev.call("not", nil, both)
}

func (ev *evaluator) like(n *likeN) (value, error) {
	return ev.binaryOp(n.x, n.pat, func(x, p value) (value, error) {
		xv, pv := validity(x), validity(p)
		xs, ps := stringsOf(x), stringsOf(p)
		var cached *likeMatcher
		var cachedPat string
		var failed error
		out := boolResult(ev.mem, ev.n, func(i int) (bool, bool) {
			if !xv(i) || !pv(i) || failed != nil {
				return false, false
			}
			m := n.m
			if m == nil { // a pattern that varies by row
				if pat := ps(i); cached == nil || pat != cachedPat {
					cached, failed = compileLike(pat, n.esc, n.fold)
					cachedPat = pat
					if failed != nil {
						return false, false
					}
				}
				m = cached
			}
			return m.match(xs(i)) != n.not, true
		})
		if failed != nil {
			out.release()
			return value{}, errs.New(errs.InvalidArgument, "", "%v", failed)
		}
		return out, nil
	})
}

// stringsOf returns a per-row accessor of a string value.
func stringsOf(v value) func(int) string {
	if v.arr == nil {
		c := ""
		if s, ok := v.sc.(*scalar.String); ok && s.Valid {
			c = s.String()
		}
		return func(int) string { return c }
	}
	switch a := v.arr.(type) {
	case *array.String:
		return a.Value
	case *array.Binary:
		return a.ValueString
	}
	return func(int) string { return "" }
}

func (ev *evaluator) negate(x value, t schema.Type) (value, error) {
	if isDecimal(t) {
		return ev.mapRows([]value{x}, t, true, func(v []any) (any, error) {
			return negateValue(v[0], t)
		})
	}
	v, err := ev.call("negate", nil, x)
	if err != nil {
		return value{}, errs.New(errs.InvalidArgument, "", "negation overflows %s", typeName(t))
	}
	return v, nil
}

func (ev *evaluator) dateArith(sub bool, d, k value) (value, error) {
	return ev.mapRows([]value{d, k}, tDate, true, func(v []any) (any, error) {
		days := int64(v[1].(int32))
		if sub {
			days = -days
		}
		r := int64(v[0].(arrow.Date32)) + days
		if r < math.MinInt32 || r > math.MaxInt32 {
			return nil, fmt.Errorf("date arithmetic overflows")
		}
		return arrow.Date32(r), nil
	})
}
