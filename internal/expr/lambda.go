package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// Lambda functions, the arguments of the higher-order functions
// (hofuncs.go): x -> body or (x, y) -> body, only as a function's
// argument. In the body a lambda variable shadows a column of its name, as
// in Spark; the body may read columns too. A lambda's body is evaluated
// once per batch over the elements of every row's array (or map) laid end
// to end, its variables bound to those elements, the columns it reads
// taken along.

// Lambda is a lambda function: Params are the names of its variables as
// written.
type Lambda struct {
	At     int
	Params []string
	Body   Expr
}

func (e *Lambda) Pos() int       { return e.At }
func (*Lambda) expr()            {}
func (e *Lambda) String() string { return renderString(e) }

// argument parses a function's argument: a lambda function or an
// expression.
func (p *parser) argument() (Expr, error) {
	t := p.peek()
	var params []string
	switch {
	case (t.kind == tkIdent || t.kind == tkQIdent) && isSym(p.peekAt(1), "->"):
		params = []string{t.text}
		p.i += 2
	case isSym(t, "("):
		k := 1
		for {
			nt := p.peekAt(k)
			if nt.kind != tkIdent && nt.kind != tkQIdent {
				return p.expr(0)
			}
			if sep := p.peekAt(k + 1); isSym(sep, ")") {
				break
			} else if !isSym(sep, ",") {
				return p.expr(0)
			}
			k += 2
		}
		if !isSym(p.peekAt(k+2), "->") {
			return p.expr(0)
		}
		for j := 1; j <= k; j += 2 {
			params = append(params, p.peekAt(j).text)
		}
		p.i += k + 3
	default:
		return p.expr(0)
	}
	seen := map[string]bool{}
	for _, name := range params {
		if seen[strings.ToLower(name)] {
			return nil, p.errAt(t, "the lambda function names its variable %s twice", quoteIdent(name))
		}
		seen[strings.ToLower(name)] = true
	}
	body, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	return &Lambda{At: t.pos, Params: params, Body: body}, nil
}

// misplacedLambda is the error of an arrow found where no lambda function
// may stand.
func (p *parser) misplacedLambda(t token) error {
	return p.errAt(t, "a lambda function (x -> ...) is only allowed as an argument of a higher-order function (%s)", hofNames())
}

func renderLambda(sb *strings.Builder, e *Lambda) {
	if len(e.Params) == 1 {
		sb.WriteString(quoteIdent(e.Params[0]))
	} else {
		sb.WriteByte('(')
		for i, name := range e.Params {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(quoteIdent(name))
		}
		sb.WriteByte(')')
	}
	sb.WriteString(" -> ")
	render(sb, e.Body)
}

// lambdaVarN is a variable of a bound lambda function.
type lambdaVarN struct {
	name string
	t    schema.Type
}

// lambdaN is a bound lambda function: its variables and its body.
type lambdaN struct {
	vars []*lambdaVarN
	body node
	// hidden is set for an expression given where a lambda function is
	// taken: it names no variables and renders as the expression.
	hidden bool
}

func (n *lambdaVarN) Type() schema.Type { return n.t }
func (n *lambdaN) Type() schema.Type    { return n.body.Type() }

func unbindLambda(n *lambdaN, qualify bool) Expr {
	if n.hidden {
		return unbind(n.body, qualify)
	}
	l := &Lambda{Body: unbind(n.body, qualify)}
	for _, v := range n.vars {
		l.Params = append(l.Params, v.name)
	}
	return l
}

// lambdaVar is the lambda variable in scope that e names, nil when none
// does.
func (b *binder) lambdaVar(e *Column) *lambdaVarN {
	for i := len(b.scope) - 1; i >= 0; i-- {
		if strings.EqualFold(b.scope[i].name, e.Parts[0]) {
			return b.scope[i]
		}
	}
	return nil
}

// lambdaRef binds a reference to lambda variable v.
func (b *binder) lambdaRef(e *Column, v *lambdaVarN) (node, error) {
	if len(e.Parts) == 1 {
		return v, nil
	}
	n := &fieldN{v: v}
	t := v.t
	for _, p := range e.Parts[1:] {
		st, ok := t.(*schema.Struct)
		if !ok {
			return nil, errAt(e, "%s is of type %s and has no field %s", (&Column{Parts: append([]string{v.name}, n.path...)}), typeName(t), quoteIdent(p))
		}
		f := st.Field(p)
		if f == nil {
			return nil, errAt(e, "the struct %s has no field %s (fields: %s)", (&Column{Parts: append([]string{v.name}, n.path...)}), quoteIdent(p), fieldList(st))
		}
		n.path, t = append(n.path, f.Name), f.Type
	}
	n.t = t
	return n, nil
}

// fieldN is a field of a lambda variable of a struct type (x.f.g): path
// names the fields as the schema spells them.
type fieldN struct {
	v    *lambdaVarN
	path []string
	t    schema.Type
}

func (n *fieldN) Type() schema.Type { return n.t }

// field is the value of a lambda variable's struct field: null where a
// struct holding it is.
func (ev *evaluator) field(n *fieldN) (value, error) {
	v, err := ev.lambdaVar(n.v)
	if err != nil {
		return value{}, err
	}
	arr := v.arr
	for _, p := range n.path {
		st, ok := arr.(*array.Struct)
		if !ok {
			arr.Release()
			return value{}, errs.New(errs.Internal, "", "the lambda variable %s is a %s, not a struct", quoteIdent(n.v.name), arr.DataType())
		}
		j := fieldIndex(st.DataType().(*arrow.StructType).Fields(), p)
		if j < 0 {
			arr.Release()
			return value{}, errs.New(errs.Internal, "", "the lambda variable %s has no field %s", quoteIdent(n.v.name), quoteIdent(p))
		}
		child := withParentNulls(ev.mem, st, st.Field(j))
		arr.Release()
		arr = child
	}
	return value{arr: arr}, nil
}

// bindLambda binds argument e of higher-order function fn as a lambda
// function whose variables are of the types given; arities lists the
// numbers of variables fn takes.
func (b *binder) bindLambda(fn *Call, e Expr, types []schema.Type, arities ...int) (*lambdaN, error) {
	l, ok := e.(*Lambda)
	if !ok {
		// As in Spark, another expression is a lambda function that reads
		// none of its variables.
		body, err := b.bind(e)
		if err != nil {
			return nil, err
		}
		return &lambdaN{body: body, hidden: true}, nil
	}
	fits := false
	for _, a := range arities {
		fits = fits || a == len(l.Params)
	}
	if !fits {
		want := make([]string, len(arities))
		for i, a := range arities {
			want[i] = map[int]string{1: "x -> ...", 2: "(x, y) -> ...", 3: "(x, y, z) -> ..."}[a]
		}
		return nil, errAt(e, "%s takes a lambda function of %s, not one of %d variable(s): %s", fn.Name, strings.Join(want, " or "), len(l.Params), e)
	}
	n := &lambdaN{}
	for i, name := range l.Params {
		n.vars = append(n.vars, &lambdaVarN{name: name, t: types[i]})
	}
	b.scope = append(b.scope, n.vars...)
	defer func() { b.scope = b.scope[:len(b.scope)-len(n.vars)] }()
	body, err := b.bind(l.Body)
	if err != nil {
		return nil, err
	}
	n.body = body
	return n, nil
}

// lambdaVar is the value of a bound lambda variable.
func (ev *evaluator) lambdaVar(n *lambdaVarN) (value, error) {
	a, ok := ev.vars[n]
	if !ok {
		return value{}, errs.New(errs.Internal, "", "the lambda variable %s has no value here", quoteIdent(n.name))
	}
	a.Retain()
	return value{arr: a}, nil
}

// takeVars gives ev the rows idx of the lambda variables of from that n
// reads.
func (ev *evaluator) takeVars(from *evaluator, idx arrow.Array, n node) error {
	var err error
	walk(n, func(m node) {
		v, ok := m.(*lambdaVarN)
		if !ok || err != nil || ev.vars[v] != nil || from.vars[v] == nil {
			return
		}
		var a arrow.Array
		if a, err = compute.TakeArray(ev.ctx, from.vars[v], idx); err == nil {
			ev.bindVar(v, a)
		}
	})
	return err
}

// bindVar gives lambda variable v the values a, whose reference ev takes.
func (ev *evaluator) bindVar(v *lambdaVarN, a arrow.Array) {
	if ev.vars == nil {
		ev.vars = map[*lambdaVarN]arrow.Array{}
	}
	ev.vars[v] = a
}

// apply evaluates lambda l over len(rowOf) rows, row k of which belongs
// to row rowOf[k] of ev (whose columns it reads) and binds l's variables
// to row k of args (the first len(l.vars) of them).
func (ev *evaluator) apply(l *lambdaN, rowOf []int32, args ...arrow.Array) (arrow.Array, error) {
	sub, err := ev.subset(rowOf, l.body)
	if err != nil {
		return nil, err
	}
	defer sub.close()
	for i, v := range l.vars {
		args[i].Retain()
		sub.bindVar(v, args[i])
	}
	out, err := sub.eval(l.body)
	if err != nil {
		return nil, err
	}
	defer out.release()
	return sub.array(out)
}

// flat is the elements of the arrays (or the entries of the maps) of a
// batch's non-null rows, laid end to end.
type flat struct {
	offs  []int32 // the elements of row i are offs[i] to offs[i+1]
	rowOf []int32 // each element's row
	pos   []int32 // each element's index in its array
	idx   []int32 // each element's index in the list's child values
}

func flatten(list array.ListLike, n int) *flat {
	f := &flat{offs: make([]int32, n+1)}
	for i := 0; i < n; i++ {
		if list.IsValid(i) {
			s, e := list.ValueOffsets(i)
			for j := s; j < e; j++ {
				f.rowOf = append(f.rowOf, int32(i))
				f.pos = append(f.pos, int32(j-s))
				f.idx = append(f.idx, int32(j))
			}
		}
		f.offs[i+1] = int32(len(f.idx))
	}
	return f
}

// take is the elements of child (the list's child values) f holds.
func (ev *evaluator) take(child arrow.Array, idx []int32) (arrow.Array, error) {
	if len(idx) > 0 && int(idx[len(idx)-1]-idx[0]) == len(idx)-1 {
		return array.NewSlice(child, int64(idx[0]), int64(idx[len(idx)-1])+1), nil
	}
	ib := array.NewInt32Builder(ev.mem)
	defer ib.Release()
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	defer ia.Release()
	return compute.TakeArray(ev.ctx, child, ia)
}

// indexArray is idx as an Arrow array, a negative index null.
func (ev *evaluator) indexArray(idx []int32) arrow.Array {
	ib := array.NewInt32Builder(ev.mem)
	defer ib.Release()
	ib.Reserve(len(idx))
	for _, k := range idx {
		if k < 0 {
			ib.AppendNull()
		} else {
			ib.Append(k)
		}
	}
	return ib.NewArray()
}

// takeNullable is the elements idx of a, null where an index is negative.
func (ev *evaluator) takeNullable(a arrow.Array, idx []int32) (arrow.Array, error) {
	ia := ev.indexArray(idx)
	defer ia.Release()
	return compute.TakeArray(ev.ctx, a, ia)
}
