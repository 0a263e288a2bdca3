package expr

import (
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// FilterOps are the operators of a delta-rs filter (scan.Filter), in the
// order errors list them.
const FilterOps = "=, !=, <, <=, >, >=, in, not in"

var filterOps = map[string]Op{"=": Eq, "!=": Ne, "<": Lt, "<=": Le, ">": Gt, ">=": Ge}

// FilterOp returns op's canonical spelling (one of FilterOps): op is
// matched case-insensitively, with runs of spaces as one, and "==", "<>",
// "not_in" and "notin" are accepted too.
func FilterOp(op string) (string, bool) {
	switch o := strings.Join(strings.Fields(strings.ToLower(op)), " "); o {
	case "=", "!=", "<", "<=", ">", ">=", "in", "not in":
		return o, true
	case "==":
		return "=", true
	case "<>":
		return "!=", true
	case "not_in", "notin":
		return "not in", true
	}
	return "", false
}

// FilterExpr is the expression a delta-rs filter (column, op, value) stands
// for: the column compared with its values as string literals, which
// binding casts to the column's type, so that filters and SQL predicates
// share one evaluator and one file pruner. A comparison takes one value
// (text, a number or a bool, rendered as text); in and not in take a
// non-empty []string or []any of such values. Errors are InvalidArgument
// and name the column.
func FilterExpr(column, op string, value any) (Expr, error) {
	if column == "" {
		return nil, errs.New(errs.InvalidArgument, "", "a filter needs a column")
	}
	o, ok := FilterOp(op)
	if !ok {
		return nil, errs.New(errs.InvalidArgument, "", "filter operator %q of column %s is not one of %s", op, column, FilterOps)
	}
	col := &Column{Parts: []string{column}}
	if o == "in" || o == "not in" {
		vals, ok := filterList(value)
		if !ok {
			return nil, errs.New(errs.InvalidArgument, "", "filter %s %s needs a list of values ([]string), got %T", column, o, value)
		}
		if len(vals) == 0 {
			return nil, errs.New(errs.InvalidArgument, "", "filter %s %s needs at least one value", column, o)
		}
		in := &In{X: col, Not: o == "not in"}
		for _, v := range vals {
			in.List = append(in.List, &Literal{Kind: LitString, Text: v})
		}
		return in, nil
	}
	v, ok := filterScalar(value)
	if !ok {
		return nil, errs.New(errs.InvalidArgument, "", "filter %s %s needs exactly one value (text, a number or a bool), got %T", column, o, value)
	}
	return &Binary{Op: filterOps[o], L: col, R: &Literal{Kind: LitString, Text: v}}, nil
}

// filterScalar is a filter value as text.
func filterScalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case fmt.Stringer:
		return v.String(), true
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return fmt.Sprint(v), true
	}
	return "", false
}

// filterList is the values of an in or not in filter as text.
func filterList(v any) ([]string, bool) {
	switch v := v.(type) {
	case []string:
		return v, true
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			s, ok := filterScalar(x)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}
