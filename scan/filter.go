package scan

import (
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/schema"
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
// A filter is sugar for the expr predicate it builds (WithPredicate): both
// are decided and evaluated by the same code.
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

// predicate is the expr predicate the filter stands for: the column
// compared with its values as string literals, which binding parses with
// the column's type, so filters and SQL predicates share one evaluator and
// one file pruner.
func (f Filter) predicate(sc *schema.Struct) (*expr.Bound, error) {
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
	col := &expr.Column{Parts: []string{fld.Name}}
	lits := make([]expr.Expr, len(f.Values))
	for i, v := range f.Values {
		lits[i] = &expr.Literal{Kind: expr.LitString, Text: v}
	}
	var e expr.Expr
	switch f.Op {
	case In, NotIn:
		e = &expr.In{X: col, List: lits, Not: f.Op == NotIn}
	default:
		e = &expr.Binary{Op: exprOps[f.Op], L: col, R: lits[0]}
	}
	b, err := expr.BindTable(e, sc)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "filter %s on %s column %q", f, fld.Type, fld.Name)
	}
	return b, nil
}

var exprOps = map[Op]expr.Op{Eq: expr.Eq, Ne: expr.Ne, Lt: expr.Lt, Le: expr.Le, Gt: expr.Gt, Ge: expr.Ge}
