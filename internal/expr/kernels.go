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

// compareFloats orders floats as Spark does: NaN equals NaN and is above
// every other value; -0.0 equals 0.0.
func (ev *evaluator) compareFloats(op Op, l, r value) value {
	var test func(c int) bool
	switch op {
	case Eq:
		test = func(c int) bool { return c == 0 }
	case Ne:
		test = func(c int) bool { return c != 0 }
	case Lt:
		test = func(c int) bool { return c < 0 }
	case Le:
		test = func(c int) bool { return c <= 0 }
	case Gt:
		test = func(c int) bool { return c > 0 }
	default:
		test = func(c int) bool { return c >= 0 }
	}
	data := ev.newBits(false)
	d := data.Bytes()
	la, lIsArr := l.arr.(*array.Float64)
	if lIsArr && r.arr == nil {
		// The common shape, column against constant, on the raw values.
		c := floatsOf(r)(0)
		for i, a := range la.Float64Values() {
			if test(floatOrder(a, c)) {
				bitutil.SetBit(d, i)
			}
		}
	} else {
		lf, rf := floatsOf(l), floatsOf(r)
		for i := 0; i < ev.n; i++ {
			if test(floatOrder(lf(i), rf(i))) {
				bitutil.SetBit(d, i)
			}
		}
	}
	valid, rv := ev.newBits(true), ev.newBits(true)
	ev.validInto(valid.Bytes(), l)
	ev.validInto(rv.Bytes(), r)
	andInto(valid.Bytes(), rv.Bytes())
	rv.Release()
	return ev.boolArray(data, valid)
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
	// A short list is cheaper as a chain of vectorised equalities than as
	// a hash lookup; floats always compare one by one for NaN semantics.
	useSet := len(n.list) > 16 && !isFloating(t)
	for _, e := range n.list {
		if l, ok := e.(*lit); ok && (useSet || l.v == nil) {
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
		data := ev.newBits(false)
		ev.truthInto(data.Bytes(), fv)
		fv.release()
		valid := ev.newBits(true)
		ev.validInto(valid.Bytes(), x) // null in, null out
		res := ev.boolArray(data, valid)
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
		if sa, ok := x.arr.(*array.String); ok && n.m != nil {
			// Column against a constant pattern, on the raw strings.
			data := ev.newBits(false)
			d := data.Bytes()
			for i := 0; i < ev.n; i++ {
				if n.m.match(sa.Value(i)) != n.not {
					bitutil.SetBit(d, i)
				}
			}
			valid := ev.newBits(true)
			ev.validInto(valid.Bytes(), x)
			return ev.boolArray(data, valid), nil
		}
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
