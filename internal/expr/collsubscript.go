package expr

import (
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// Subscript is x[index]: an element of an array (0-based) or the value of
// a map's key.
type Subscript struct {
	At       int
	X, Index Expr
}

func (e *Subscript) Pos() int       { return e.At }
func (e *Subscript) String() string { return renderString(e) }
func (*Subscript) expr()            {}

// subscriptFn is the name a bound subscript's call carries: no function's
// name, so that only the parser's brackets make one.
const subscriptFn = "[]"

// renderSubscript writes x[index], x in parentheses unless it is atomic.
func renderSubscript(sb interface{ WriteString(string) (int, error) }, e *Subscript, render func(Expr)) {
	if bindingPower(e.X) < bpAtom {
		sb.WriteString("(")
		render(e.X)
		sb.WriteString(")")
	} else {
		render(e.X)
	}
	sb.WriteString("[")
	render(e.Index)
	sb.WriteString("]")
}

// subscript binds x[index], as Spark's GetArrayItem (ANSI: an index
// outside the array fails, a NULL index is NULL) and GetMapValue (a
// missing key is NULL).
func (b *binder) subscript(e *Subscript) (node, error) {
	x, err := b.bind(e.X)
	if err != nil {
		return nil, err
	}
	call := &Call{At: e.At, Name: "subscript", Args: []Expr{e.X, e.Index}}
	switch t := x.Type().(type) {
	case *schema.Array:
		i, err := b.bind(e.Index)
		if err != nil {
			return nil, err
		}
		if !isIntegral(i.Type()) && !isVoid(i.Type()) {
			return nil, errAt(e.Index, "an array's index is an integer, not %s (%s)", e.Index, typeName(i.Type()))
		}
		if i, err = b.coerce(i, tLong, e.Index); err != nil {
			return nil, err
		}
		return &callN{fn: subscriptFn, args: []node{x, i}, t: t.Element}, nil
	case *schema.Map:
		k, err := b.keyOperand(call, e.Index, t.Key)
		if err != nil {
			return nil, err
		}
		return &callN{fn: subscriptFn, args: []node{x, k}, t: t.Value}, nil
	}
	return nil, errAt(e, "%s is of type %s, which has no elements to subscript", e.X, typeName(x.Type()))
}

// subscriptRow is one row of x[index].
func subscriptRow(n *callN, v []any) (any, error) {
	if v[0] == nil || v[1] == nil {
		return nil, nil
	}
	if m, ok := v[0].(*strMap); ok {
		kt := n.args[0].Type().(*schema.Map).Key
		for i, k := range m.keys {
			if compareNested(k, v[1], kt) == 0 {
				return m.vals[i], nil
			}
		}
		return nil, nil
	}
	a, i := v[0].([]any), v[1].(int64)
	if i < 0 || i >= int64(len(a)) {
		return nil, collectionErr("the index %d is out of bounds; the array has %d elements (the first has index 0)", i, len(a))
	}
	return a[i], nil
}

// FieldAccess is x.name: a field of a struct value that is no column
// path (a function's result, an array's element).
type FieldAccess struct {
	At   int
	X    Expr
	Name string
}

func (e *FieldAccess) Pos() int       { return e.At }
func (e *FieldAccess) String() string { return renderString(e) }
func (*FieldAccess) expr()            {}

// fieldFn is the name a bound field access's call carries.
const fieldFn = "."

// renderFieldAccess writes x.name, x in parentheses unless it is a call
// or a subscript (a column's fields are part of its path).
func renderFieldAccess(sb interface{ WriteString(string) (int, error) }, e *FieldAccess, render func(Expr)) {
	switch e.X.(type) {
	case *Call, *Subscript, *FieldAccess:
		render(e.X)
	default:
		sb.WriteString("(")
		render(e.X)
		sb.WriteString(")")
	}
	sb.WriteString("." + quoteIdent(e.Name))
}

// fieldAccess binds x.name, as Spark's GetStructField: NULL for a NULL
// struct; the name matches case-insensitively.
func (b *binder) fieldAccess(e *FieldAccess) (node, error) {
	x, err := b.bind(e.X)
	if err != nil {
		return nil, err
	}
	st, ok := x.Type().(*schema.Struct)
	if !ok {
		return nil, errAt(e, "%s is of type %s, which has no field %s", e.X, typeName(x.Type()), quoteIdent(e.Name))
	}
	f := st.Field(e.Name)
	if f == nil {
		return nil, errAt(e, "%s has no field %s (fields: %s)", e.X, quoteIdent(e.Name), fieldList(st))
	}
	return &callN{fn: fieldFn, args: []node{x, &lit{v: f.Name, t: tString}}, t: f.Type}, nil
}

// fieldRow is one row of x.name.
func fieldRow(n *callN, v []any) any {
	if v[0] == nil {
		return nil
	}
	st := n.args[0].Type().(*schema.Struct)
	name := n.args[1].(*lit).v.(string)
	for i, f := range st.Fields {
		if f.Name == name {
			return v[0].(*structVal).vals[i]
		}
	}
	return nil
}

// MapSubscriptFree refuses a map subscript m[key] in e, bound over sc:
// Delta refuses GetMapValue in a new generated column (element_at gives
// the same value and is allowed). An expression that does not bind is
// left to the binding that reports it.
func MapSubscriptFree(e Expr, sc *schema.Struct) error {
	b, err := BindValue(e, map[string]*schema.Struct{"": sc})
	if err != nil {
		return nil
	}
	var bad error
	walk(b.root, func(n node) {
		if c, ok := n.(*callN); ok && c.fn == subscriptFn && bad == nil {
			if _, isMap := c.args[0].Type().(*schema.Map); isMap {
				bad = errs.New(errs.InvalidArgument, "", "a map subscript %s cannot be used in a generated column, as Delta refuses it there; element_at(map, key) gives the same value (it can be a CHECK constraint)", unbind(c, false))
			}
		}
	})
	return bad
}
