package expr

// SplitAnd returns the top-level conjuncts of e, left to right: nested ANDs
// are flattened whatever their grouping (parentheses leave no trace in the
// tree), and an expression that is not an AND is its own single conjunct.
// MERGE splits its ON condition this way into join keys, one-side filters
// and a residual. A nil e has no conjuncts.
func SplitAnd(e Expr) []Expr {
	if e == nil {
		return nil
	}
	var out []Expr
	var walk func(Expr)
	walk = func(e Expr) {
		if b, ok := e.(*Binary); ok && b.Op == OpAnd {
			walk(b.L)
			walk(b.R)
			return
		}
		out = append(out, e)
	}
	walk(e)
	return out
}

// And joins es with AND, left-nested as the parser nests a AND b AND c, so
// And(SplitAnd(e)...) renders as e does up to redundant parentheses. Nil
// entries are skipped; And of nothing is nil (no condition), and And of
// one expression is that expression.
func And(es ...Expr) Expr {
	var out Expr
	for _, e := range es {
		switch {
		case e == nil:
		case out == nil:
			out = e
		default:
			out = &Binary{At: out.Pos(), Op: OpAnd, L: out, R: e}
		}
	}
	return out
}
