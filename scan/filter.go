package scan

import (
	"fmt"
	"math"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/stats"
)

// Op is a filter operator, spelled as in delta-rs partition filters.
type Op string

// Filter operators.
const (
	Eq    Op = "="
	Ne    Op = "!="
	Lt    Op = "<"
	Le    Op = "<="
	Gt    Op = ">"
	Ge    Op = ">="
	In    Op = "in"
	NotIn Op = "not in"
)

// Filter is one condition on a top-level column: Column Op Values, as in
// delta-rs partition_filters ("year", "=", "2021"). Values are text, parsed
// with the column's Delta type ("2021-09-08", "1.50", "true"); comparisons
// take one value, In and NotIn any number.
//
// Nulls follow SQL: a null never satisfies a filter, not even != or not in.
type Filter struct {
	Column string
	Op     Op
	Values []string
}

// NewFilter builds a filter from delta-rs style parts; op is matched
// case-insensitively and also accepts "==", "<>" and "not_in".
func NewFilter(column, op string, values ...string) (Filter, error) {
	o, ok := parseOp(op)
	if !ok {
		return Filter{}, errs.New(errs.InvalidArgument, "", "unknown filter operator %q (want =, !=, <, <=, >, >=, in, not in)", op)
	}
	f := Filter{Column: column, Op: o, Values: append([]string(nil), values...)}
	if err := f.checkArity(); err != nil {
		return Filter{}, err
	}
	return f, nil
}

func parseOp(s string) (Op, bool) {
	switch strings.Join(strings.Fields(strings.ToLower(s)), " ") {
	case "=", "==":
		return Eq, true
	case "!=", "<>":
		return Ne, true
	case "<":
		return Lt, true
	case "<=":
		return Le, true
	case ">":
		return Gt, true
	case ">=":
		return Ge, true
	case "in":
		return In, true
	case "not in", "not_in", "notin":
		return NotIn, true
	}
	return "", false
}

func (f Filter) String() string {
	if f.Op == In || f.Op == NotIn {
		return fmt.Sprintf("%s %s (%s)", f.Column, f.Op, strings.Join(quoteAll(f.Values), ", "))
	}
	return fmt.Sprintf("%s %s %s", f.Column, f.Op, strings.Join(quoteAll(f.Values), ", "))
}

func quoteAll(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

func (f Filter) checkArity() error {
	switch f.Op {
	case In, NotIn:
		return nil
	case Eq, Ne, Lt, Le, Gt, Ge:
		if len(f.Values) != 1 {
			return errs.New(errs.InvalidArgument, "", "filter %s needs exactly one value, got %d", f.Column+" "+string(f.Op), len(f.Values))
		}
		return nil
	}
	return errs.New(errs.InvalidArgument, "", "unknown filter operator %q", f.Op)
}

// boundFilter is a Filter resolved against the table schema.
type boundFilter struct {
	Filter
	field     *schema.Field
	partition bool
	key       string // partitionValues key (physical name under column mapping)
	values    []stats.Value
}

func bindFilter(f Filter, sc *schema.Struct, partCols map[string]bool, mode schema.Mode) (*boundFilter, error) {
	if err := f.checkArity(); err != nil {
		return nil, err
	}
	fld := sc.Field(f.Column)
	if fld == nil {
		return nil, errs.New(errs.InvalidArgument, "", "filter %s: no column %q in the table", f, f.Column)
	}
	switch fld.Type.(type) {
	case *schema.Struct, *schema.Array, *schema.Map:
		return nil, errs.New(errs.InvalidArgument, "", "filter %s: column %q is of nested type %s", f, fld.Name, fld.Type)
	}
	if p, ok := fld.Type.(*schema.Primitive); ok && p.Name == schema.Variant {
		return nil, errs.New(errs.InvalidArgument, "", "filter %s: variant column %q cannot be compared", f, fld.Name)
	}
	b := &boundFilter{Filter: f, field: fld, partition: partCols[fld.Name], key: fld.PhysicalName(mode)}
	for _, v := range f.Values {
		sv, err := stats.ParseValue(fld.Type, v)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "filter %s on %s column %q", f, fld.Type, fld.Name)
		}
		b.values = append(b.values, sv)
	}
	return b, nil
}

// order compares two values of the same kind for row evaluation, with
// NaN equal to itself and above every other float, as Spark orders them.
func order(a, b stats.Value) int {
	if a.Kind == stats.Float {
		an, bn := math.IsNaN(a.Float), math.IsNaN(b.Float)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
	}
	c, _ := stats.Compare(a, b)
	return c
}

// matches reports whether a non-null value satisfies the filter.
func (b *boundFilter) matches(v stats.Value) bool {
	switch b.Op {
	case Eq:
		return order(v, b.values[0]) == 0
	case Ne:
		return order(v, b.values[0]) != 0
	case Lt:
		return order(v, b.values[0]) < 0
	case Le:
		return order(v, b.values[0]) <= 0
	case Gt:
		return order(v, b.values[0]) > 0
	case Ge:
		return order(v, b.values[0]) >= 0
	case In, NotIn:
		found := false
		for _, x := range b.values {
			if order(v, x) == 0 {
				found = true
				break
			}
		}
		return found == (b.Op == In)
	}
	return false
}

// skipByStats returns a reason when the statistics prove that no row of a
// file satisfies the filter, and "" when the file must be read. Unknown
// statistics never skip.
func (b *boundFilter) skipByStats(c stats.Column, numRecords int64) string {
	if numRecords == 0 {
		return "the file has no rows"
	}
	if numRecords > 0 && c.NullCount == numRecords {
		return fmt.Sprintf("every value of %s is null", b.field.Name)
	}
	below := func(v stats.Value) bool { // v < min
		r, ok := stats.Compare(v, c.Min)
		return ok && r < 0
	}
	// A float column's max may leave out NaN, which sorts above every
	// number (writers disagree on whether NaN counts): never skip on it.
	nanBlind := isFloat(b.field.Type)
	above := func(v stats.Value) bool { // v > max
		r, ok := stats.Compare(v, c.Max)
		return ok && r > 0 && !nanBlind
	}
	constant := func() (stats.Value, bool) { // min == max: every non-null value
		r, ok := stats.Compare(c.Min, c.Max)
		return c.Min, ok && r == 0 && !nanBlind
	}
	bounds := func() string {
		return fmt.Sprintf("statistics of %s: min %s, max %s", b.field.Name, c.Min, c.Max)
	}
	switch b.Op {
	case Eq, In:
		for _, v := range b.values {
			if !below(v) && !above(v) {
				return ""
			}
		}
		return bounds()
	case Ne, NotIn:
		k, ok := constant()
		if !ok {
			return ""
		}
		for _, v := range b.values {
			if r, ok := stats.Compare(k, v); ok && r == 0 {
				return bounds()
			}
		}
		return ""
	case Lt, Le:
		r, ok := stats.Compare(c.Min, b.values[0])
		if ok && (r > 0 || (r == 0 && b.Op == Lt)) {
			return bounds()
		}
	case Gt, Ge:
		r, ok := stats.Compare(c.Max, b.values[0])
		if ok && !nanBlind && (r < 0 || (r == 0 && b.Op == Gt)) {
			return bounds()
		}
	}
	return ""
}

func isFloat(t schema.Type) bool {
	p, ok := t.(*schema.Primitive)
	return ok && (p.Name == schema.Float || p.Name == schema.Double)
}
