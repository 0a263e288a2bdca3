package expr

import (
	"strings"

	"github.com/deltalite-go/deltalite/schema"
)

// GeneratedPartitionFilter derives from predicate e conditions on the
// table's generated partition columns, as Spark's
// OptimizablePartitionExpression does, so that a predicate on a source
// column skips partitions: for a partition column d GENERATED ALWAYS AS
// f(ts), with f non-decreasing (CAST(ts AS DATE), date, to_date, year), a
// conjunct ts op literal implies d op' f(literal) (op' is op, with < and >
// widened to <= and >=). Every row of a table whose generated columns hold
// satisfies the result wherever it satisfies e; nil when nothing follows.
func GeneratedPartitionFilter(e Expr, sc *schema.Struct, partCols []string) Expr {
	type gen struct {
		col  string
		src  string // lower-cased source column
		form Expr   // f with the source column as its one column
	}
	var gens []gen
	for _, p := range partCols {
		f := sc.Field(p)
		if f == nil {
			continue
		}
		text, ok := f.Metadata[schema.GenerationExpressionKey].(string)
		if !ok {
			continue
		}
		form, err := Parse(text)
		if err != nil {
			continue
		}
		if src := monotoneSource(form); src != "" {
			gens = append(gens, gen{col: f.Name, src: strings.ToLower(src), form: form})
		}
	}
	if len(gens) == 0 {
		return nil
	}
	var out []Expr
	for _, c := range SplitAnd(e) {
		b, ok := c.(*Binary)
		if !ok {
			continue
		}
		op, col, lit := b.Op, b.L, b.R
		if _, isCol := col.(*Column); !isCol {
			op, col, lit = flip(op), b.R, b.L
		}
		cr, ok := col.(*Column)
		if _, isLit := lit.(*Literal); !ok || !isLit || len(cr.Parts) != 1 {
			continue
		}
		switch op {
		case Gt:
			op = Ge
		case Lt:
			op = Le
		case Ge, Le, Eq:
		default:
			continue
		}
		for _, g := range gens {
			if strings.EqualFold(cr.Parts[0], g.src) {
				out = append(out, &Binary{Op: op, L: &Column{Parts: []string{g.col}}, R: substitute(g.form, lit)})
			}
		}
	}
	return And(out...)
}

// monotoneSource is the column f reads when f is a non-decreasing function
// of it this engine derives partition filters for, else "".
func monotoneSource(f Expr) string {
	var arg Expr
	switch f := f.(type) {
	case *Cast:
		if p, ok := f.Type.(*schema.Primitive); ok && p.Name == schema.Date {
			arg = f.X
		}
	case *Call:
		switch f.Name {
		case "date", "to_date", "year":
			if len(f.Args) == 1 {
				arg = f.Args[0]
			}
		}
	}
	if c, ok := arg.(*Column); ok && len(c.Parts) == 1 {
		return c.Parts[0]
	}
	return ""
}

// substitute is the monotone form f (see monotoneSource) applied to x.
func substitute(f, x Expr) Expr {
	switch f := f.(type) {
	case *Cast:
		return &Cast{X: x, Type: f.Type}
	case *Call:
		return &Call{Name: f.Name, Args: []Expr{x}}
	}
	return nil
}
