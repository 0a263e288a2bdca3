package expr

import (
	"cmp"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/schema"
)

// Nested values as Go values, for the functions of collectionfuncs.go: an
// array is a []any, a map a *strMap (its entries in order), a struct a
// *structVal; atomic values are those of goValue. nil is NULL.

// structVal is a struct value: one value per field, in order.
type structVal struct{ vals []any }

// nestedGo reads row i of arr as a Go value, nested values included.
func nestedGo(arr arrow.Array, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Map:
		start, end := a.ValueOffsets(i)
		m := &strMap{}
		for j := start; j < end; j++ {
			m.keys = append(m.keys, nestedGo(a.Keys(), int(j)))
			m.vals = append(m.vals, nestedGo(a.Items(), int(j)))
		}
		return m
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, nestedGo(a.ListValues(), int(j)))
		}
		return out
	case *array.Struct:
		s := &structVal{vals: make([]any, a.NumField())}
		for j := range s.vals {
			s.vals[j] = nestedGo(a.Field(j), i)
		}
		return s
	}
	return goValue(arr, i)
}

// nestedOf is row access to a value: an array's rows, or a scalar's one
// value for every row (a nested scalar is always NULL here).
func nestedOf(v value) func(int) any {
	if v.arr == nil {
		c := scalarGo(v.sc)
		return func(int) any { return c }
	}
	return func(i int) any { return nestedGo(v.arr, i) }
}

// appendNested appends a Go value of any type to a builder of its type (a
// struct as a *structVal, or as the []any of its fields).
func appendNested(b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.MapBuilder:
		m := v.(*strMap)
		b.Append(true)
		for i := range m.keys {
			appendNested(b.KeyBuilder(), m.keys[i])
			appendNested(b.ItemBuilder(), m.vals[i])
		}
	case *array.ListBuilder:
		b.Append(true)
		for _, x := range v.([]any) {
			appendNested(b.ValueBuilder(), x)
		}
	case *array.StructBuilder:
		vals, ok := v.([]any) // from_json's structs
		if !ok {
			vals = v.(*structVal).vals
		}
		b.Append(true)
		for j, x := range vals {
			appendNested(b.FieldBuilder(j), x)
		}
	case *array.NullBuilder:
		b.AppendNull()
	default:
		appendValue(b, v)
	}
}

// castNested converts a value of type from to type to (a type Spark's
// coercion widens from to): element by element, atomic values as an
// implicit CAST converts them (a failing one is an error).
func castNested(v any, from, to schema.Type, loc *time.Location) (any, error) {
	if v == nil || isVoid(from) {
		return nil, nil
	}
	switch ft := from.(type) {
	case *schema.Array:
		tt := to.(*schema.Array)
		in := v.([]any)
		out := make([]any, len(in))
		for i, x := range in {
			c, err := castNested(x, ft.Element, tt.Element, loc)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case *schema.Map:
		tt := to.(*schema.Map)
		in := v.(*strMap)
		out := &strMap{keys: make([]any, len(in.keys)), vals: make([]any, len(in.vals))}
		for i := range in.keys {
			k, err := castNested(in.keys[i], ft.Key, tt.Key, loc)
			if err != nil {
				return nil, err
			}
			x, err := castNested(in.vals[i], ft.Value, tt.Value, loc)
			if err != nil {
				return nil, err
			}
			out.keys[i], out.vals[i] = k, x
		}
		return out, nil
	case *schema.Struct:
		tt := to.(*schema.Struct)
		in := v.(*structVal)
		out := &structVal{vals: make([]any, len(in.vals))}
		for i, f := range ft.Fields {
			c, err := castNested(in.vals[i], f.Type, tt.Fields[i].Type, loc)
			if err != nil {
				return nil, err
			}
			out.vals[i] = c
		}
		return out, nil
	}
	if sameType(from, to) {
		return v, nil
	}
	return castValue(v, from, to, loc)
}

// compareNested orders two non-null values of one type as Spark's
// ordering does: floats with -0.0 equal to 0.0 and NaN equal to NaN and
// greater than any other value, strings and binaries by their bytes,
// arrays and structs element by element with NULL first, then by length.
func compareNested(a, b any, t schema.Type) int {
	switch t := t.(type) {
	case *schema.Array:
		x, y := a.([]any), b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := compareNullsFirst(x[i], y[i], t.Element); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	case *schema.Struct:
		x, y := a.(*structVal), b.(*structVal)
		for i, f := range t.Fields {
			if c := compareNullsFirst(x.vals[i], y.vals[i], f.Type); c != 0 {
				return c
			}
		}
		return 0
	}
	return compareValues(a, b)
}

// compareNullsFirst is compareNested with NULL before any value.
func compareNullsFirst(a, b any, t schema.Type) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return compareNested(a, b, t)
}

// normalizeFloat is v with -0.0 as 0.0 (and every NaN as one NaN), as
// Spark stores map keys and the elements its hash sets collect.
func normalizeFloat(v any) any {
	switch x := v.(type) {
	case float64:
		if x == 0 {
			return 0.0
		}
		if math.IsNaN(x) {
			return math.NaN()
		}
	case float32:
		if x == 0 {
			return float32(0)
		}
		if x != x {
			return float32(math.NaN())
		}
	}
	return v
}

// valueSet holds values of one type for the functions that look values
// up (distinct elements, set operations, map keys): atomic values hashed
// by a key equal for the values Spark's ordering finds equal, nested ones
// in a list compared one by one.
type valueSet struct {
	t      schema.Type
	hashed map[any]bool
	nested []any
}

func newValueSet(t schema.Type) *valueSet { return &valueSet{t: t, hashed: map[any]bool{}} }

// nullKey, nanKey and bytesKey stand for NULL, NaN (of 32 or 64 bits) and
// a binary value in a valueSet's keys.
type (
	nullKey  struct{}
	nanKey   struct{ bits int }
	bytesKey string
)

// hashKey is the comparable key of an atomic value; ok is false for an
// array or struct.
func hashKey(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nullKey{}, true
	case float64:
		if math.IsNaN(x) {
			return nanKey{64}, true
		}
		return x + 0, true // -0.0 + 0 is 0.0
	case float32:
		if x != x {
			return nanKey{32}, true
		}
		return x + 0, true
	case []byte:
		return bytesKey(x), true
	case []any, *strMap, *structVal:
		return nil, false
	}
	return v, true
}

func (s *valueSet) has(x any) bool {
	if k, ok := hashKey(x); ok {
		return s.hashed[k]
	}
	for _, y := range s.nested {
		if compareNested(x, y, s.t) == 0 {
			return true
		}
	}
	return false
}

func (s *valueSet) add(x any) {
	if k, ok := hashKey(x); ok {
		s.hashed[k] = true
		return
	}
	s.nested = append(s.nested, x)
}
