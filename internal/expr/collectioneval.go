package expr

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
)

// collectionFunction evaluates the functions bindCollectionFunc binds,
// row by row over their Go values.
func (ev *evaluator) collectionFunction(n *callN, args []value) (value, error) {
	if _, ok := n.t.(*schema.Array); !ok && (n.fn == "reverse" || n.fn == "concat") {
		if n.fn == "reverse" {
			return ev.strFunction(n, args)
		}
		return ev.mapRows(args, tString, true, func(v []any) (any, error) {
			var sb strings.Builder
			for _, x := range v {
				sb.WriteString(x.(string))
			}
			return sb.String(), nil
		})
	}
	b, err := newBuilder(ev.mem, n.t)
	if err != nil {
		return value{}, err
	}
	defer b.Release()
	get := make([]func(int) any, len(args))
	for i, a := range args {
		get[i] = nestedOf(a)
	}
	vals := make([]any, len(args))
	b.Reserve(ev.n)
	for i := 0; i < ev.n; i++ {
		for k := range args {
			vals[k] = get[k](i)
		}
		out, err := ev.collectionRow(n, vals)
		if err != nil {
			return value{}, err
		}
		appendNested(b, out)
	}
	return value{arr: b.NewArray()}, nil
}

// anyNil reports whether one of vs is NULL.
func anyNil(vs []any) bool { return slices.Contains(vs, nil) }

// elemType is the element type of array type t.
func elemType(t schema.Type) schema.Type {
	if a, ok := t.(*schema.Array); ok {
		return a.Element
	}
	return tVoid
}

// toElems converts an array value of type from to elements of type to.
func (ev *evaluator) toElems(v any, from, to schema.Type) ([]any, error) {
	if v == nil {
		return nil, nil
	}
	c, err := castNested(v, from, &schema.Array{Element: to}, ev.loc)
	if err != nil {
		return nil, err
	}
	return c.([]any), nil
}

// collectionRow computes one row of n from its arguments' values.
func (ev *evaluator) collectionRow(n *callN, v []any) (any, error) {
	argT := func(i int) schema.Type { return n.args[i].Type() }
	switch n.fn {
	case "array":
		out := make([]any, len(v))
		for i, x := range v {
			c, err := castNested(x, argT(i), elemType(n.t), ev.loc)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case "map":
		mt := n.t.(*schema.Map)
		m := newMapBuilder(mt.Key)
		for i := 0; i < len(v); i += 2 {
			k, err := castNested(v[i], argT(i), mt.Key, ev.loc)
			if err != nil {
				return nil, err
			}
			x, err := castNested(v[i+1], argT(i+1), mt.Value, ev.loc)
			if err != nil {
				return nil, err
			}
			if err := m.put(k, x); err != nil {
				return nil, err
			}
		}
		return m.m, nil
	case "named_struct":
		s := &structVal{}
		for i := 1; i < len(v); i += 2 {
			s.vals = append(s.vals, v[i])
		}
		return s, nil
	case "map_concat":
		if anyNil(v) {
			return nil, nil
		}
		mt := n.t.(*schema.Map)
		m := newMapBuilder(mt.Key)
		for i, x := range v {
			c, err := castNested(x, argT(i), mt, ev.loc)
			if err != nil {
				return nil, err
			}
			cm := c.(*strMap)
			for j := range cm.keys {
				if err := m.put(cm.keys[j], cm.vals[j]); err != nil {
					return nil, err
				}
			}
		}
		return m.m, nil
	case "map_entries":
		if v[0] == nil {
			return nil, nil
		}
		m := v[0].(*strMap)
		out := make([]any, len(m.keys))
		for i := range m.keys {
			out[i] = &structVal{vals: []any{m.keys[i], m.vals[i]}}
		}
		return out, nil
	case "map_from_arrays":
		if anyNil(v) {
			return nil, nil
		}
		ks, xs := v[0].([]any), v[1].([]any)
		if len(ks) != len(xs) {
			return nil, collectionErr("map_from_arrays: the key array has %d elements and the value array %d; they must have the same length", len(ks), len(xs))
		}
		m := newMapBuilder(n.t.(*schema.Map).Key)
		for i := range ks {
			if err := m.put(ks[i], xs[i]); err != nil {
				return nil, err
			}
		}
		return m.m, nil
	case "map_from_entries":
		if v[0] == nil {
			return nil, nil
		}
		m := newMapBuilder(n.t.(*schema.Map).Key)
		for _, e := range v[0].([]any) {
			if e == nil {
				return nil, nil
			}
			s := e.(*structVal)
			if err := m.put(s.vals[0], s.vals[1]); err != nil {
				return nil, err
			}
		}
		return m.m, nil
	case "array_repeat":
		if v[1] == nil {
			return nil, nil
		}
		k := int64(v[1].(int32))
		if k > maxArrayLength {
			return nil, collectionErr("array_repeat: %d elements exceed the limit of %d an array holds", k, maxArrayLength)
		}
		out := make([]any, max(k, 0))
		for i := range out {
			out[i] = v[0]
		}
		return out, nil
	case "arrays_zip":
		if anyNil(v) {
			return nil, nil
		}
		size := 0
		for _, x := range v {
			size = max(size, len(x.([]any)))
		}
		out := make([]any, size)
		for i := range out {
			s := &structVal{vals: make([]any, len(v))}
			for j, x := range v {
				if a := x.([]any); i < len(a) {
					s.vals[j] = a[i]
				}
			}
			out[i] = s
		}
		return out, nil
	case "sequence":
		if isTimestamp(elemType(n.t)) {
			return ev.timestampSequence(n, v)
		}
		return sequenceRow(n, v)
	case "concat_ws":
		return ev.concatWs(n, v)
	case "coalesce", "ifnull", "nvl":
		for i, x := range v {
			if x != nil {
				return castNested(x, argT(i), n.t, ev.loc)
			}
		}
		return nil, nil
	case subscriptFn:
		return subscriptRow(n, v)
	case fieldFn:
		return fieldRow(n, v), nil
	}
	// Functions of an array (the first argument) and more: NULL when the
	// array is.
	if v[0] == nil && n.fn != "array_append" && n.fn != "array_prepend" && n.fn != "array_insert" || n.fn == "concat" && anyNil(v) {
		return nil, nil
	}
	et := elemType(n.t)
	arr, _ := v[0].([]any)
	switch n.fn {
	case "reverse":
		out := slices.Clone(arr)
		slices.Reverse(out)
		return out, nil
	case "concat":
		var out []any
		for i, x := range v {
			a, err := ev.toElems(x, argT(i), et)
			if err != nil {
				return nil, err
			}
			out = append(out, a...)
		}
		if len(out) > maxArrayLength {
			return nil, collectionErr("concat: %d elements exceed the limit of %d an array holds", len(out), maxArrayLength)
		}
		return nonNil(out), nil
	case "array_size":
		return int32(len(arr)), nil
	case "array_compact":
		out := []any{}
		for _, x := range arr {
			if x != nil {
				out = append(out, x)
			}
		}
		return out, nil
	case "flatten":
		out := []any{}
		for _, x := range arr {
			if x == nil {
				return nil, nil
			}
			out = append(out, x.([]any)...)
		}
		return out, nil
	case "array_join":
		if anyNil(v[1:]) {
			return nil, nil
		}
		parts := make([]string, 0, len(arr))
		for _, x := range arr {
			if x == nil {
				if len(v) > 2 {
					parts = append(parts, v[2].(string))
				}
				continue
			}
			s, err := castValue(x, elemType(argT(0)), tString, ev.loc)
			if err != nil {
				return nil, err
			}
			parts = append(parts, s.(string))
		}
		return strings.Join(parts, v[1].(string)), nil
	case "array_max", "array_min":
		et = elemType(argT(0))
		var best any
		for _, x := range arr {
			if x == nil {
				continue
			}
			c := 0
			if best != nil {
				c = compareNested(x, best, et)
			}
			if best == nil || n.fn == "array_max" && c > 0 || n.fn == "array_min" && c < 0 {
				best = x
			}
		}
		return best, nil
	case "sort_array", "array_sort":
		out := slices.Clone(arr)
		asc := n.fn == "array_sort" || len(v) < 2 || v[1].(bool)
		nullsFirst := n.fn == "sort_array" && asc
		slices.SortStableFunc(out, func(a, b any) int {
			switch {
			case a == nil && b == nil:
				return 0
			case a == nil && nullsFirst, b == nil && !nullsFirst:
				return -1
			case a == nil, b == nil:
				return 1
			}
			if asc {
				return compareNested(a, b, et)
			}
			return compareNested(b, a, et)
		})
		return nonNil(out), nil
	case "slice":
		if anyNil(v[1:]) {
			return nil, nil
		}
		start, length := int(v[1].(int32)), int(v[2].(int32))
		switch {
		case start == 0:
			return nil, collectionErr("slice: the start 0 is invalid; expects a positive or a negative value for start (the first element is 1)")
		case length < 0:
			return nil, collectionErr("slice: the length %d is invalid; expects a length greater than or equal to 0", length)
		}
		i := start - 1
		if start < 0 {
			i = len(arr) + start
		}
		if i < 0 || i >= len(arr) {
			return []any{}, nil
		}
		// Spark adds the length to the index in 32 bits: past 2^31-1 the
		// end wraps below the start and the slice is empty.
		end := int(int32(i) + int32(length))
		if end <= i {
			return []any{}, nil
		}
		return slices.Clone(arr[i:min(len(arr), end)]), nil
	case "array_distinct":
		return distinct(arr, et), nil
	case "array_union", "array_intersect", "array_except", "arrays_overlap":
		if v[1] == nil {
			return nil, nil
		}
		a, err := ev.toElems(v[0], argT(0), et0(n))
		if err != nil {
			return nil, err
		}
		b, err := ev.toElems(v[1], argT(1), et0(n))
		if err != nil {
			return nil, err
		}
		return setOp(n.fn, a, b, et0(n)), nil
	case "array_position", "array_remove":
		if v[1] == nil {
			return nil, nil
		}
		t := et
		if n.fn == "array_position" {
			t, _ = elemWider(elemType(argT(0)), argT(1))
		}
		a, err := ev.toElems(v[0], argT(0), t)
		if err != nil {
			return nil, err
		}
		x, err := castNested(v[1], argT(1), t, ev.loc)
		if err != nil {
			return nil, err
		}
		out := []any{}
		for i, y := range a {
			eq := y != nil && compareNested(y, x, t) == 0
			if n.fn == "array_position" && eq {
				return int64(i + 1), nil
			}
			if !eq {
				out = append(out, y)
			}
		}
		if n.fn == "array_position" {
			return int64(0), nil
		}
		return out, nil
	case "array_append", "array_prepend":
		if v[0] == nil {
			return nil, nil
		}
		a, err := ev.toElems(v[0], argT(0), et)
		if err != nil {
			return nil, err
		}
		x, err := castNested(v[1], argT(1), et, ev.loc)
		if err != nil {
			return nil, err
		}
		if n.fn == "array_append" {
			return append(a, x), nil
		}
		return append([]any{x}, a...), nil
	case "array_insert":
		if v[0] == nil || v[1] == nil {
			return nil, nil
		}
		a, err := ev.toElems(v[0], argT(0), et)
		if err != nil {
			return nil, err
		}
		x, err := castNested(v[2], argT(2), et, ev.loc)
		if err != nil {
			return nil, err
		}
		return arrayInsert(a, int64(v[1].(int32)), x)
	}
	return nil, fmt.Errorf("function %s cannot be evaluated", n.fn)
}

// concatWs is one row of concat_ws: NULL for a NULL separator, the other
// NULLs (arguments and elements) left out.
func (ev *evaluator) concatWs(n *callN, v []any) (any, error) {
	if v[0] == nil {
		return nil, nil
	}
	var parts []string
	for i, x := range v[1:] {
		switch x := x.(type) {
		case string:
			parts = append(parts, x)
		case []any:
			et := elemType(n.args[i+1].Type())
			for _, y := range x {
				if y == nil {
					continue
				}
				s, err := castValue(y, et, tString, ev.loc)
				if err != nil {
					return nil, err
				}
				parts = append(parts, s.(string))
			}
		}
	}
	return strings.Join(parts, v[0].(string)), nil
}

// et0 is the element type the set functions compare in: the result's, or
// for arrays_overlap the wider of the two arrays' elements.
func et0(n *callN) schema.Type {
	if a, ok := n.t.(*schema.Array); ok {
		return a.Element
	}
	t, _ := elemWider(elemType(n.args[0].Type()), elemType(n.args[1].Type()))
	return t
}

// nonNil is out, or an empty array for nil.
func nonNil(out []any) []any {
	if out == nil {
		return []any{}
	}
	return out
}

// arrayInsert is Spark's array_insert: a 1-based position, counted from
// the end when negative (-1 after the last element), NULLs filling a gap.
func arrayInsert(a []any, pos int64, x any) (any, error) {
	n := int64(len(a))
	switch {
	case pos == 0:
		return nil, collectionErr("array_insert: the index 0 is invalid; an index shall be either < 0 or > 0 (the first element has index 1)")
	case pos > 0:
		size := max(n, pos-1) + 1
		if size > maxArrayLength {
			return nil, collectionErr("array_insert: %d elements exceed the limit of %d an array holds", size, maxArrayLength)
		}
		out := make([]any, size)
		copy(out, a[:min(n, pos-1)])
		out[pos-1] = x
		if pos-1 < n {
			copy(out[pos:], a[pos-1:])
		}
		return out, nil
	}
	// negative: -1 inserts after the last element
	idx := n + pos + 1 // the position of x in the result, 0-based
	if idx >= 0 {
		out := make([]any, 0, n+1)
		out = append(out, a[:idx]...)
		out = append(out, x)
		return append(out, a[idx:]...), nil
	}
	size := n - idx + 1
	if size > maxArrayLength {
		return nil, collectionErr("array_insert: %d elements exceed the limit of %d an array holds", size, maxArrayLength)
	}
	out := make([]any, size)
	out[0] = x
	copy(out[-idx+1:], a)
	return out, nil
}

// mapBuilder builds a map value as Spark's ArrayBasedMapBuilder does with
// the EXCEPTION policy: a NULL key or one given twice fails; keys are
// stored normalised (-0.0 as 0.0).
type mapBuilder struct {
	m    *strMap
	keys *valueSet
}

func newMapBuilder(kt schema.Type) *mapBuilder {
	return &mapBuilder{m: &strMap{}, keys: newValueSet(kt)}
}

func (b *mapBuilder) put(k, x any) error {
	if k == nil {
		return collectionErr("cannot use NULL as a map key")
	}
	k = normalizeFloat(k)
	if b.keys.has(k) {
		return collectionErr("duplicate map key %s; a key may appear once (spark.sql.mapKeyDedupPolicy=EXCEPTION)", formatNested(k, b.keys.t))
	}
	b.keys.add(k)
	b.m.keys = append(b.m.keys, k)
	b.m.vals = append(b.m.vals, x)
	return nil
}

// formatNested is a value as an error shows it.
func formatNested(v any, t schema.Type) string {
	if isAtomic(t) {
		return formatValue(v, t)
	}
	return fmt.Sprint(v)
}

// distinct is the elements of in, each once, in order (-0.0 stored as
// 0.0, as Spark's hash sets store it).
func distinct(in []any, t schema.Type) []any {
	out := []any{}
	seen := newValueSet(t)
	for _, x := range in {
		x = normalizeFloat(x)
		if !seen.has(x) {
			seen.add(x)
			out = append(out, x)
		}
	}
	return out
}

// setOp is array_union, array_intersect, array_except or arrays_overlap
// of a and b.
func setOp(fn string, a, b []any, t schema.Type) any {
	if fn == "array_union" {
		return distinct(append(slices.Clip(a), b...), t)
	}
	inB := newValueSet(t)
	for _, x := range b {
		inB.add(x)
	}
	if fn == "arrays_overlap" {
		hasNull := false
		for _, x := range a {
			if x == nil {
				hasNull = true
				continue
			}
			if inB.has(x) {
				return true
			}
		}
		if len(a) > 0 && len(b) > 0 && (hasNull || inB.has(nil)) {
			return nil
		}
		return false
	}
	keep := fn == "array_intersect"
	var out []any
	for _, x := range a {
		if inB.has(x) == keep {
			out = append(out, x)
		}
	}
	return distinct(out, t)
}

// sequenceRow is Spark's sequence of integers (step 1 or -1 by default)
// or of dates a day apart.
func sequenceRow(n *callN, v []any) (any, error) {
	if anyNil(v) {
		return nil, nil
	}
	et := elemType(n.t)
	var start, stop, step int64
	start, stop = toInt64(v[0]), toInt64(v[1])
	step = 1
	if stop < start {
		step = -1
	}
	if len(v) > 2 {
		step = toInt64(v[2])
	}
	if !(step > 0 && start <= stop || step < 0 && start >= stop || step == 0 && start == stop) {
		return nil, collectionErr("sequence: illegal sequence boundaries: %d to %d by %d", start, stop, step)
	}
	count := int64(1)
	if start != stop {
		// |stop - start| / |step| + 1, computed without overflow
		d := uint64(stop - start)
		s := uint64(step)
		if step < 0 {
			d, s = uint64(start-stop), uint64(-step)
		}
		count = int64(d/s) + 1
		if d/s+1 > maxArrayLength {
			return nil, collectionErr("sequence: %d elements exceed the limit of %d an array holds", d/s+1, maxArrayLength)
		}
	}
	out := make([]any, count)
	x := start
	for i := range out {
		out[i] = fromInt64(x, et)
		x += step
	}
	return out, nil
}

// timestampSequence is Spark's sequence of timestamps with its default
// step, a day (back when stop is before start): start plus i days on the
// local time-line of the session time zone (of UTC for TIMESTAMP_NTZ),
// keeping start's offset where it is valid, as ZonedDateTime.plusDays.
func (ev *evaluator) timestampSequence(n *callN, v []any) (any, error) {
	if anyNil(v) {
		return nil, nil
	}
	loc := ev.loc
	if isType(elemType(n.t), schema.TimestampNTZ) {
		loc = time.UTC
	}
	start, stop := int64(v[0].(arrow.Timestamp)), int64(v[1].(arrow.Timestamp))
	day := int64(microsPerDay)
	if stop < start {
		day = -day
	}
	if count := (stop-start)/day + 2; count > maxArrayLength {
		return nil, collectionErr("sequence: %d elements exceed the limit of %d an array holds", count, maxArrayLength)
	}
	off, w := offsetMicros(loc, start), localMicros(loc, start)
	out := []any{}
	for i := int64(0); ; i++ {
		t := zonedMicrosKeeping(loc, w+i*day, off)
		if day > 0 && t > stop || day < 0 && t < stop {
			return out, nil
		}
		out = append(out, arrow.Timestamp(t))
	}
}

// toInt64 is an integer, a date's day number or a timestamp's
// microseconds as an int64; 0 for anything else.
func toInt64(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case arrow.Date32:
		return int64(x)
	case arrow.Timestamp:
		return int64(x)
	}
	return 0
}

func fromInt64(x int64, t schema.Type) any {
	switch primName(t) {
	case schema.Byte:
		return int8(x)
	case schema.Short:
		return int16(x)
	case schema.Integer:
		return int32(x)
	case schema.Date:
		return arrow.Date32(x)
	}
	return x
}
