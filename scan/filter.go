package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/schema"
)

// Op is a filter operator, spelled as in delta-rs partition filters: a
// string, so that a filter's operator may come from anywhere text does.
type Op = string

// Filter operators. Filters also accept them in any case and "==", "<>"
// and "not_in".
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

// Filter is one delta-rs filter on a top-level column: Column Op Value, as
// in delta-rs partition_filters ("year", "=", "2021"). A comparison takes
// one Value: text parsed with the column's Delta type ("2021-09-08",
// "1.50", "true"), or a number or bool (taken as its text). In and NotIn
// take a non-empty []string (or []any of such values). It marshals to JSON
// as delta-rs writes it: [column, op, value].
//
// The scan (WithFilters), OPTIMIZE's partition filters and the partition
// filters of package partitions all take this type. Nulls follow SQL: a
// null never satisfies a filter, not even != or not in. A filter is
// decided and evaluated by the same code as a SQL predicate (WithWhere).
type Filter struct {
	Column string
	Op     Op
	Value  any
}

// NewFilter builds a filter from delta-rs style parts, checked: op is
// matched case-insensitively and also accepts "==", "<>" and "not_in"; a
// comparison takes exactly one value, in and not in at least one.
func NewFilter(column, op string, values ...string) (Filter, error) {
	o, ok := expr.FilterOp(op)
	if !ok {
		return Filter{}, errs.New(errs.InvalidArgument, "", "unknown filter operator %q (want %s)", op, expr.FilterOps)
	}
	f := Filter{Column: column, Op: o, Value: append([]string(nil), values...)}
	if o != In && o != NotIn && len(values) == 1 {
		f.Value = values[0]
	}
	if _, err := expr.FilterExpr(f.Column, f.Op, f.Value); err != nil {
		return Filter{}, err
	}
	return f, nil
}

// String renders the filter as column, operator and quoted values.
func (f Filter) String() string {
	if v, ok := f.Value.([]string); ok {
		return fmt.Sprintf("%s %s (%s)", f.Column, f.Op, strings.Join(quoteAll(v), ", "))
	}
	if v, ok := f.Value.(string); ok {
		return fmt.Sprintf("%s %s %q", f.Column, f.Op, v)
	}
	return fmt.Sprintf("%s %s %v", f.Column, f.Op, f.Value)
}

func quoteAll(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

// MarshalJSON writes [column, op, value], with > and < as they are.
func (f Filter) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode([]any{f.Column, f.Op, f.Value}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads [column, op, value].
func (f *Filter) UnmarshalJSON(b []byte) error {
	var parts []any
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	if len(parts) == 3 {
		col, okc := parts[0].(string)
		op, oko := parts[1].(string)
		if okc && oko {
			*f = Filter{Column: col, Op: op, Value: parts[2]}
			return nil
		}
	}
	const max = 80
	if len(b) > max {
		b = append(b[:max:max], "..."...)
	}
	return fmt.Errorf("a filter is [column, op, value], got %s", b)
}

// predicate is the expr predicate the filter stands for (expr.FilterExpr),
// bound to sc: the column must be a top-level, non-nested column.
func (f Filter) predicate(sc *schema.Struct, sess expr.Session) (*expr.Bound, error) {
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
	e, err := expr.FilterExpr(fld.Name, f.Op, f.Value)
	if err != nil {
		return nil, err
	}
	b, err := sess.BindTable(e, sc)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "filter %s on %s column %q", f, fld.Type, fld.Name)
	}
	return b, nil
}
