package expr

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/internal/editdist"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// Bind resolves a parsed predicate against named relations and checks that
// it is boolean, in a UTC session (Session.Bind takes another zone). A
// single relation may be keyed "" (unqualified references only); with
// several, a column is qualified by its relation's key (s.id, target.x)
// or, when unqualified, must exist in exactly one relation. Names match
// case-insensitively, as Spark resolves them.
func Bind(e Expr, rels map[string]*schema.Struct) (*Bound, error) { return Session{}.Bind(e, rels) }

// BindValue resolves an expression of any type, such as the value of an
// update assignment, in a UTC session.
func BindValue(e Expr, rels map[string]*schema.Struct) (*Bound, error) {
	return Session{}.BindValue(e, rels)
}

// BindTable binds a predicate against a single table schema in a UTC
// session.
func BindTable(e Expr, sc *schema.Struct) (*Bound, error) { return Session{}.BindTable(e, sc) }

// ParsePredicate parses and binds a predicate on one table in a UTC
// session; errors name the column of the input where the problem is.
func ParsePredicate(src string, sc *schema.Struct) (*Bound, error) {
	return Session{}.ParsePredicate(src, sc)
}

// Compile parses and binds a predicate against named relations in a UTC
// session.
func Compile(src string, rels map[string]*schema.Struct) (*Bound, error) {
	return Session{}.Compile(src, rels)
}

// withPosition adds the input and column to a binding error.
func withPosition(src string, err error) error {
	var pe *posError
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	return &errs.Error{Kind: errs.InvalidArgument, Msg: "expression " + quoteInput(src),
		Err: &SyntaxError{Column: column(src, pe.pos), Msg: pe.msg}}
}

// posError is a binding failure at a position of the source text.
type posError struct {
	pos int
	msg string
}

func (e *posError) Error() string { return e.msg }

func errAt(e Expr, format string, args ...any) error {
	return &errs.Error{Kind: errs.InvalidArgument, Err: &posError{pos: e.Pos(), msg: fmt.Sprintf(format, args...)}}
}

type binder struct {
	rels map[string]*schema.Struct
	// lazy counts the conditional branches (of CASE, IF, ...) being bound:
	// there a constant that fails to evaluate stays an expression, failing
	// only for the rows that reach it, as Spark's constant folding leaves it.
	lazy int
	// now is the instant of CURRENT_DATE() and CURRENT_TIMESTAMP(): one per
	// bind, so every row of an operation sees the same value.
	now time.Time
	// loc is the session time zone (Session).
	loc *time.Location
	// scope is the lambda variables in scope, innermost last: they shadow
	// columns of the same name.
	scope []*lambdaVarN
}

func (b *binder) bind(e Expr) (node, error) {
	switch e := e.(type) {
	case *Column:
		return b.column(e)
	case *Literal:
		return bindLiteral(e, b.loc)
	case *Unary:
		return b.unary(e)
	case *Binary:
		return b.binary(e)
	case *In:
		return b.in(e)
	case *Between:
		return b.between(e)
	case *IsNull:
		x, err := b.bind(e.X)
		if err != nil {
			return nil, err
		}
		return b.fold(&isNullN{x: x, not: e.Not}, e)
	case *IsBool:
		x, err := b.boolOperand(e.X)
		if err != nil {
			return nil, err
		}
		return b.fold(&isBoolN{x: x, val: e.Value, not: e.Not}, e)
	case *Like:
		return b.like(e)
	case *Cast:
		return b.cast(e)
	case *Subscript:
		return b.subscript(e)
	case *FieldAccess:
		return b.fieldAccess(e)
	case *Call:
		return b.call(e)
	case *Case:
		return b.caseExpr(e)
	case *Lambda:
		return nil, errAt(e, "the lambda function %s is not an argument of a higher-order function (%s)", e, hofNames())
	}
	return nil, bindErr("unsupported expression %T", e)
}

// column resolves a name: relation.column[.field...] first, then
// column[.field...] in the one relation that has the column.
func (b *binder) column(e *Column) (node, error) {
	if v := b.lambdaVar(e); v != nil {
		return b.lambdaRef(e, v)
	}
	if len(e.Parts) >= 2 {
		for name, sc := range b.rels {
			if name != "" && strings.EqualFold(name, e.Parts[0]) && sc.Field(e.Parts[1]) != nil {
				return b.path(e, name, sc, e.Parts[1:])
			}
		}
	}
	var found []string
	for name, sc := range b.rels {
		if sc.Field(e.Parts[0]) != nil {
			found = append(found, name)
		}
	}
	sort.Strings(found)
	switch len(found) {
	case 1:
		return b.path(e, found[0], b.rels[found[0]], e.Parts)
	case 0:
		if name := strings.ToLower(e.Parts[0]); len(e.Parts) == 1 && (name == "current_date" || name == "current_timestamp") {
			return b.call(&Call{At: e.At, Name: name}) // Spark takes these without parentheses
		}
		return nil, b.unknownColumn(e)
	}
	var quals []string
	for _, r := range found {
		quals = append(quals, (&Column{Parts: []string{r, e.Parts[0]}}).String())
	}
	return nil, errAt(e, "column reference %s is ambiguous: it could be %s", e, strings.Join(quals, " or "))
}

func (b *binder) path(e *Column, rel string, sc *schema.Struct, parts []string) (node, error) {
	c := &colRef{rel: rel}
	st := sc
	for i, p := range parts {
		if st == nil {
			prev := c.fields[len(c.fields)-1]
			return nil, errAt(e, "column %s is of type %s and has no field %s", strings.Join(c.path, "."), typeName(prev.Type), quoteIdent(p))
		}
		f := st.Field(p)
		if f == nil {
			return nil, errAt(e, "struct column %s has no field %s (fields: %s)", strings.Join(c.path, "."), quoteIdent(p), fieldList(st))
		}
		c.path = append(c.path, f.Name)
		c.fields = append(c.fields, f)
		st, _ = f.Type.(*schema.Struct)
		_ = i
	}
	return c, nil
}

func fieldList(st *schema.Struct) string {
	names := make([]string, len(st.Fields))
	for i, f := range st.Fields {
		names[i] = quoteIdent(f.Name)
	}
	if len(names) > 20 {
		names = append(names[:20], fmt.Sprintf("... %d more", len(names)-20))
	}
	return strings.Join(names, ", ")
}

func (b *binder) unknownColumn(e *Column) error {
	var cands []string
	var best string
	bestDist := 3
	rels := make([]string, 0, len(b.rels))
	for r := range b.rels {
		rels = append(rels, r)
	}
	sort.Strings(rels)
	for _, r := range rels {
		for _, f := range b.rels[r].Fields {
			name := f.Name
			if len(b.rels) > 1 && r != "" {
				name = (&Column{Parts: []string{r, f.Name}}).String()
			} else {
				name = quoteIdent(name)
			}
			cands = append(cands, name)
			if d := editdist.Distance(strings.ToLower(f.Name), strings.ToLower(e.Parts[len(e.Parts)-1])); d < bestDist {
				best, bestDist = name, d
			}
		}
	}
	if len(cands) > 20 {
		cands = append(cands[:20], fmt.Sprintf("... %d more", len(cands)-20))
	}
	hint := ""
	if best != "" {
		hint = "did you mean " + best + "? "
	}
	return errAt(e, "unknown column %s; %s(columns: %s)", e, hint, strings.Join(cands, ", "))
}

func bindLiteral(e *Literal, loc *time.Location) (node, error) {
	switch e.Kind {
	case LitNull:
		return &lit{t: tVoid, natural: true}, nil
	case LitBool:
		return &lit{v: e.Text == "true", t: tBool, natural: true}, nil
	case LitNumber:
		v, t, err := parseNumber(e.Text)
		if err != nil {
			return nil, errAt(e, "%v", err)
		}
		return &lit{v: v, t: t, natural: true}, nil
	case LitString:
		return &lit{v: e.Text, t: tString, natural: true}, nil
	case LitBinary:
		return &lit{v: []byte(e.Text), t: tBinary, natural: true}, nil
	case LitDate:
		d, err := parseDate(e.Text)
		if err != nil {
			return nil, errAt(e, "DATE literal: %v", err)
		}
		return &lit{v: d, t: tDate, natural: true}, nil
	case LitTimestamp, LitTimestampNTZ:
		ntz := e.Kind == LitTimestampNTZ
		ts, err := parseTimestamp(e.Text, ntz, loc)
		if err != nil {
			return nil, errAt(e, "TIMESTAMP literal: %v", err)
		}
		t := tTimestamp
		if ntz {
			t = tTimestampNTZ
		}
		out := &lit{v: ts, t: t, natural: true}
		if loc != time.UTC && !ntz {
			out.src = e // renders as written: the same instant again in the same session
		}
		return out, nil
	}
	return nil, errAt(e, "unknown literal")
}

// boolOperand binds an operand of a logical operator; NULL becomes a
// boolean null.
func (b *binder) boolOperand(e Expr) (node, error) {
	return b.typedOperand(e, tBool, "a boolean", false)
}

// stringOperand binds an operand that a string function or LIKE takes;
// other atomic types are cast to string, as Spark does implicitly.
func (b *binder) stringOperand(e Expr) (node, error) {
	return b.typedOperand(e, tString, "a string", true)
}

// typedOperand binds an operand that must be of the primitive type want
// (named what in the error): NULL becomes a null of want and, with
// castAtomic, any other atomic type is cast to want implicitly.
func (b *binder) typedOperand(e Expr, want schema.Type, what string, castAtomic bool) (node, error) {
	n, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	t := n.Type()
	switch {
	case isType(t, primName(want)):
		return n, nil
	case isVoid(t):
		return b.coerce(n, want, e)
	case castAtomic && isAtomic(t):
		return b.fold(&castN{x: n, t: want, implicit: true}, e)
	}
	return nil, errAt(e, "%s is of type %s where %s is needed", e, typeName(t), what)
}

func (b *binder) unary(e *Unary) (node, error) {
	if e.Op == OpNot {
		x, err := b.boolOperand(e.X)
		if err != nil {
			return nil, err
		}
		return b.fold(&notN{x: x}, e)
	}
	if e.Op == BitNot {
		return b.bitwise(e, BitNot, e.X)
	}
	x, err := b.bind(e.X)
	if err != nil {
		return nil, err
	}
	t := x.Type()
	if isVoid(t) {
		return x, nil
	}
	if !isNumeric(t) {
		return nil, errAt(e, "%s needs a number, not %s", e, typeName(t))
	}
	if e.Op == Plus {
		return x, nil
	}
	if l, ok := x.(*lit); ok && l.src == nil {
		v, err := negateValue(l.v, l.t)
		if err != nil {
			return nil, errAt(e, "%v", err)
		}
		return &lit{v: v, t: l.t, natural: l.natural}, nil
	}
	return b.fold(&negN{x: x}, e)
}

func (b *binder) binary(e *Binary) (node, error) {
	switch e.Op {
	case OpAnd, OpOr:
		l, err := b.boolOperand(e.L)
		if err != nil {
			return nil, err
		}
		r, err := b.boolOperand(e.R)
		if err != nil {
			return nil, err
		}
		return b.fold(&logicN{op: e.Op, l: l, r: r}, e)
	case Eq, Ne, Lt, Le, Gt, Ge, NullSafeEq:
		l, err := b.bind(e.L)
		if err != nil {
			return nil, err
		}
		r, err := b.bind(e.R)
		if err != nil {
			return nil, err
		}
		if isNestedType(l.Type()) || isNestedType(r.Type()) {
			return b.nestedCmp(e, l, r)
		}
		ns, err := b.unify([]node{l, r}, []Expr{e.L, e.R}, e)
		if err != nil {
			return nil, err
		}
		return b.fold(&cmpN{op: e.Op, l: ns[0], r: ns[1]}, e)
	case Concat:
		return b.call(&Call{At: e.At, Name: "concat", Args: []Expr{e.L, e.R}})
	case BitAnd, BitOr, BitXor:
		return b.bitwise(e, e.Op, e.L, e.R)
	}
	return b.arith(e)
}

// unify brings operands to one type as Spark coerces comparisons, IN
// lists, BETWEEN and coalesce: non-literal operands meet in their common
// type; a literal that the type holds exactly takes it (a string literal
// is parsed as that type); otherwise the type widens to hold the literal.
func (b *binder) unify(ns []node, srcs []Expr, whole Expr) ([]node, error) {
	var t schema.Type
	mismatch := func(i int, ot schema.Type) error {
		return errAt(whole, "cannot compare %s with %s (%s) in %s", typeName(t), srcs[i], typeName(ot), whole)
	}
	for i, n := range ns {
		if _, ok := n.(*lit); ok {
			continue
		}
		nt := n.Type()
		if !isAtomic(nt) {
			return nil, errAt(srcs[i], "%s is of type %s, which cannot be compared", srcs[i], typeName(nt))
		}
		if t == nil {
			t = nt
			continue
		}
		c, ok := commonType(t, nt)
		if !ok {
			return nil, mismatch(i, nt)
		}
		t = c
	}
	for changed := true; changed; {
		changed = false
		for i, n := range ns {
			l, ok := n.(*lit)
			if !ok || l.v == nil {
				continue
			}
			if t == nil || isVoid(t) {
				t, changed = l.t, true
				continue
			}
			if litFits(l, t, b.loc) {
				continue
			}
			lt := l.t
			if isString(lt) && !isString(t) {
				v, vt, err := stringValue(l.v.(string), t, b.loc)
				if err != nil {
					return nil, errAt(srcs[i], "cannot compare %s with %s: %v", typeName(t), srcs[i], err)
				}
				if isNumeric(vt) {
					if _, ok := exactNumber(v, vt, t); !ok {
						lt = vt
					}
				}
			}
			c, ok := commonType(t, lt)
			if !ok {
				return nil, mismatch(i, lt)
			}
			if !sameType(c, t) {
				t, changed = c, true
			}
		}
	}
	if t == nil {
		t = tVoid
	}
	out := make([]node, len(ns))
	for i, n := range ns {
		c, err := b.coerce(n, t, srcs[i])
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// coerce converts n to type t: a literal by value, anything else with an
// implicit cast.
func (b *binder) coerce(n node, t schema.Type, src Expr) (node, error) {
	if sameType(n.Type(), t) {
		return n, nil
	}
	if l, ok := n.(*lit); ok {
		v, err := convertLit(l, t, b.loc)
		if err != nil && b.lazy > 0 && canCast(l.t, t) {
			return &castN{x: l, t: t, implicit: true}, nil
		}
		if err != nil {
			return nil, errAt(src, "%v", err)
		}
		c := &lit{v: v, t: t, src: l.src} // a folded constant renders as written
		if isNumeric(l.t) && isNumeric(t) && v != nil {
			// A number renders as written (0, not 0.00): it coerces the
			// same way again against the same operand.
			c.src = unbind(l, false)
		}
		if c.src == nil && isType(t, schema.Timestamp) && b.loc != time.UTC {
			// The text of the instant would read as another one in this
			// zone: render the constant it came from, which coerces the
			// same way again in the same session.
			c.src = unbind(l, false)
		}
		return c, nil
	}
	if !canCast(n.Type(), t) {
		return nil, errAt(src, "cannot use %s (%s) as %s", src, typeName(n.Type()), typeName(t))
	}
	return &castN{x: n, t: t, implicit: true}, nil
}

// litFits reports whether a literal converts to t without changing its
// value, so that the other operands need not widen.
func litFits(l *lit, t schema.Type, loc *time.Location) bool {
	if isNumeric(l.t) && isNumeric(t) {
		_, ok := exactNumber(l.v, l.t, t)
		return ok
	}
	if isString(l.t) && isNumeric(t) {
		v, vt, err := stringValue(l.v.(string), t, loc)
		if err != nil {
			return false
		}
		_, ok := exactNumber(v, vt, t)
		return ok
	}
	_, err := convertLit(l, t, loc)
	return err == nil
}

// convertLit converts a literal's value to type t as an implicit coercion:
// to a float by rounding, to other numbers only when exact, strings by
// parsing.
func convertLit(l *lit, t schema.Type, loc *time.Location) (any, error) {
	from := l.t
	switch {
	case l.v == nil:
		return nil, nil
	case sameType(from, t):
		return l.v, nil
	case isNumeric(from) && isNumeric(t):
		return convertNumber(l.v, from, t, literalExpr(l).String())
	case isString(from):
		v, vt, err := stringValue(l.v.(string), t, loc)
		if err != nil {
			return nil, err
		}
		if isNumeric(vt) && !sameType(vt, t) {
			return convertNumber(v, vt, t, quoteString(l.v.(string)))
		}
		return v, nil
	case isType(from, schema.Date) && isTimestamp(t), isTimestamp(from) && isTimestamp(t):
		return castValue(l.v, from, t, loc)
	case isType(from, schema.Binary) && isString(t):
		return string(l.v.([]byte)), nil
	}
	return nil, fmt.Errorf("%s cannot be used as %s", literalExpr(l), typeName(t))
}

func convertNumber(v any, from, t schema.Type, text string) (any, error) {
	if isFloating(t) {
		return castNumber(v, from, t)
	}
	if x, ok := exactNumber(v, from, t); ok {
		return x, nil
	}
	return nil, fmt.Errorf("%s does not fit %s", text, typeName(t))
}

// canCast reports whether CAST(x AS to) is defined for x of type from.
func canCast(from, to schema.Type) bool {
	switch {
	case sameType(from, to), isVoid(from):
		return true
	case !isAtomic(from) || !isAtomic(to) || isVoid(to):
		return false
	case isString(from) || isString(to):
		return true
	case isNumeric(from) && isNumeric(to):
		return true
	case isBool(from) && isNumeric(to), isNumeric(from) && isBool(to):
		return true
	case (isType(from, schema.Date) || isTimestamp(from)) && (isType(to, schema.Date) || isTimestamp(to)):
		return true
	}
	return false
}

func (b *binder) arith(e *Binary) (node, error) {
	l, err := b.bind(e.L)
	if err != nil {
		return nil, err
	}
	r, err := b.bind(e.R)
	if err != nil {
		return nil, err
	}
	lt, rt := l.Type(), r.Type()
	if isVoid(lt) && isVoid(rt) {
		return &lit{t: tVoid, src: e}, nil
	}
	if isVoid(lt) {
		lt = rt
		if l, err = b.coerce(l, rt, e.L); err != nil {
			return nil, err
		}
	}
	if isVoid(rt) {
		rt = lt
		if r, err = b.coerce(r, lt, e.R); err != nil {
			return nil, err
		}
	}
	// date ± days
	if (e.Op == Add || e.Op == Sub) && isType(lt, schema.Date) && isIntegral(rt) {
		n, err := b.coerce(r, tInt, e.R)
		if err != nil {
			return nil, err
		}
		return b.fold(&dateArithN{sub: e.Op == Sub, d: l, n: n}, e)
	}
	if e.Op == Add && isIntegral(lt) && isType(rt, schema.Date) {
		n, err := b.coerce(l, tInt, e.L)
		if err != nil {
			return nil, err
		}
		return b.fold(&dateArithN{d: r, n: n}, e)
	}
	if !isNumeric(lt) || !isNumeric(rt) {
		return nil, errAt(e, "%s needs numbers, not %s and %s", e, typeName(lt), typeName(rt))
	}
	var opType, result schema.Type
	switch {
	case e.Op == IntDiv:
		if isFloating(lt) || isFloating(rt) {
			return nil, errAt(e, "DIV needs integers or decimals, not %s and %s", typeName(lt), typeName(rt))
		}
		result = tLong
		if !isDecimal(lt) && !isDecimal(rt) {
			opType = tLong
		}
	case isFloating(lt) || isFloating(rt):
		opType = numericCommon(lt, rt)
		if e.Op == Div {
			opType = tDouble
		}
		result = opType
	case isDecimal(lt) || isDecimal(rt):
		result = decimalResult(e.Op, operandDecimal(l, lt), operandDecimal(r, rt))
	default: // integers
		opType = numericCommon(lt, rt)
		result = opType
		if e.Op == Div {
			opType, result = tDouble, tDouble
		}
	}
	if opType != nil {
		if l, err = b.coerce(l, opType, e.L); err != nil {
			return nil, err
		}
		if r, err = b.coerce(r, opType, e.R); err != nil {
			return nil, err
		}
	} else {
		if l, err = b.coerce(l, operandDecimal(l, lt), e.L); err != nil {
			return nil, err
		}
		if r, err = b.coerce(r, operandDecimal(r, rt), e.R); err != nil {
			return nil, err
		}
	}
	return b.fold(&arithN{op: e.Op, l: l, r: r, t: result}, e)
}

// operandDecimal is the decimal type an operand of decimal arithmetic
// takes: an integer literal as written the fewest digits that hold it, as
// Spark's DecimalPrecision picks for a literal
// (spark.sql.legacy.literal.pickMinimumPrecision, on by default: dec / 3
// is dec / DECIMAL(1,0)), another integer its type's.
func operandDecimal(n node, t schema.Type) *schema.Decimal {
	if l, ok := n.(*lit); ok && l.natural && l.v != nil && isIntegral(t) {
		return &schema.Decimal{Precision: len(strings.TrimPrefix(fmt.Sprint(l.v), "-"))}
	}
	return decimalOf(t)
}

// decimalResult is Spark's result type of decimal arithmetic.
func decimalResult(op Op, a, b *schema.Decimal) *schema.Decimal {
	p1, s1, p2, s2 := a.Precision, a.Scale, b.Precision, b.Scale
	switch op {
	case Add, Sub:
		s := max(s1, s2)
		return boundedDecimal(max(p1-s1, p2-s2)+s+1, s)
	case Mul:
		return boundedDecimal(p1+p2+1, s1+s2)
	case Div:
		s := max(6, s1+p2+1)
		return boundedDecimal(p1-s1+s2+s, s)
	}
	// Mod
	s := max(s1, s2)
	return boundedDecimal(min(p1-s1, p2-s2)+s, s)
}

func (b *binder) in(e *In) (node, error) {
	x, err := b.bind(e.X)
	if err != nil {
		return nil, err
	}
	ns := []node{x}
	srcs := []Expr{e.X}
	for _, it := range e.List {
		n, err := b.bind(it)
		if err != nil {
			return nil, err
		}
		ns = append(ns, n)
		srcs = append(srcs, it)
	}
	ns, err = b.unify(ns, srcs, e)
	if err != nil {
		return nil, err
	}
	return b.fold(&inN{x: ns[0], list: ns[1:], not: e.Not}, e)
}

func (b *binder) between(e *Between) (node, error) {
	var ns []node
	for _, s := range []Expr{e.X, e.Lo, e.Hi} {
		n, err := b.bind(s)
		if err != nil {
			return nil, err
		}
		ns = append(ns, n)
	}
	ns, err := b.unify(ns, []Expr{e.X, e.Lo, e.Hi}, e)
	if err != nil {
		return nil, err
	}
	return b.fold(&betweenN{x: ns[0], lo: ns[1], hi: ns[2], not: e.Not}, e)
}

func (b *binder) like(e *Like) (node, error) {
	x, err := b.stringOperand(e.X)
	if err != nil {
		return nil, err
	}
	pat, err := b.stringOperand(e.Pattern)
	if err != nil {
		return nil, err
	}
	esc := e.Escape
	if esc == 0 {
		esc = '\\'
	}
	n := &likeN{x: x, pat: pat, esc: esc, not: e.Not, fold: e.Fold}
	if l, ok := pat.(*lit); ok && l.v != nil {
		m, err := compileLike(l.v.(string), esc, e.Fold)
		if err != nil {
			return nil, errAt(e.Pattern, "%v", err)
		}
		n.m = m
	}
	return b.fold(n, e)
}

func (b *binder) cast(e *Cast) (node, error) {
	x, err := b.bind(e.X)
	if err != nil {
		return nil, err
	}
	if !canCast(x.Type(), e.Type) {
		return nil, errAt(e, "cannot cast %s from %s to %s", e.X, typeName(x.Type()), typeName(e.Type))
	}
	return b.fold(&castN{x: x, t: e.Type}, e)
}

// fold evaluates an expression without columns once, at bind time, so that
// pruning and coercion see a constant. The constant renders as written.
func (b *binder) fold(n node, src Expr) (node, error) {
	if hasColumns(n) || !isAtomic(n.Type()) {
		return n, nil // a nested constant is computed with the rows
	}
	v, err := constValue(n, b.loc)
	if err != nil && b.lazy > 0 {
		return n, nil
	}
	if err != nil {
		return nil, errAt(src, "%s: %v", src, errMessage(err))
	}
	return &lit{v: v, t: n.Type(), src: src}, nil
}

// errMessage is the message of an evaluation error without its kind.
func errMessage(err error) string {
	var e *errs.Error
	if errors.As(err, &e) && e.Err == nil {
		return e.Msg
	}
	return err.Error()
}
