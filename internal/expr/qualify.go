package expr

import "strings"

// Qualify returns a copy of e whose column references are prefixed with
// the relation rel (id becomes rel.id), so that a predicate written
// against one table can join a MERGE condition over two, where an
// unqualified name both sides have is ambiguous. References already
// qualified with rel are kept; e is not modified.
func Qualify(e Expr, rel string) Expr { return qualify(e, rel, nil) }

// qualify is Qualify but for the names of lambda variables in shadow
// (lower case), which stay as they are.
func qualify(e Expr, rel string, shadow map[string]bool) Expr {
	q := func(x Expr) Expr { return qualify(x, rel, shadow) }
	list := func(xs []Expr) []Expr {
		out := make([]Expr, len(xs))
		for i, x := range xs {
			out[i] = q(x)
		}
		return out
	}
	switch n := e.(type) {
	case nil:
		return nil
	case *Column:
		if len(n.Parts) > 1 && n.Parts[0] == rel || shadow[strings.ToLower(n.Parts[0])] {
			return n
		}
		return &Column{At: n.At, Parts: append([]string{rel}, n.Parts...)}
	case *Unary:
		return &Unary{At: n.At, Op: n.Op, X: q(n.X)}
	case *Binary:
		return &Binary{At: n.At, Op: n.Op, L: q(n.L), R: q(n.R)}
	case *In:
		return &In{At: n.At, X: q(n.X), List: list(n.List), Not: n.Not}
	case *Between:
		return &Between{At: n.At, X: q(n.X), Lo: q(n.Lo), Hi: q(n.Hi), Not: n.Not}
	case *IsNull:
		return &IsNull{At: n.At, X: q(n.X), Not: n.Not}
	case *IsBool:
		return &IsBool{At: n.At, X: q(n.X), Value: n.Value, Not: n.Not}
	case *Like:
		return &Like{At: n.At, X: q(n.X), Pattern: q(n.Pattern), Escape: n.Escape, Not: n.Not, Fold: n.Fold}
	case *Cast:
		return &Cast{At: n.At, X: q(n.X), Type: n.Type}
	case *Subscript:
		return &Subscript{At: n.At, X: q(n.X), Index: q(n.Index)}
	case *FieldAccess:
		return &FieldAccess{At: n.At, X: q(n.X), Name: n.Name}
	case *Call:
		return &Call{At: n.At, Name: n.Name, Args: list(n.Args)}
	case *Case:
		c := &Case{At: n.At, Operand: q(n.Operand), Else: q(n.Else), Whens: make([]When, len(n.Whens))}
		for i, w := range n.Whens {
			c.Whens[i] = When{Cond: q(w.Cond), Then: q(w.Then)}
		}
		return c
	case *Lambda:
		inner := map[string]bool{}
		for k := range shadow {
			inner[k] = true
		}
		for _, p := range n.Params {
			inner[strings.ToLower(p)] = true
		}
		return &Lambda{At: n.At, Params: n.Params, Body: qualify(n.Body, rel, inner)}
	}
	return e // a Literal
}
