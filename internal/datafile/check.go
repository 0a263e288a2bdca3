package datafile

import (
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// checkBatch verifies that rec has the table's logical shape (what Conform
// produces) and no null where the schema forbids one in the rows sel
// marks (nil: every row).
func checkBatch(rec arrow.RecordBatch, sc *schema.Struct, logical *arrow.Schema, sel []bool) error {
	if int(rec.NumCols()) != len(sc.Fields) {
		return errs.New(errs.SchemaMismatch, "", "the batch has %d columns, the table %d (%s); Conform casts a batch to the table schema",
			rec.NumCols(), len(sc.Fields), sc)
	}
	var bad []string
	for i, f := range sc.Fields {
		got := rec.Schema().Field(i)
		want := logical.Field(i)
		if !strings.EqualFold(got.Name, f.Name) || !sameShape(got.Type, want.Type) {
			bad = append(bad, fmt.Sprintf("column %d is %q %s, the table has %q %s", i, got.Name, got.Type, f.Name, want.Type))
		}
	}
	if len(bad) > 0 {
		return errs.New(errs.SchemaMismatch, "", "%s; Conform casts a batch to the table schema", strings.Join(bad, "; "))
	}
	var nulls NullCounts
	if nulls.Add(rec, sc, sel) {
		return errs.New(errs.SchemaMismatch, "", "null values in non-nullable columns: %s", &nulls)
	}
	return nil
}

// NullCounts tallies the nulls of rows where a schema forbids them (see
// nullViolations), by column path, over any number of batches: an
// operation that checks every batch before failing names each column at
// fault with its total, not the first batch's count. Safe for concurrent
// use; the zero value is empty.
type NullCounts struct {
	mu    sync.Mutex
	paths []string // in the order first found
	n     map[string]int64
}

// Add counts the violations among the rows of rec that keep marks (nil:
// every row), rec having sc's logical shape, and reports whether there
// were any.
func (c *NullCounts) Add(rec arrow.RecordBatch, sc *schema.Struct, keep []bool) bool {
	var found []nullCount
	for i, f := range sc.Fields {
		found = nullViolations(found, rec.Column(i), f.Type, f.Nullable, f.Name, keep)
	}
	c.add(found)
	return len(found) > 0
}

func (c *NullCounts) add(found []nullCount) {
	if len(found) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int64{}
	}
	for _, v := range found {
		if _, seen := c.n[v.path]; !seen {
			c.paths = append(c.paths, v.path)
		}
		c.n[v.path] += int64(v.n)
	}
}

// Any reports whether a violation was counted.
func (c *NullCounts) Any() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.paths) > 0
}

// String lists the columns and their counts: "\"id\" has 3 nulls; ...".
func (c *NullCounts) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	parts := make([]string, len(c.paths))
	for i, p := range c.paths {
		parts[i] = fmt.Sprintf("%q has %d nulls", p, c.n[p])
	}
	return strings.Join(parts, "; ")
}

// nullCount is one column's forbidden nulls in one array.
type nullCount struct {
	path string
	n    int
}

// sameShape compares an array type with the table's Arrow type, ignoring
// nullability and the names of list and map fields, and any zone of a
// zoned timestamp (all zones store UTC instants).
func sameShape(got, want arrow.DataType) bool {
	switch w := want.(type) {
	case *arrow.StructType:
		g, ok := got.(*arrow.StructType)
		if !ok || g.NumFields() != w.NumFields() {
			return false
		}
		for i := range w.NumFields() {
			if !strings.EqualFold(g.Field(i).Name, w.Field(i).Name) || !sameShape(g.Field(i).Type, w.Field(i).Type) {
				return false
			}
		}
		return true
	case *arrow.MapType:
		g, ok := got.(*arrow.MapType)
		return ok && sameShape(g.KeyType(), w.KeyType()) && sameShape(g.ItemType(), w.ItemType())
	case *arrow.ListType:
		g, ok := got.(*arrow.ListType)
		return ok && got.ID() == arrow.LIST && sameShape(g.Elem(), w.Elem())
	case *arrow.TimestampType:
		g, ok := got.(*arrow.TimestampType)
		return ok && g.Unit == w.Unit && (g.TimeZone == "") == (w.TimeZone == "")
	case *arrow.Decimal128Type:
		g, ok := got.(*arrow.Decimal128Type)
		return ok && g.Precision == w.Precision && g.Scale == w.Scale
	}
	return got.ID() == want.ID()
}

// nullViolations appends the count of every null that the schema
// forbids: in a non-nullable column, a non-nullable struct field whose
// struct is not null, an array element or map value declared without nulls,
// or a map key. valid (nil: all rows) marks the rows counted: those kept
// whose ancestors are not null.
func nullViolations(out []nullCount, arr arrow.Array, t schema.Type, nullable bool, path string, valid []bool) []nullCount {
	if arr.DataType().ID() == arrow.NULL {
		if n := countValid(valid, arr.Len()); !nullable && n > 0 {
			out = append(out, nullCount{path, n})
		}
		return out
	}
	if !nullable && arr.NullN() > 0 {
		if n := countNullsIn(arr, valid); n > 0 {
			out = append(out, nullCount{path, n})
		}
	}
	switch t := t.(type) {
	case *schema.Struct:
		s, ok := arr.(*array.Struct)
		if !ok {
			return out
		}
		var childValid []bool
		needMask := false
		for i, f := range t.Fields {
			if !f.Nullable && s.Field(i).NullN() > 0 || hasStrictChild(f.Type) {
				needMask = true
			}
		}
		if !needMask {
			return out
		}
		childValid = andValid(valid, arr)
		for i, f := range t.Fields {
			out = nullViolations(out, s.Field(i), f.Type, f.Nullable, path+"."+f.Name, childValid)
		}
	case *schema.Array:
		if l, ok := arr.(array.ListLike); ok {
			out = nullViolations(out, l.ListValues(), t.Element, t.ContainsNull, path+".element", nil)
		}
	case *schema.Map:
		if m, ok := arr.(*array.Map); ok {
			out = nullViolations(out, m.Keys(), t.Key, false, path+".key", nil)
			out = nullViolations(out, m.Items(), t.Value, t.ValueContainsNull, path+".value", nil)
		}
	}
	return out
}

// hasStrictChild reports whether anything below t forbids nulls.
func hasStrictChild(t schema.Type) bool {
	switch t := t.(type) {
	case *schema.Struct:
		for _, f := range t.Fields {
			if !f.Nullable || hasStrictChild(f.Type) {
				return true
			}
		}
	case *schema.Array:
		return !t.ContainsNull || hasStrictChild(t.Element)
	case *schema.Map:
		return true // keys are never null
	}
	return false
}

// andValid narrows valid (nil: every row) by arr's own nulls.
func andValid(valid []bool, arr arrow.Array) []bool {
	if arr.NullN() == 0 {
		return valid
	}
	out := make([]bool, arr.Len())
	bm, off := arr.NullBitmapBytes(), arr.Data().Offset()
	for i := range out {
		out[i] = (valid == nil || valid[i]) && (bm == nil || bitutil.BitIsSet(bm, off+i))
	}
	return out
}

func countNullsIn(arr arrow.Array, valid []bool) int {
	if valid == nil {
		return arr.NullN()
	}
	n := 0
	for i, v := range valid {
		if v && arr.IsNull(i) {
			n++
		}
	}
	return n
}

func countValid(valid []bool, n int) int {
	if valid == nil {
		return n
	}
	c := 0
	for _, v := range valid {
		if v {
			c++
		}
	}
	return c
}
