package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/schema"
)

// Comparisons of arrays and structs, as Spark orders them: element by
// element (field by field) with NULL first, then by length; the operands
// widen to one type as Spark's coercion widens them. Maps are not
// ordered, as in Spark. A generated column of an array or struct type is
// checked with col <=> expression through this.

// nestedCmp binds a comparison with an array or struct operand.
func (b *binder) nestedCmp(e *Binary, l, r node) (node, error) {
	t, ok := elemWider(l.Type(), r.Type())
	if !ok {
		x, y := e.L, e.R
		if !isNestedType(l.Type()) {
			x, y, l, r = y, x, r, l
		}
		return nil, errAt(e, "%s is of type %s, which cannot be compared with %s (%s)", x, typeName(l.Type()), y, typeName(r.Type()))
	}
	if err := orderable(&Call{At: e.At, Name: string(e.Op)}, t); err != nil {
		return nil, err
	}
	return &cmpN{op: e.Op, l: l, r: r}, nil
}

// nestedCompare evaluates a comparison n of nested operands.
func (ev *evaluator) nestedCompare(n *cmpN, l, r value) (value, error) {
	t, _ := elemWider(n.l.Type(), n.r.Type())
	gl, gr := nestedOf(l), nestedOf(r)
	b := array.NewBooleanBuilder(ev.mem)
	defer b.Release()
	b.Reserve(ev.n)
	for i := 0; i < ev.n; i++ {
		x, err := castNested(gl(i), n.l.Type(), t, ev.loc)
		if err != nil {
			return value{}, err
		}
		y, err := castNested(gr(i), n.r.Type(), t, ev.loc)
		if err != nil {
			return value{}, err
		}
		if x == nil || y == nil {
			if n.op == NullSafeEq {
				b.Append(x == nil && y == nil)
			} else {
				b.AppendNull()
			}
			continue
		}
		c := compareNested(x, y, t)
		switch n.op {
		case Eq, NullSafeEq:
			b.Append(c == 0)
		case Ne:
			b.Append(c != 0)
		case Lt:
			b.Append(c < 0)
		case Le:
			b.Append(c <= 0)
		case Gt:
			b.Append(c > 0)
		default:
			b.Append(c >= 0)
		}
	}
	return value{arr: b.NewArray()}, nil
}

// isNestedType reports whether t is an array, map or struct.
func isNestedType(t schema.Type) bool {
	switch t.(type) {
	case *schema.Array, *schema.Map, *schema.Struct:
		return true
	}
	return false
}

// sameArrowType reports whether values of a and b have one Arrow type,
// nullability of nested fields and elements included (which sameType
// leaves out).
func sameArrowType(a, b schema.Type) bool {
	x, err1 := arrowType(a)
	y, err2 := arrowType(b)
	return err1 == nil && err2 == nil && arrow.TypeEqual(x, y)
}
