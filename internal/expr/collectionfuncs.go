package expr

import (
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// Array, map and struct constructors and functions, as Spark 4 computes
// them with ANSI mode: array (its elements coerced to their wider type as
// Spark's ANSI coercion finds it), map (a NULL key or a key given twice
// fails, as spark.sql.mapKeyDedupPolicy=EXCEPTION does), named_struct; the
// array functions array_join, array_position, array_remove,
// array_distinct, array_union, array_intersect, array_except,
// arrays_overlap, array_max, array_min, array_repeat, slice, sort_array,
// array_sort (without a comparator), flatten, sequence (of integers, and
// of dates and timestamps a day apart), array_size, array_compact, array_append,
// array_prepend, array_insert, arrays_zip, reverse (of a string it is
// strfuncs.go's), concat and concat_ws (of strings and arrays), and
// subscripts (collsubscript.go); the map
// functions map_concat, map_entries, map_from_arrays, map_from_entries.
// Elements compare as Spark's ordering does (-0.0 equal to 0.0, NaN equal
// to NaN and greater than any number); the functions that collect
// distinct elements store -0.0 as 0.0, as Spark's hash sets do.

// collectionFuncs are the names this file binds; reverse and concat bind
// here for every type and go to the string functions for strings.
var collectionFuncs = map[string]bool{
	"array": true, "map": true, "named_struct": true,
	"array_join": true, "array_position": true, "array_remove": true, "array_distinct": true, "array_union": true,
	"array_intersect": true, "array_except": true, "arrays_overlap": true, "array_max": true, "array_min": true,
	"array_repeat": true, "slice": true, "sort_array": true, "array_sort": true, "flatten": true, "sequence": true,
	"array_size": true, "array_compact": true, "array_append": true, "array_prepend": true, "array_insert": true,
	"arrays_zip": true, "reverse": true, "concat": true, "concat_ws": true,
	"map_concat": true, "map_entries": true, "map_from_arrays": true, "map_from_entries": true,
}

// collectionEvals are the names of the calls this file evaluates: its
// functions and subscripts.
var collectionEvals = func() map[string]bool {
	m := map[string]bool{subscriptFn: true, fieldFn: true}
	for k := range collectionFuncs {
		m[k] = true
	}
	return m
}()

// maxArrayLength is the most elements Spark builds into one array
// (ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH).
const maxArrayLength = 2147483632

// mayBeNull reports whether n can be NULL: anything but a non-null constant.
func mayBeNull(n node) bool {
	l, ok := n.(*lit)
	return !ok || l.v == nil
}

// elemWider is the type values of types a and b meet in, as Spark's ANSI
// findWiderCommonType finds it: numbers widen, a string meets an integer
// as BIGINT and a fractional number as DOUBLE, and any other atomic type
// as that type; a date meets a timestamp as that timestamp; arrays, maps
// and structs (of the same field names) widen element by element.
func elemWider(a, b schema.Type) (schema.Type, bool) {
	switch {
	case isVoid(a):
		return b, true
	case isVoid(b):
		return a, true
	}
	switch at := a.(type) {
	case *schema.Array:
		bt, ok := b.(*schema.Array)
		if !ok {
			return nil, false
		}
		e, ok := elemWider(at.Element, bt.Element)
		return &schema.Array{Element: e, ContainsNull: at.ContainsNull || bt.ContainsNull}, ok
	case *schema.Map:
		bt, ok := b.(*schema.Map)
		if !ok {
			return nil, false
		}
		k, ok1 := elemWider(at.Key, bt.Key)
		v, ok2 := elemWider(at.Value, bt.Value)
		return &schema.Map{Key: k, Value: v, ValueContainsNull: at.ValueContainsNull || bt.ValueContainsNull}, ok1 && ok2
	case *schema.Struct:
		bt, ok := b.(*schema.Struct)
		if !ok || len(at.Fields) != len(bt.Fields) {
			return nil, false
		}
		out := &schema.Struct{}
		for i, f := range at.Fields {
			g := bt.Fields[i]
			if !strings.EqualFold(f.Name, g.Name) {
				return nil, false
			}
			t, ok := elemWider(f.Type, g.Type)
			if !ok {
				return nil, false
			}
			out.Fields = append(out.Fields, &schema.Field{Name: f.Name, Type: t, Nullable: f.Nullable || g.Nullable})
		}
		return out, true
	}
	if !isAtomic(a) || !isAtomic(b) {
		return nil, false
	}
	return widerType(a, b)
}

// widest is the wider type of every one of ts; what names the function
// in the error.
func widest(e *Call, what string, srcs []Expr, ts []schema.Type) (schema.Type, error) {
	t := ts[0]
	for i := 1; i < len(ts); i++ {
		w, ok := elemWider(t, ts[i])
		if !ok {
			return nil, errAt(srcs[i], "%s needs %s of one type, but %s is of %s where the others are of %s", e.Name, what, srcs[i], typeName(ts[i]), typeName(t))
		}
		t = w
	}
	return t, nil
}

// arrayArg binds argument i of e, which must be an array.
func (b *binder) arrayArg(e *Call, i int) (node, *schema.Array, error) {
	x, err := b.bind(e.Args[i])
	if err != nil {
		return nil, nil, err
	}
	if isVoid(x.Type()) {
		return x, &schema.Array{Element: tVoid, ContainsNull: true}, nil
	}
	at, ok := x.Type().(*schema.Array)
	if !ok {
		return nil, nil, errAt(e.Args[i], "%s needs an array, not %s (%s)", e.Name, e.Args[i], typeName(x.Type()))
	}
	return x, at, nil
}

// mapArg binds argument i of e, which must be a map.
func (b *binder) mapArg(e *Call, i int) (node, *schema.Map, error) {
	x, err := b.bind(e.Args[i])
	if err != nil {
		return nil, nil, err
	}
	if isVoid(x.Type()) {
		return x, &schema.Map{Key: tVoid, Value: tVoid, ValueContainsNull: true}, nil
	}
	mt, ok := x.Type().(*schema.Map)
	if !ok {
		return nil, nil, errAt(e.Args[i], "%s needs a map, not %s (%s)", e.Name, e.Args[i], typeName(x.Type()))
	}
	return x, mt, nil
}

// orderable refuses a type Spark cannot order or compare (a map, or one
// holding a map).
func orderable(e *Call, t schema.Type) error {
	switch t := t.(type) {
	case *schema.Map:
		return errAt(e, "%s cannot compare values of type %s: Spark does not order maps", e.Name, typeName(t))
	case *schema.Array:
		return orderable(e, t.Element)
	case *schema.Struct:
		for _, f := range t.Fields {
			if err := orderable(e, f.Type); err != nil {
				return err
			}
		}
	case *schema.Primitive:
		if t.Name == schema.Variant {
			return errAt(e, "%s cannot compare values of type %s", e.Name, typeName(t))
		}
	}
	return nil
}

// bindCollectionFunc binds the functions of this file.
func (b *binder) bindCollectionFunc(e *Call) (node, error) {
	switch e.Name {
	case "reverse", "concat":
		if len(e.Args) > 0 {
			x, err := b.bind(e.Args[0])
			if err != nil {
				return nil, err
			}
			if _, ok := x.Type().(*schema.Array); !ok {
				if e.Name == "reverse" {
					return b.bindStrFunc(e)
				}
				return b.bindStringConcat(e)
			}
		}
		if e.Name == "reverse" {
			x, at, err := b.arrayArg(e, 0)
			if err != nil {
				return nil, err
			}
			return &callN{fn: e.Name, args: []node{x}, t: at}, nil
		}
		return b.arraysOfOneType(e, 0)
	case "concat_ws":
		return b.bindConcatWs(e)
	case "array":
		return b.bindArray(e)
	case "map":
		return b.bindMap(e)
	case "named_struct":
		return b.bindNamedStruct(e)
	case "array_union", "array_intersect", "array_except", "arrays_overlap":
		n, err := b.arraysOfOneType(e, 0)
		if err != nil {
			return nil, err
		}
		if err := orderable(e, n.t.(*schema.Array).Element); err != nil {
			return nil, err
		}
		if e.Name == "arrays_overlap" {
			n.t = tBool
		}
		return n, nil
	case "array_position", "array_remove", "array_append", "array_prepend":
		return b.arrayAndElement(e)
	case "array_insert":
		x, at, err := b.arrayArg(e, 0)
		if err != nil {
			return nil, err
		}
		pos, err := b.narrowIntOperand(e, e.Args[1], false) // Spark's ArrayInsert takes no BIGINT
		if err != nil {
			return nil, err
		}
		v, err := b.bind(e.Args[2])
		if err != nil {
			return nil, err
		}
		t, err := widest(e, "an array and an element", []Expr{e.Args[0], e.Args[2]}, []schema.Type{at.Element, v.Type()})
		if err != nil {
			return nil, err
		}
		return &callN{fn: e.Name, args: []node{x, pos, v}, t: &schema.Array{Element: t, ContainsNull: true}}, nil
	case "array_distinct", "array_max", "array_min", "array_sort", "sort_array", "array_compact", "array_size", "flatten":
		x, at, err := b.arrayArg(e, 0)
		if err != nil {
			return nil, err
		}
		args := []node{x}
		var t schema.Type = at
		switch e.Name {
		case "array_distinct", "array_max", "array_min", "array_sort", "sort_array":
			if err := orderable(e, at.Element); err != nil {
				return nil, err
			}
			if e.Name == "array_max" || e.Name == "array_min" {
				t = at.Element
			}
		case "array_compact":
			t = &schema.Array{Element: at.Element}
		case "array_size":
			t = tInt
		case "flatten":
			inner, ok := at.Element.(*schema.Array)
			if !ok {
				return nil, errAt(e.Args[0], "flatten needs an array of arrays, not %s (%s)", e.Args[0], typeName(at))
			}
			t = inner
		}
		if e.Name == "array_sort" && len(e.Args) > 1 {
			return nil, errAt(e.Args[1], "array_sort with a comparator function is not supported")
		}
		if e.Name == "sort_array" && len(e.Args) > 1 {
			asc, err := b.boolOperand(e.Args[1])
			if err != nil {
				return nil, err
			}
			if l, ok := asc.(*lit); !ok || l.v == nil {
				return nil, errAt(e.Args[1], "sort_array's order must be TRUE or FALSE, not %s", e.Args[1])
			}
			args = append(args, asc)
		}
		return &callN{fn: e.Name, args: args, t: t}, nil
	case "array_join":
		x, at, err := b.arrayArg(e, 0)
		if err != nil {
			return nil, err
		}
		if !isAtomic(at.Element) || isType(at.Element, schema.Binary) {
			return nil, errAt(e.Args[0], "array_join needs an array of atomic values, not %s", typeName(at))
		}
		args := []node{x}
		for _, a := range e.Args[1:] {
			s, err := b.stringOperand(a)
			if err != nil {
				return nil, err
			}
			args = append(args, s)
		}
		return &callN{fn: e.Name, args: args, t: tString}, nil
	case "array_repeat":
		v, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		k, err := b.bind(e.Args[1])
		if err != nil {
			return nil, err
		}
		if !isType(k.Type(), schema.Integer) && !isVoid(k.Type()) {
			// Spark's ArrayRepeat takes an INT only, casting nothing
			return nil, errAt(e.Args[1], "array_repeat's count is an INT, not %s (%s); CAST it AS INT", e.Args[1], typeName(k.Type()))
		}
		if k, err = b.coerce(k, tInt, e.Args[1]); err != nil {
			return nil, err
		}
		return &callN{fn: e.Name, args: []node{v, k}, t: &schema.Array{Element: v.Type(), ContainsNull: mayBeNull(v)}}, nil
	case "slice":
		x, at, err := b.arrayArg(e, 0)
		if err != nil {
			return nil, err
		}
		start, err := b.intOperand(e, e.Args[1])
		if err != nil {
			return nil, err
		}
		length, err := b.intOperand(e, e.Args[2])
		if err != nil {
			return nil, err
		}
		return &callN{fn: e.Name, args: []node{x, start, length}, t: at}, nil
	case "sequence":
		return b.bindSequence(e)
	case "arrays_zip":
		return b.bindArraysZip(e)
	case "map_concat":
		return b.bindMapConcat(e)
	case "map_entries":
		x, mt, err := b.mapArg(e, 0)
		if err != nil {
			return nil, err
		}
		return &callN{fn: e.Name, args: []node{x}, t: &schema.Array{Element: entryType(mt.Key, mt.Value, mt.ValueContainsNull)}}, nil
	case "map_from_arrays":
		k, kt, err := b.arrayArg(e, 0)
		if err != nil {
			return nil, err
		}
		v, vt, err := b.arrayArg(e, 1)
		if err != nil {
			return nil, err
		}
		if err := mapKeyType(e, kt.Element); err != nil {
			return nil, err
		}
		return &callN{fn: e.Name, args: []node{k, v}, t: &schema.Map{Key: kt.Element, Value: vt.Element, ValueContainsNull: vt.ContainsNull}}, nil
	case "map_from_entries":
		x, at, err := b.arrayArg(e, 0)
		if err != nil {
			return nil, err
		}
		st, ok := at.Element.(*schema.Struct)
		if !ok || len(st.Fields) != 2 {
			return nil, errAt(e.Args[0], "map_from_entries needs an array of two-field structs, not %s", typeName(at))
		}
		if err := mapKeyType(e, st.Fields[0].Type); err != nil {
			return nil, err
		}
		return &callN{fn: e.Name, args: []node{x}, t: &schema.Map{Key: st.Fields[0].Type, Value: st.Fields[1].Type, ValueContainsNull: st.Fields[1].Nullable}}, nil
	}
	return nil, errAt(e, "%s is not a collection function", e.Name)
}

// entryType is the struct of a map entry, as map_entries names its fields.
func entryType(k, v schema.Type, vNull bool) *schema.Struct {
	return &schema.Struct{Fields: []*schema.Field{{Name: "key", Type: k}, {Name: "value", Type: v, Nullable: vNull}}}
}

// mapKeyType refuses a key type Spark refuses (a map) or cannot order.
func mapKeyType(e *Call, t schema.Type) error {
	if _, ok := t.(*schema.Map); ok {
		return errAt(e, "%s cannot make a map whose keys are maps (%s)", e.Name, typeName(t))
	}
	return orderable(e, t)
}

// bindStringConcat binds concat of strings: every argument a string.
func (b *binder) bindStringConcat(e *Call) (node, error) {
	args := make([]node, len(e.Args))
	for i, a := range e.Args {
		n, err := b.stringOperand(a)
		if err != nil {
			return nil, err
		}
		args[i] = n
	}
	return b.fold(&callN{fn: e.Name, args: args, t: tString}, e)
}

// nestedCoalesce binds coalesce (ifnull, nvl) of arrays, maps or
// structs: the arguments widen to one type, as Spark's coercion widens
// them.
func (b *binder) nestedCoalesce(e *Call, args []node) (node, error) {
	ts := make([]schema.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	t, err := widest(e, "values", e.Args, ts)
	if err != nil {
		return nil, err
	}
	return &callN{fn: e.Name, args: args, t: t}, nil
}

// bindConcatWs binds concat_ws(sep, ...): strings, and arrays whose
// elements are written as strings (CAST ... AS STRING), as Spark takes them.
func (b *binder) bindConcatWs(e *Call) (node, error) {
	args := make([]node, len(e.Args))
	for i, a := range e.Args {
		x, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		if at, ok := x.Type().(*schema.Array); ok && i > 0 {
			if !isAtomic(at.Element) {
				return nil, errAt(a, "concat_ws takes strings and arrays of atomic values, not %s (%s)", a, typeName(at))
			}
			args[i] = x
			continue
		}
		if args[i], err = b.stringOperand(a); err != nil {
			return nil, err
		}
	}
	return b.fold(&callN{fn: e.Name, args: args, t: tString}, e)
}

// arraysOfOneType binds arguments from..end of e, arrays whose element
// types meet in one (the result's type).
func (b *binder) arraysOfOneType(e *Call, from int) (*callN, error) {
	var args []node
	var ts []schema.Type
	containsNull := false
	for i := from; i < len(e.Args); i++ {
		x, at, err := b.arrayArg(e, i)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
		ts = append(ts, at.Element)
		containsNull = containsNull || at.ContainsNull
	}
	t, err := widest(e, "arrays", e.Args[from:], ts)
	if err != nil {
		return nil, err
	}
	return &callN{fn: e.Name, args: args, t: &schema.Array{Element: t, ContainsNull: containsNull}}, nil
}

// arrayAndElement binds array_position, array_remove, array_append and
// array_prepend: an array and a value that meet in one element type.
func (b *binder) arrayAndElement(e *Call) (node, error) {
	x, at, err := b.arrayArg(e, 0)
	if err != nil {
		return nil, err
	}
	v, err := b.bind(e.Args[1])
	if err != nil {
		return nil, err
	}
	t, err := widest(e, "an array and an element", e.Args, []schema.Type{at.Element, v.Type()})
	if err != nil {
		return nil, err
	}
	if err := orderable(e, t); err != nil && (e.Name == "array_position" || e.Name == "array_remove") {
		return nil, err
	}
	var rt schema.Type = &schema.Array{Element: t, ContainsNull: at.ContainsNull}
	switch e.Name {
	case "array_position":
		rt = tLong
	case "array_append", "array_prepend":
		rt = &schema.Array{Element: t, ContainsNull: at.ContainsNull || mayBeNull(v)}
	}
	return &callN{fn: e.Name, args: []node{x, v}, t: rt}, nil
}

func (b *binder) bindArray(e *Call) (node, error) {
	if len(e.Args) == 0 {
		return &callN{fn: e.Name, t: &schema.Array{Element: tVoid}}, nil
	}
	args := make([]node, len(e.Args))
	ts := make([]schema.Type, len(e.Args))
	containsNull := false
	for i, a := range e.Args {
		x, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		args[i], ts[i] = x, x.Type()
		containsNull = containsNull || mayBeNull(x)
	}
	t, err := widest(e, "elements", e.Args, ts)
	if err != nil {
		return nil, err
	}
	return &callN{fn: e.Name, args: args, t: &schema.Array{Element: t, ContainsNull: containsNull}}, nil
}

func (b *binder) bindMap(e *Call) (node, error) {
	if len(e.Args)%2 != 0 {
		return nil, errAt(e, "map takes keys and values in pairs, got %d argument(s)", len(e.Args))
	}
	if len(e.Args) == 0 {
		return &callN{fn: e.Name, t: &schema.Map{Key: tVoid, Value: tVoid}}, nil
	}
	args := make([]node, len(e.Args))
	var kts, vts []schema.Type
	var ksrc, vsrc []Expr
	vNull := false
	for i, a := range e.Args {
		x, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		args[i] = x
		if i%2 == 0 {
			kts, ksrc = append(kts, x.Type()), append(ksrc, a)
		} else {
			vts, vsrc = append(vts, x.Type()), append(vsrc, a)
			vNull = vNull || mayBeNull(x)
		}
	}
	kt, err := widest(e, "keys", ksrc, kts)
	if err != nil {
		return nil, err
	}
	if err := mapKeyType(e, kt); err != nil {
		return nil, err
	}
	vt, err := widest(e, "values", vsrc, vts)
	if err != nil {
		return nil, err
	}
	return &callN{fn: e.Name, args: args, t: &schema.Map{Key: kt, Value: vt, ValueContainsNull: vNull}}, nil
}

func (b *binder) bindNamedStruct(e *Call) (node, error) {
	if len(e.Args) == 0 || len(e.Args)%2 != 0 {
		return nil, errAt(e, "named_struct takes names and values in pairs, got %d argument(s)", len(e.Args))
	}
	st := &schema.Struct{}
	args := make([]node, len(e.Args))
	for i := 0; i < len(e.Args); i += 2 {
		name, err := b.bind(e.Args[i])
		if err != nil {
			return nil, err
		}
		var s string
		if l, ok := name.(*lit); ok {
			s, ok = l.v.(string)
			if !ok {
				return nil, errAt(e.Args[i], "named_struct's field names must be constant strings, not %s", e.Args[i])
			}
		} else {
			return nil, errAt(e.Args[i], "named_struct's field names must be constant strings, not %s", e.Args[i])
		}
		if st.Field(s) != nil {
			return nil, errAt(e.Args[i], "named_struct gives the field %s twice, which a Delta column cannot hold", quoteString(s))
		}
		v, err := b.bind(e.Args[i+1])
		if err != nil {
			return nil, err
		}
		args[i], args[i+1] = name, v
		st.Fields = append(st.Fields, &schema.Field{Name: s, Type: v.Type(), Nullable: mayBeNull(v)})
	}
	return &callN{fn: e.Name, args: args, t: st}, nil
}

func (b *binder) bindSequence(e *Call) (node, error) {
	var args []node
	var ts []schema.Type
	for _, a := range e.Args {
		x, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		args, ts = append(args, x), append(ts, x.Type())
	}
	t, err := widest(e, "bounds", e.Args[:2], ts[:2])
	if err != nil {
		return nil, err
	}
	switch {
	case isIntegral(t):
		if len(args) == 3 {
			if !isIntegral(ts[2]) && !isVoid(ts[2]) {
				return nil, errAt(e.Args[2], "sequence of %s steps by an integer, not %s (%s)", typeName(t), e.Args[2], typeName(ts[2]))
			}
			if t, err = widest(e, "bounds and step", e.Args, ts); err != nil {
				return nil, err
			}
		}
	case (isType(t, schema.Date) || isTimestamp(t)) && len(args) == 2:
	case isType(t, schema.Date), isTimestamp(t):
		return nil, errAt(e, "sequence of %s values is supported a day apart (no step); an interval step is not supported", typeName(t))
	default:
		return nil, errAt(e, "sequence needs integers or dates, not %s", typeName(t))
	}
	for i := range args {
		if args[i], err = b.coerce(args[i], t, e.Args[i]); err != nil {
			return nil, err
		}
	}
	return &callN{fn: e.Name, args: args, t: &schema.Array{Element: t}}, nil
}

func (b *binder) bindArraysZip(e *Call) (node, error) {
	st := &schema.Struct{}
	var args []node
	for i := range e.Args {
		x, at, err := b.arrayArg(e, i)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprint(i)
		if c, ok := x.(*colRef); ok {
			name = c.path[len(c.path)-1]
		}
		args = append(args, x)
		st.Fields = append(st.Fields, &schema.Field{Name: name, Type: at.Element, Nullable: true})
	}
	return &callN{fn: e.Name, args: args, t: &schema.Array{Element: st}}, nil
}

func (b *binder) bindMapConcat(e *Call) (node, error) {
	if len(e.Args) == 0 {
		return &callN{fn: e.Name, t: &schema.Map{Key: tString, Value: tString}}, nil
	}
	var args []node
	var kts, vts []schema.Type
	vNull := false
	for i := range e.Args {
		x, mt, err := b.mapArg(e, i)
		if err != nil {
			return nil, err
		}
		args, kts, vts = append(args, x), append(kts, mt.Key), append(vts, mt.Value)
		vNull = vNull || mt.ValueContainsNull
	}
	kt, err := widest(e, "maps with keys", e.Args, kts)
	if err != nil {
		return nil, err
	}
	vt, err := widest(e, "maps with values", e.Args, vts)
	if err != nil {
		return nil, err
	}
	return &callN{fn: e.Name, args: args, t: &schema.Map{Key: kt, Value: vt, ValueContainsNull: vNull}}, nil
}

// collectionErr is the error of a row Spark's ANSI mode fails.
func collectionErr(format string, args ...any) error {
	return errs.New(errs.InvalidArgument, "", format, args...)
}
