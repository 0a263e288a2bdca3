package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// Functions of an array or map column, as Spark 4 computes them with ANSI
// mode: size / cardinality (NULL for NULL), element_at (1-based, from the
// end when negative; 0 or an index past the end fails, a missing map key
// is NULL), array_contains (NULL when not found among nulls), map_keys and
// map_values. Elements and keys compare as Spark's ordering does
// (collvalues.go: NaN equal to NaN, -0.0 to 0.0; arrays and structs
// element by element).

// nestedFuncs are the functions of this file (their arities are in
// functions).
var nestedFuncs = map[string]bool{"size": true, "cardinality": true, "element_at": true, "array_contains": true,
	"map_keys": true, "map_values": true}

// bindNestedFunc binds the functions of this file.
func (b *binder) bindNestedFunc(e *Call) (node, error) {
	x, err := b.bind(e.Args[0])
	if err != nil {
		return nil, err
	}
	at, isArr := x.Type().(*schema.Array)
	mt, isMap := x.Type().(*schema.Map)
	want := map[string]string{"size": "an array or map", "cardinality": "an array or map", "element_at": "an array or map",
		"array_contains": "an array", "map_keys": "a map", "map_values": "a map"}[e.Name]
	if !isArr && !isMap || want == "an array" && !isArr || want == "a map" && !isMap {
		return nil, errAt(e.Args[0], "%s needs %s, not %s (%s)", e.Name, want, e.Args[0], typeName(x.Type()))
	}
	switch e.Name {
	case "size", "cardinality":
		return &callN{fn: "size", args: []node{x}, t: tInt}, nil
	case "map_keys":
		return &callN{fn: e.Name, args: []node{x}, t: &schema.Array{Element: mt.Key}}, nil
	case "map_values":
		return &callN{fn: e.Name, args: []node{x}, t: &schema.Array{Element: mt.Value, ContainsNull: mt.ValueContainsNull}}, nil
	}
	var key schema.Type // what the second argument is compared with
	var t schema.Type   // the result
	switch {
	case e.Name == "array_contains":
		key, t = at.Element, tBool
	case isArr:
		t = at.Element
	default:
		key, t = mt.Key, mt.Value
	}
	if key != nil {
		if err := orderable(e, key); err != nil {
			return nil, err
		}
	}
	var k node
	if key == nil {
		k, err = b.narrowIntOperand(e, e.Args[1], false)
	} else {
		k, err = b.keyOperand(e, e.Args[1], key)
	}
	if err != nil {
		return nil, err
	}
	return &callN{fn: e.Name, args: []node{x, k}, t: t}, nil
}

// keyOperand binds what element_at or array_contains looks for: of the
// elements' (keys') type, or of a type that widens to it.
func (b *binder) keyOperand(fn *Call, e Expr, t schema.Type) (node, error) {
	n, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	nt := n.Type()
	_, isLit := n.(*lit)
	switch {
	case isVoid(nt):
		return nil, errAt(e, "%s cannot look for a NULL", fn.Name)
	case sameType(nt, t), isLit && canCast(nt, t),
		isIntegral(nt) && isIntegral(t) && integralRank(nt) <= integralRank(t),
		isIntegral(nt) && isFloating(t), isType(nt, schema.Float) && isType(t, schema.Double):
		return b.coerce(n, t, e)
	}
	return nil, errAt(e, "%s looks for %s among %s values; CAST it AS %s", fn.Name, typeName(nt), typeName(t), typeName(t))
}

// nestedFunction evaluates the functions bindNestedFunc binds.
func (ev *evaluator) nestedFunction(n *callN, args []value) (value, error) {
	if args[0].arr == nil {
		// a constant nested value is always NULL here
		sc, err := makeScalar(nil, n.t)
		return value{sc: sc}, err
	}
	list, ok := args[0].arr.(array.ListLike)
	if !ok {
		return value{}, errs.New(errs.Internal, "", "%s of a %T", n.fn, args[0].arr)
	}
	switch n.fn {
	case "map_keys", "map_values":
		return ev.mapEntries(n, list.(*array.Map))
	}
	var elems, keys arrow.Array
	if m, ok := list.(*array.Map); ok {
		keys, elems = m.Keys(), m.Items()
	} else {
		elems = list.ListValues()
	}
	var getK func(int) any
	if len(args) > 1 {
		getK = nestedOf(args[1])
	}
	var kt schema.Type // the type of what is looked for
	if len(n.args) > 1 {
		kt = n.args[1].Type()
	}
	b, err := newBuilder(ev.mem, n.t)
	if err != nil {
		return value{}, err
	}
	defer b.Release()
	b.Reserve(ev.n)
	for i := 0; i < ev.n; i++ {
		var k any
		if getK != nil {
			k = getK(i)
		}
		if list.IsNull(i) || getK != nil && k == nil {
			b.AppendNull()
			continue
		}
		start, end := list.ValueOffsets(i)
		switch n.fn {
		case "size":
			appendValue(b, int32(end-start))
		case "array_contains":
			var out any = false
			for j := start; j < end; j++ {
				switch v := nestedGo(elems, int(j)); {
				case v == nil:
					out = nil
				case compareNested(v, k, kt) == 0:
					out = true
				}
				if out == true {
					break
				}
			}
			appendValue(b, out)
		default: // element_at
			if keys != nil {
				var out any
				for j := start; j < end; j++ {
					if compareNested(nestedGo(keys, int(j)), k, kt) == 0 {
						out = nestedGo(elems, int(j))
						break
					}
				}
				appendNested(b, out)
				continue
			}
			idx, size := int64(k.(int32)), end-start
			switch {
			case idx == 0:
				return value{}, errs.New(errs.InvalidArgument, "", "element_at: the index 0 is invalid; an index shall be either < 0 or > 0 (the first element has index 1)")
			case idx > size || -idx > size:
				return value{}, errs.New(errs.InvalidArgument, "", "element_at: the index %d is out of bounds; the array has %d elements", idx, size)
			case idx > 0:
				appendNested(b, nestedGo(elems, int(start+idx-1)))
			default:
				appendNested(b, nestedGo(elems, int(end+idx)))
			}
		}
	}
	return value{arr: b.NewArray()}, nil
}

// mapEntries is map_keys or map_values of m: a list over the map's keys
// or items, sharing m's offsets and validity.
func (ev *evaluator) mapEntries(n *callN, m *array.Map) (value, error) {
	dt, err := arrowType(n.t)
	if err != nil {
		return value{}, err
	}
	child := m.Keys()
	if n.fn == "map_values" {
		child = m.Items()
	}
	d := m.Data()
	bufs := []*memory.Buffer{d.Buffers()[0], d.Buffers()[1]}
	cd := child.Data()
	if m.ListValues().Data().Offset() != 0 {
		return value{}, errs.New(errs.Internal, "", "%s of map entries at an offset", n.fn)
	}
	data := array.NewData(dt, d.Len(), bufs, []arrow.ArrayData{cd}, d.NullN(), d.Offset())
	defer data.Release()
	return value{arr: array.MakeFromData(data)}, nil
}
