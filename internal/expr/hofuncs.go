package expr

import (
	"math"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// The higher-order functions, as Spark 4 computes them with ANSI mode:
// transform, filter, exists, forall (three-valued: NULL when no element
// decides and one gives NULL), aggregate / reduce (the accumulator of the
// start's type), zip_with, transform_keys (a NULL or repeated key fails,
// as spark.sql.mapKeyDedupPolicy=EXCEPTION does), transform_values,
// map_filter and map_zip_with (float keys compared as Spark normalises
// them: -0.0 is 0.0, every NaN one key). A NULL array or map gives NULL. Each
// lambda's body is evaluated once per batch over every row's elements
// (aggregate's merge once per element position), as lambda.go lays them
// out; exists and forall stop at the element that decides, as Spark's do,
// so that one failing after it fails nothing.

// hofFuncs are the functions of this file (their arities are in
// functions).
var hofFuncs = map[string]bool{"transform": true, "filter": true, "exists": true, "forall": true, "aggregate": true,
	"reduce": true, "zip_with": true, "transform_keys": true, "transform_values": true, "map_filter": true, "map_zip_with": true}

func hofNames() string {
	names := make([]string, 0, len(hofFuncs))
	for n := range hofFuncs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// bindHOF binds the functions of this file.
func (b *binder) bindHOF(e *Call) (node, error) {
	x, err := b.bind(e.Args[0])
	if err != nil {
		return nil, err
	}
	at, isArr := x.Type().(*schema.Array)
	mt, isMap := x.Type().(*schema.Map)
	onMap := strings.HasPrefix(e.Name, "map_") || strings.HasPrefix(e.Name, "transform_")
	switch {
	case onMap && !isMap:
		return nil, errAt(e.Args[0], "%s needs a map, not %s (%s)", e.Name, e.Args[0], typeName(x.Type()))
	case !onMap && !isArr:
		return nil, errAt(e.Args[0], "%s needs an array, not %s (%s)", e.Name, e.Args[0], typeName(x.Type()))
	}
	args := []node{x}
	var t schema.Type
	switch e.Name {
	case "transform", "filter", "exists", "forall":
		l, err := b.bindLambda(e, e.Args[1], []schema.Type{at.Element, tInt}, lambdaArities[e.Name]...)
		if err != nil {
			return nil, err
		}
		t = &schema.Array{Element: l.Type(), ContainsNull: true}
		if e.Name != "transform" {
			if l.body, err = b.predicateBody(e, l); err != nil {
				return nil, err
			}
			t = x.Type()
			if e.Name != "filter" {
				t = tBool
			}
		}
		args = append(args, l)
	case "aggregate", "reduce":
		zero, err := b.bind(e.Args[1])
		if err != nil {
			return nil, err
		}
		acc := zero.Type()
		merge, err := b.bindLambda(e, e.Args[2], []schema.Type{acc, at.Element}, 2)
		if err != nil {
			return nil, err
		}
		if !sameType(merge.Type(), acc) {
			return nil, errAt(e.Args[2], "%s's merge function gives %s where the start value's type %s is needed: CAST the start value AS %s, or the merge's result AS %s",
				e.Name, typeName(merge.Type()), typeName(acc), typeName(merge.Type()), typeName(acc))
		}
		args, t = append(args, zero, merge), acc
		if len(e.Args) == 4 {
			finish, err := b.bindLambda(e, e.Args[3], []schema.Type{acc}, 1)
			if err != nil {
				return nil, err
			}
			args, t = append(args, finish), finish.Type()
		}
	case "zip_with":
		y, err := b.bind(e.Args[1])
		if err != nil {
			return nil, err
		}
		bt, ok := y.Type().(*schema.Array)
		if !ok {
			return nil, errAt(e.Args[1], "zip_with needs an array, not %s (%s)", e.Args[1], typeName(y.Type()))
		}
		l, err := b.bindLambda(e, e.Args[2], []schema.Type{at.Element, bt.Element}, 2)
		if err != nil {
			return nil, err
		}
		args, t = append(args, y, l), &schema.Array{Element: l.Type(), ContainsNull: true}
	case "map_zip_with":
		y, err := b.bind(e.Args[1])
		if err != nil {
			return nil, err
		}
		mt2, ok := y.Type().(*schema.Map)
		if !ok {
			return nil, errAt(e.Args[1], "map_zip_with needs a map, not %s (%s)", e.Args[1], typeName(y.Type()))
		}
		if !sameType(mt.Key, mt2.Key) || !isAtomic(mt.Key) {
			return nil, errAt(e, "map_zip_with needs maps of one atomic key type, not %s and %s; CAST one of them", typeName(mt.Key), typeName(mt2.Key))
		}
		l, err := b.bindLambda(e, e.Args[2], []schema.Type{mt.Key, mt.Value, mt2.Value}, 3)
		if err != nil {
			return nil, err
		}
		args, t = append(args, y, l), &schema.Map{Key: mt.Key, Value: l.Type(), ValueContainsNull: true}
	default: // transform_keys, transform_values, map_filter
		l, err := b.bindLambda(e, e.Args[1], []schema.Type{mt.Key, mt.Value}, 2)
		if err != nil {
			return nil, err
		}
		switch e.Name {
		case "transform_keys":
			if !isAtomic(l.Type()) || isVoid(l.Type()) {
				return nil, errAt(e.Args[1], "transform_keys gives keys of type %s, which is not supported; a key is of an atomic type", typeName(l.Type()))
			}
			t = &schema.Map{Key: l.Type(), Value: mt.Value, ValueContainsNull: mt.ValueContainsNull}
		case "transform_values":
			t = &schema.Map{Key: mt.Key, Value: l.Type(), ValueContainsNull: true}
		default:
			if l.body, err = b.predicateBody(e, l); err != nil {
				return nil, err
			}
			t = x.Type()
		}
		args = append(args, l)
	}
	return &callN{fn: e.Name, args: args, t: t}, nil
}

// lambdaArities are the numbers of variables the array functions' lambda
// functions take: the element, and its index (from 0) for transform and
// filter.
var lambdaArities = map[string][]int{"transform": {1, 2}, "filter": {1, 2}, "exists": {1}, "forall": {1}}

// predicateBody is the body of a lambda function that must be a
// predicate.
func (b *binder) predicateBody(e *Call, l *lambdaN) (node, error) {
	t := l.body.Type()
	switch {
	case isBool(t):
		return l.body, nil
	case isVoid(t):
		return b.coerce(l.body, tBool, e)
	}
	return nil, errAt(e, "the lambda function of %s gives %s where a boolean is needed", e.Name, typeName(t))
}

// hofFunction evaluates the functions bindHOF binds.
func (ev *evaluator) hofFunction(n *callN, args []value) (value, error) {
	lists := make([]array.ListLike, 0, 2)
	for i, a := range n.args {
		switch a.Type().(type) {
		case *schema.Array, *schema.Map:
			if _, isLambda := a.(*lambdaN); isLambda || i == 1 && (n.fn == "aggregate" || n.fn == "reduce") {
				continue
			}
			arr, err := ev.array(args[i])
			if err != nil {
				return value{}, err
			}
			defer arr.Release()
			l, ok := arr.(array.ListLike)
			if !ok {
				return value{}, errs.New(errs.Internal, "", "%s of a %T", n.fn, arr)
			}
			lists = append(lists, l)
		}
	}
	lam := n.args[len(n.args)-1].(*lambdaN)
	var out arrow.Array
	var err error
	switch n.fn {
	case "transform", "filter":
		out, err = ev.transformArray(n, lists[0], lam)
	case "exists", "forall":
		out, err = ev.quantify(n.fn == "exists", lists[0], lam)
	case "aggregate", "reduce":
		var finish *lambdaN
		merge := n.args[2].(*lambdaN)
		if len(n.args) == 4 {
			finish = lam
		}
		out, err = ev.aggregate(lists[0], args[1], merge, finish)
	case "zip_with":
		out, err = ev.zipWith(n, lists[0], lists[1], lam)
	case "map_zip_with":
		out, err = ev.mapZipWith(n, lists[0].(*array.Map), lists[1].(*array.Map), lam)
	default:
		out, err = ev.transformMap(n, lists[0].(*array.Map), lam)
	}
	if err != nil {
		return value{}, err
	}
	return value{arr: out}, nil
}

// transformArray is transform or filter of list.
func (ev *evaluator) transformArray(n *callN, list array.ListLike, l *lambdaN) (arrow.Array, error) {
	f := flatten(list, ev.n)
	elems, err := ev.take(list.ListValues(), f.idx)
	if err != nil {
		return nil, err
	}
	defer elems.Release()
	pos := ev.indexArray(f.pos)
	defer pos.Release()
	res, err := ev.apply(l, f.rowOf, elems, pos)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	if n.fn == "transform" {
		return ev.listOf(n.t, list.IsValid, f.offs, res)
	}
	offs, kept := f.kept(res.(*array.Boolean))
	child, err := ev.take(list.ListValues(), kept)
	if err != nil {
		return nil, err
	}
	defer child.Release()
	return ev.listOf(n.t, list.IsValid, offs, child)
}

// kept is the offsets, and the indexes in the child values, of the
// elements whose truth is TRUE.
func (f *flat) kept(truth *array.Boolean) (offs, kept []int32) {
	offs = make([]int32, len(f.offs))
	for i := 0; i+1 < len(f.offs); i++ {
		for k := f.offs[i]; k < f.offs[i+1]; k++ {
			if truth.IsValid(int(k)) && truth.Value(int(k)) {
				kept = append(kept, f.idx[k])
			}
		}
		offs[i+1] = int32(len(kept))
	}
	return offs, kept
}

// quantify is exists or forall of list.
func (ev *evaluator) quantify(exists bool, list array.ListLike, l *lambdaN) (arrow.Array, error) {
	f := flatten(list, ev.n)
	elems, err := ev.take(list.ListValues(), f.idx)
	if err != nil {
		return nil, err
	}
	defer elems.Release()
	b := array.NewBooleanBuilder(ev.mem)
	defer b.Release()
	res, err := ev.apply(l, f.rowOf, elems)
	if err != nil {
		// Spark stops at the element that decides: an element after it
		// fails nothing. Evaluate element by element to find whether the
		// failing one is reached.
		return ev.quantifyEach(exists, list, f, elems, l)
	}
	defer res.Release()
	truth := res.(*array.Boolean)
	for i := 0; i < ev.n; i++ {
		if !list.IsValid(i) {
			b.AppendNull()
			continue
		}
		appendValue(b, decide(exists, f.offs[i], f.offs[i+1], func(k int32) any { return goValue(truth, int(k)) }))
	}
	return b.NewArray(), nil
}

// decide is exists or forall of the truth values of elements s to e
// as Spark's ArrayExists and ArrayForAll compute it, stopping at the
// element that decides.
func decide(exists bool, s, e int32, truth func(int32) any) any {
	null := false
	for k := s; k < e; k++ {
		switch v := truth(k); {
		case v == nil:
			null = true
		case v.(bool) == exists:
			return exists
		}
	}
	if null {
		return nil
	}
	return !exists
}

// quantifyEach is quantify evaluating one element at a time, in order.
func (ev *evaluator) quantifyEach(exists bool, list array.ListLike, f *flat, elems arrow.Array, l *lambdaN) (arrow.Array, error) {
	b := array.NewBooleanBuilder(ev.mem)
	defer b.Release()
	for i := 0; i < ev.n; i++ {
		if !list.IsValid(i) {
			b.AppendNull()
			continue
		}
		var err error
		v := decide(exists, f.offs[i], f.offs[i+1], func(k int32) any {
			if err != nil {
				return exists // stop
			}
			x := array.NewSlice(elems, int64(k), int64(k)+1)
			defer x.Release()
			var r arrow.Array
			if r, err = ev.apply(l, []int32{int32(i)}, x); err != nil {
				return exists
			}
			defer r.Release()
			return goValue(r, 0)
		})
		if err != nil {
			return nil, err
		}
		appendValue(b, v)
	}
	return b.NewArray(), nil
}

// aggregate folds every row's elements into the start value with merge,
// then applies finish (when given) to the result. The merge runs once per
// element position, over the rows whose arrays are that long.
func (ev *evaluator) aggregate(list array.ListLike, start value, merge, finish *lambdaN) (arrow.Array, error) {
	f := flatten(list, ev.n)
	zero, err := ev.array(start)
	if err != nil {
		return nil, err
	}
	pieces := []arrow.Array{zero} // the accumulators of every step, end to end
	defer func() { releaseArrays(pieces) }()
	final := make([]int32, ev.n) // each row's accumulator among pieces
	var active []int32           // the rows with elements left
	for i := range final {
		final[i] = int32(i)
		if f.offs[i+1] > f.offs[i] {
			active = append(active, int32(i))
		}
	}
	acc, err := ev.takeNullable(zero, active)
	if err != nil {
		return nil, err
	}
	base := int32(zero.Len())
	for k := int32(0); len(active) > 0; k++ {
		xi := make([]int32, len(active))
		for j, r := range active {
			xi[j] = f.idx[f.offs[r]+k]
		}
		x, err := ev.takeNullable(list.ListValues(), xi)
		if err != nil {
			acc.Release()
			return nil, err
		}
		next, err := ev.apply(merge, active, acc, x)
		acc.Release()
		x.Release()
		if err != nil {
			return nil, err
		}
		pieces = append(pieces, next)
		var still, at []int32
		for j, r := range active {
			final[r] = base + int32(j)
			if f.offs[r+1]-f.offs[r] > k+1 {
				still, at = append(still, r), append(at, int32(j))
			}
		}
		base += int32(next.Len())
		if acc, err = ev.takeNullable(next, at); err != nil {
			return nil, err
		}
		active = still
	}
	acc.Release()
	all, err := array.Concatenate(pieces, ev.mem)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	var valid []int32 // the rows of a non-null array
	for i := 0; i < ev.n; i++ {
		if list.IsValid(i) {
			valid = append(valid, int32(i))
		}
	}
	pick := make([]int32, len(valid))
	for j, r := range valid {
		pick[j] = final[r]
	}
	res, err := ev.takeNullable(all, pick)
	if err != nil {
		return nil, err
	}
	if finish != nil {
		done, err := ev.apply(finish, valid, res)
		res.Release()
		if err != nil {
			return nil, err
		}
		res = done
	}
	defer res.Release()
	return ev.spread(res, valid)
}

// spread is vals, the values of the given rows, as a value for each row
// of the batch: NULL for the others.
func (ev *evaluator) spread(vals arrow.Array, rows []int32) (arrow.Array, error) {
	idx := make([]int32, ev.n)
	for i := range idx {
		idx[i] = -1
	}
	for j, r := range rows {
		idx[r] = int32(j)
	}
	return ev.takeNullable(vals, idx)
}

// zipWith is zip_with of a and b: the shorter array's missing elements
// are NULL.
func (ev *evaluator) zipWith(n *callN, a, b array.ListLike, l *lambdaN) (arrow.Array, error) {
	valid := func(i int) bool { return a.IsValid(i) && b.IsValid(i) }
	offs := make([]int32, ev.n+1)
	var ia, ib, rowOf []int32
	for i := 0; i < ev.n; i++ {
		if valid(i) {
			as, ae := a.ValueOffsets(i)
			bs, be := b.ValueOffsets(i)
			for j := int64(0); j < max(ae-as, be-bs); j++ {
				ia, ib, rowOf = append(ia, elemAt(as, ae, j)), append(ib, elemAt(bs, be, j)), append(rowOf, int32(i))
			}
		}
		offs[i+1] = int32(len(rowOf))
	}
	x, err := ev.takeNullable(a.ListValues(), ia)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	y, err := ev.takeNullable(b.ListValues(), ib)
	if err != nil {
		return nil, err
	}
	defer y.Release()
	res, err := ev.apply(l, rowOf, x, y)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return ev.listOf(n.t, valid, offs, res)
}

// elemAt is the index of element j of the list from s to e, -1 past its
// end.
func elemAt(s, e, j int64) int32 {
	if s+j < e {
		return int32(s + j)
	}
	return -1
}

// transformMap is transform_keys, transform_values or map_filter of m.
func (ev *evaluator) transformMap(n *callN, m *array.Map, l *lambdaN) (arrow.Array, error) {
	f := flatten(m, ev.n)
	keys, err := ev.take(m.Keys(), f.idx)
	if err != nil {
		return nil, err
	}
	defer keys.Release()
	vals, err := ev.take(m.Items(), f.idx)
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	res, err := ev.apply(l, f.rowOf, keys, vals)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	switch n.fn {
	case "transform_keys":
		for i := 0; i < ev.n; i++ {
			seen := map[any]bool{}
			for k := f.offs[i]; k < f.offs[i+1]; k++ {
				key := goValue(res, int(k))
				if key == nil {
					return nil, errs.New(errs.InvalidArgument, "", "transform_keys: a NULL map key; Spark cannot use NULL as a map key")
				}
				if seen[mapKey(key)] {
					return nil, errs.New(errs.InvalidArgument, "", "transform_keys: duplicate map key %s (Spark's default spark.sql.mapKeyDedupPolicy=EXCEPTION fails it)", literalExpr(&lit{v: key, t: n.t.(*schema.Map).Key}))
				}
				seen[mapKey(key)] = true
			}
		}
		return ev.mapOf(n.t, m.IsValid, f.offs, res, vals)
	case "transform_values":
		return ev.mapOf(n.t, m.IsValid, f.offs, keys, res)
	}
	offs, kept := f.kept(res.(*array.Boolean))
	keys2, err := ev.take(m.Keys(), kept)
	if err != nil {
		return nil, err
	}
	defer keys2.Release()
	vals2, err := ev.take(m.Items(), kept)
	if err != nil {
		return nil, err
	}
	defer vals2.Release()
	return ev.mapOf(n.t, m.IsValid, offs, keys2, vals2)
}

// mapKey is a map key as a comparable Go value equal for the keys Spark
// takes as one: floats by their bits, normalised as Spark normalises map
// keys (one NaN, -0.0 as 0.0; the key keeps its sign).
func mapKey(v any) any {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case float64:
		if x != x {
			return nanKey{64}
		}
		return math.Float64bits(x + 0) // -0.0 + 0 is 0.0
	case float32:
		if x != x {
			return nanKey{32}
		}
		return math.Float32bits(x + 0)
	}
	return v
}

// mapZipWith is map_zip_with of a and b: the keys of a in order, then
// those of b that a lacks, each with its value in a and in b (NULL when
// absent).
func (ev *evaluator) mapZipWith(n *callN, a, b *array.Map, l *lambdaN) (arrow.Array, error) {
	valid := func(i int) bool { return a.IsValid(i) && b.IsValid(i) }
	offs := make([]int32, ev.n+1)
	var ki, ia, ib, rowOf []int32 // ki indexes a's keys, then b's after them
	na := int32(a.Keys().Len())
	for i := 0; i < ev.n; i++ {
		if valid(i) {
			as, ae := a.ValueOffsets(i)
			bs, be := b.ValueOffsets(i)
			at := map[any]int{}
			for j := as; j < ae; j++ {
				at[mapKey(goValue(a.Keys(), int(j)))] = len(ia)
				ki, ia, ib, rowOf = append(ki, int32(j)), append(ia, int32(j)), append(ib, -1), append(rowOf, int32(i))
			}
			for j := bs; j < be; j++ {
				if p, ok := at[mapKey(goValue(b.Keys(), int(j)))]; ok {
					ib[p] = int32(j)
					continue
				}
				ki, ia, ib, rowOf = append(ki, na+int32(j)), append(ia, -1), append(ib, int32(j)), append(rowOf, int32(i))
			}
		}
		offs[i+1] = int32(len(rowOf))
	}
	both, err := array.Concatenate([]arrow.Array{a.Keys(), b.Keys()}, ev.mem)
	if err != nil {
		return nil, err
	}
	defer both.Release()
	keys, err := ev.takeNullable(both, ki)
	if err != nil {
		return nil, err
	}
	keys = ev.normalizedKeys(keys)
	defer keys.Release()
	x, err := ev.takeNullable(a.Items(), ia)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	y, err := ev.takeNullable(b.Items(), ib)
	if err != nil {
		return nil, err
	}
	defer y.Release()
	res, err := ev.apply(l, rowOf, keys, x, y)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return ev.mapOf(n.t, valid, offs, keys, res)
}

// normalizedKeys is keys with -0.0 as 0.0, as map_zip_with gives its
// float keys (taking keys' reference).
func (ev *evaluator) normalizedKeys(keys arrow.Array) arrow.Array {
	switch a := keys.(type) {
	case *array.Float64:
		b := array.NewFloat64Builder(ev.mem)
		defer b.Release()
		for _, x := range a.Float64Values() {
			b.Append(x + 0) // -0.0 + 0 is 0.0
		}
		keys.Release()
		return b.NewArray()
	case *array.Float32:
		b := array.NewFloat32Builder(ev.mem)
		defer b.Release()
		for _, x := range a.Float32Values() {
			b.Append(x + 0)
		}
		keys.Release()
		return b.NewArray()
	}
	return keys
}

// listOf is the array (of Delta type t) of n rows whose row i, when
// valid, holds elements offs[i] to offs[i+1] of child.
func (ev *evaluator) listOf(t schema.Type, valid func(int) bool, offs []int32, child arrow.Array) (arrow.Array, error) {
	dt, err := arrowType(t)
	if err != nil {
		return nil, err
	}
	return ev.nested(dt, valid, offs, child.Data()), nil
}

// nested is the list or map of type dt of n rows whose row i, when valid,
// holds elements offs[i] to offs[i+1] of child.
func (ev *evaluator) nested(dt arrow.DataType, valid func(int) bool, offs []int32, child arrow.ArrayData) arrow.Array {
	bitmap, nulls := ev.validity(valid)
	if bitmap != nil {
		defer bitmap.Release()
	}
	offBuf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs))
	data := array.NewData(dt, ev.n, []*memory.Buffer{bitmap, offBuf}, []arrow.ArrayData{child}, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// mapOf is the map (of Delta type t) of n rows whose row i, when valid,
// holds entries offs[i] to offs[i+1] of keys and vals.
func (ev *evaluator) mapOf(t schema.Type, valid func(int) bool, offs []int32, keys, vals arrow.Array) (arrow.Array, error) {
	dt, err := arrowType(t)
	if err != nil {
		return nil, err
	}
	mt := dt.(*arrow.MapType)
	entries := array.NewData(mt.Elem(), keys.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), vals.Data()}, 0, 0)
	defer entries.Release()
	return ev.nested(dt, valid, offs, entries), nil
}

// validity is the bitmap of the rows valid reports, nil when all are.
func (ev *evaluator) validity(valid func(int) bool) (*memory.Buffer, int) {
	nulls := 0
	for i := 0; i < ev.n; i++ {
		if !valid(i) {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(ev.mem)
	buf.Resize(int(bitutil.BytesForBits(int64(ev.n))))
	bits := buf.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	for i := 0; i < ev.n; i++ {
		bitutil.SetBitTo(bits, i, valid(i))
	}
	return buf, nulls
}
