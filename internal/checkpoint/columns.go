package checkpoint

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Typed accessors over one Arrow column of a batch. Each is built once per
// batch, so the per-row work is an index and a type-specific load. A missing
// column (nil array) reads as null in every row: checkpoints written by
// different engines carry different optional fields.

type (
	strFn  func(i int) (string, bool)
	intFn  func(i int) (int64, bool)
	boolFn func(i int) (bool, bool)
	// mapFn returns nil for a null map; a null value reads as "".
	mapFn func(i int) map[string]string
	// listFn returns nil for a null list.
	listFn func(i int) []string
)

// colErr reports a column of a type the decoder cannot read.
func colErr(key, col string, dt arrow.DataType, want string) error {
	return errs.New(errs.CorruptTable, key, "checkpoint column %s has type %s, not %s", col, dt, want)
}

// child returns the named field of a struct column, or nil.
func child(s *array.Struct, name string) arrow.Array {
	if s == nil {
		return nil
	}
	idx, ok := s.DataType().(*arrow.StructType).FieldIdx(name)
	if !ok {
		return nil
	}
	return s.Field(idx)
}

// asStruct returns a struct column, nil when absent.
func asStruct(key, col string, a arrow.Array) (*array.Struct, error) {
	if a == nil {
		return nil, nil
	}
	s, ok := a.(*array.Struct)
	if !ok {
		return nil, colErr(key, col, a.DataType(), "a struct")
	}
	return s, nil
}

// structChild returns the named struct field of s, nil when absent.
func structChild(key, col string, s *array.Struct, name string) (*array.Struct, error) {
	return asStruct(key, col+"."+name, child(s, name))
}

// valid reports whether row i of a struct column holds a value.
func valid(s *array.Struct, i int) bool { return s != nil && s.IsValid(i) }

func nullStr(int) (string, bool) { return "", false }

// stringCol reads a string (or binary) column. The values of a batch are
// copied into one Go string and each row is a substring of it: one
// allocation per column and batch instead of one per row, and nothing keeps
// pointing into Arrow buffers after the batch is released.
// fields binds the fields of an action's struct column s by name, each
// named col.name in errors; err is the first error, in binding order.
type fields struct {
	key, col string
	s        *array.Struct
	parent   *fields // a nested struct's errors are its parent's
	err      error
}

// nested binds the fields of s, the struct field name of f's column.
func (f *fields) nested(name string, s *array.Struct) *fields {
	return &fields{key: f.key, col: f.col + "." + name, s: s, parent: f}
}

func (f *fields) keep(err error) {
	switch {
	case f.parent != nil:
		f.parent.keep(err)
	case f.err == nil:
		f.err = err
	}
}

// field binds field name of f's column with the decoder col (stringCol,
// intCol, ...).
func field[F any](f *fields, name string, col func(key, col string, a arrow.Array) (F, error)) F {
	fn, err := col(f.key, f.col+"."+name, child(f.s, name))
	f.keep(err)
	return fn
}

// deletionVector binds the deletionVector field of f's column.
func (f *fields) deletionVector() *dvDec {
	d, err := newDVDec(f.key, f.col, f.s)
	f.keep(err)
	return d
}

func stringCol(key, col string, a arrow.Array) (strFn, error) {
	switch c := a.(type) {
	case nil:
		return nullStr, nil
	case *array.String:
		var arena string
		var base int32
		made := false
		offs := c.ValueOffsets()
		return func(i int) (string, bool) {
			if c.IsNull(i) {
				return "", false
			}
			if !made {
				arena, base, made = string(c.ValueBytes()), offs[0], true
			}
			return arena[offs[i]-base : offs[i+1]-base], true
		}, nil
	case *array.LargeString:
		return func(i int) (string, bool) {
			if c.IsNull(i) {
				return "", false
			}
			return strings.Clone(c.Value(i)), true
		}, nil
	case *array.StringView:
		return func(i int) (string, bool) {
			if c.IsNull(i) {
				return "", false
			}
			return strings.Clone(c.Value(i)), true
		}, nil
	case *array.Binary:
		return func(i int) (string, bool) {
			if c.IsNull(i) {
				return "", false
			}
			return string(c.Value(i)), true
		}, nil
	case *array.Null:
		return nullStr, nil
	}
	return nil, colErr(key, col, a.DataType(), "a string")
}

// intCol reads any integer column as int64.
func intCol(key, col string, a arrow.Array) (intFn, error) {
	switch c := a.(type) {
	case nil, *array.Null:
		return func(int) (int64, bool) { return 0, false }, nil
	case *array.Int64:
		return func(i int) (int64, bool) { return c.Value(i), c.IsValid(i) }, nil
	case *array.Int32:
		return func(i int) (int64, bool) { return int64(c.Value(i)), c.IsValid(i) }, nil
	case *array.Int16:
		return func(i int) (int64, bool) { return int64(c.Value(i)), c.IsValid(i) }, nil
	case *array.Int8:
		return func(i int) (int64, bool) { return int64(c.Value(i)), c.IsValid(i) }, nil
	case *array.Uint64:
		return func(i int) (int64, bool) { return int64(c.Value(i)), c.IsValid(i) }, nil
	case *array.Uint32:
		return func(i int) (int64, bool) { return int64(c.Value(i)), c.IsValid(i) }, nil
	case *array.Uint16:
		return func(i int) (int64, bool) { return int64(c.Value(i)), c.IsValid(i) }, nil
	case *array.Uint8:
		return func(i int) (int64, bool) { return int64(c.Value(i)), c.IsValid(i) }, nil
	}
	return nil, colErr(key, col, a.DataType(), "an integer")
}

func boolCol(key, col string, a arrow.Array) (boolFn, error) {
	switch c := a.(type) {
	case nil, *array.Null:
		return func(int) (bool, bool) { return false, false }, nil
	case *array.Boolean:
		return func(i int) (bool, bool) { return c.Value(i), c.IsValid(i) }, nil
	}
	return nil, colErr(key, col, a.DataType(), "a boolean")
}

// mapCol reads a map<string,string> column. A Parquet MAP without its
// logical annotation arrives as list<struct<key,value>>; both are accepted.
func mapCol(key, col string, a arrow.Array) (mapFn, error) {
	var (
		l            interface{ ValueOffsets(int) (int64, int64) }
		keys, values arrow.Array
	)
	switch c := a.(type) {
	case nil, *array.Null:
		return func(int) map[string]string { return nil }, nil
	case *array.Map:
		l, keys, values = c, c.Keys(), c.Items()
	case *array.List:
		s, ok := c.ListValues().(*array.Struct)
		if !ok || s.NumField() != 2 {
			return nil, colErr(key, col, a.DataType(), "a map of strings")
		}
		l, keys, values = c, s.Field(0), s.Field(1)
	default:
		return nil, colErr(key, col, a.DataType(), "a map of strings")
	}
	k, err := stringCol(key, col+".key", keys)
	if err != nil {
		return nil, err
	}
	v, err := stringCol(key, col+".value", values)
	if err != nil {
		return nil, err
	}
	return func(i int) map[string]string {
		if a.IsNull(i) {
			return nil
		}
		start, end := l.ValueOffsets(i)
		m := make(map[string]string, end-start)
		for j := int(start); j < int(end); j++ {
			name, _ := k(j)
			m[name], _ = v(j)
		}
		return m
	}, nil
}

// listCol reads a list<string> column.
func listCol(key, col string, a arrow.Array) (listFn, error) {
	var l interface {
		arrow.Array
		ValueOffsets(int) (int64, int64)
		ListValues() arrow.Array
	}
	switch c := a.(type) {
	case nil, *array.Null:
		return func(int) []string { return nil }, nil
	case *array.List:
		l = c
	case *array.LargeList:
		l = c
	default:
		return nil, colErr(key, col, a.DataType(), "a list of strings")
	}
	e, err := stringCol(key, col+".element", l.ListValues())
	if err != nil {
		return nil, err
	}
	return func(i int) []string {
		if l.IsNull(i) {
			return nil
		}
		start, end := l.ValueOffsets(i)
		out := make([]string, 0, end-start)
		for j := int(start); j < int(end); j++ {
			s, _ := e(j)
			out = append(out, s)
		}
		return out
	}, nil
}
