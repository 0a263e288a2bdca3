package expr

import (
	"strings"

	"github.com/deltalite-go/deltalite/schema"
)

// GeneratedPartitionFilter derives from predicate e conditions on the
// table's generated partition columns, as Spark's
// OptimizablePartitionExpression does, so that a predicate on a source
// column skips partitions. For a partition column p GENERATED ALWAYS AS
// f(ts) with f non-decreasing in ts (CAST(ts AS DATE), date, to_date,
// year, date_format to yyyy-MM, yyyy-MM-dd or yyyy-MM-dd-HH, date_trunc,
// trunc), a conjunct ts op literal implies p op' f(literal) (op' is op,
// with < and > widened to <= and >=); for any other deterministic f of ts
// this engine evaluates (hour, month, day, substring, ...), ts = literal
// implies p = f(literal); partition columns generated as the year, month,
// day and hour of one source (a prefix of that order) take ranges as a
// tuple (dateChain). Every row of a table whose generated columns hold
// satisfies the result wherever it satisfies e; nil when nothing follows.
func GeneratedPartitionFilter(e Expr, sc *schema.Struct, partCols []string) Expr {
	var gens []genCol
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
		src, ordered := generatedSource(form)
		if src == "" {
			continue
		}
		// Only from a datetime source, as Spark's: the comparison and f
		// then read the literal alike (a string source compared with a
		// number compares numbers; strings sort unlike the dates in them).
		if sf := sc.Field(src); sf == nil || !isTimestamp(sf.Type) && !isType(sf.Type, schema.Date) {
			continue
		}
		gens = append(gens, genCol{col: f.Name, src: strings.ToLower(src), form: form, ordered: ordered})
	}
	if len(gens) == 0 {
		return nil
	}
	chains := datetimeChains(gens)
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
			if strings.EqualFold(cr.Parts[0], g.src) && datetimeLiteral(lit) && (g.ordered || op == Eq) {
				out = append(out, &Binary{Op: op, L: &Column{Parts: []string{g.col}}, R: substitute(g.form, lit)})
			}
		}
		if ch := chains[strings.ToLower(cr.Parts[0])]; len(ch) > 1 && op != Eq && datetimeLiteral(lit) {
			out = append(out, ch.bound(op, lit))
		}
	}
	return And(out...)
}

// genCol is a generated partition column of one source column.
type genCol struct {
	col     string
	src     string // lower-cased source column
	form    Expr   // the generation expression
	ordered bool   // non-decreasing in the source: ranges carry over, not only equality
}

// dateChain are partition columns of one source generated as its year,
// then month, day and hour, as many as the table has in that order: the
// tuple sorts as the source does, which Spark's YearMonthPartitionExpr,
// YearMonthDayPartitionExpr and YearMonthDayHourPartitionExpr use.
type dateChain []genCol

// datetimeChains finds, per lower-cased source column, the year (of ts or
// CAST(ts AS DATE)), month, day and hour partition columns that chain.
func datetimeChains(gens []genCol) map[string]dateChain {
	unit := func(form Expr) (string, string) {
		c, ok := form.(*Call)
		if !ok || len(c.Args) != 1 {
			return "", ""
		}
		arg := c.Args[0]
		if k, ok := arg.(*Cast); ok && c.Name != "hour" {
			if p, ok := k.Type.(*schema.Primitive); ok && p.Name == schema.Date {
				arg = k.X
			}
		}
		col, ok := arg.(*Column)
		if !ok || len(col.Parts) != 1 {
			return "", ""
		}
		name := c.Name
		if name == "dayofmonth" {
			name = "day"
		}
		return name, strings.ToLower(col.Parts[0])
	}
	found := map[string]map[string]genCol{}
	for _, g := range gens {
		u, src := unit(g.form)
		if u == "" || src != g.src {
			continue
		}
		if found[src] == nil {
			found[src] = map[string]genCol{}
		}
		found[src][u] = g
	}
	out := map[string]dateChain{}
	for src, units := range found {
		var ch dateChain
		for _, u := range []string{"year", "month", "day", "hour"} {
			p, ok := units[u]
			if !ok {
				break
			}
			ch = append(ch, p)
		}
		out[src] = ch
	}
	return out
}

// bound is the condition ts op lit (op Ge or Le) implies on the chain's
// columns, compared as a tuple: for Ge, year > Y OR (year = Y AND (month >
// M OR (month = M AND ...last >= L))).
func (ch dateChain) bound(op Op, lit Expr) Expr {
	strict := Gt
	if op == Le {
		strict = Lt
	}
	cmp := func(p genCol, o Op) Expr {
		return &Binary{Op: o, L: &Column{Parts: []string{p.col}}, R: substitute(p.form, lit)}
	}
	last := ch[len(ch)-1]
	e := cmp(last, op)
	for i := len(ch) - 2; i >= 0; i-- {
		e = &Binary{Op: OpOr, L: cmp(ch[i], strict), R: And(cmp(ch[i], Eq), e)}
	}
	return e
}

// generatedSource is the one column generation expression f reads, and
// whether f is non-decreasing in it; "" when f reads no column or more
// than one, or is beyond the forms partition filters are derived for.
func generatedSource(f Expr) (string, bool) {
	if src := monotoneSource(f); src != "" {
		return src, true
	}
	var cols []string
	if !equalityForm(f, &cols) || len(cols) != 1 {
		return "", false
	}
	return cols[0], false
}

// equalityForm reports whether f is built of the deterministic functions,
// casts, arithmetic and literals whose value a source value fixes (so
// that source = literal fixes it), collecting the columns it reads.
func equalityForm(f Expr, cols *[]string) bool {
	switch f := f.(type) {
	case *Column:
		if len(f.Parts) != 1 {
			return false
		}
		for _, c := range *cols {
			if !strings.EqualFold(c, f.Parts[0]) {
				return false
			}
		}
		*cols = append(*cols, f.Parts[0])
		return true
	case *Literal:
		return true
	case *Cast:
		return equalityForm(f.X, cols)
	case *Binary:
		switch f.Op {
		case Add, Sub, Mul, Div, Mod, IntDiv, Concat:
			return equalityForm(f.L, cols) && equalityForm(f.R, cols)
		}
	case *Call:
		switch f.Name {
		case "hour", "minute", "second", "month", "day", "dayofmonth", "year", "date", "to_date",
			"dayofyear", "quarter", "dayofweek", "weekday", "weekofyear", "last_day", "add_months",
			"date_format", "date_trunc", "trunc", "substring", "substr", "concat", "lower", "upper":
			for _, a := range f.Args {
				if !equalityForm(a, cols) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// monotoneSource is the column f reads when f is a non-decreasing function
// of it this engine derives range filters for, else "": CAST(c AS DATE),
// date, to_date and year of c; date_format of c (or of CAST(c AS
// TIMESTAMP)) to the year-month, day or hour patterns Spark's
// DateFormatPartitionExpr takes, whose text sorts as time does;
// date_trunc(unit, c) and trunc(c, unit) for a unit Spark knows (another
// makes every value NULL).
func monotoneSource(f Expr) string {
	var arg Expr
	switch f := f.(type) {
	case *Cast:
		if p, ok := f.Type.(*schema.Primitive); ok && p.Name == schema.Date {
			arg = f.X
		}
	case *Call:
		switch {
		case (f.Name == "date" || f.Name == "to_date" || f.Name == "year") && len(f.Args) == 1:
			arg = f.Args[0]
		case f.Name == "date_format" && len(f.Args) == 2:
			switch literalString(f.Args[1]) {
			case "yyyy-MM", "yyyy-MM-dd", "yyyy-MM-dd-HH":
				arg = f.Args[0]
			}
		case f.Name == "date_trunc" && len(f.Args) == 2:
			if _, ok := truncTimestamp(literalString(f.Args[0]), 0); ok {
				arg = f.Args[1]
			}
		case f.Name == "trunc" && len(f.Args) == 2:
			if _, ok := truncDate(0, literalString(f.Args[1])); ok {
				arg = f.Args[0]
			}
		}
	}
	if c, ok := arg.(*Cast); ok {
		// CAST(c AS DATE) or AS TIMESTAMP under the function, as Spark
		// writes year(CAST(ts AS DATE)) or trunc(CAST(ts AS DATE), 'MM'):
		// non-decreasing too.
		if p, ok := c.Type.(*schema.Primitive); ok && (p.Name == schema.Date || p.Name == schema.Timestamp) {
			arg = c.X
		}
	}
	if c, ok := arg.(*Column); ok && len(c.Parts) == 1 {
		return c.Parts[0]
	}
	return ""
}

// datetimeLiteral reports a literal a datetime column is compared with
// as a datetime: a string, date or timestamp literal.
func datetimeLiteral(e Expr) bool {
	l, ok := e.(*Literal)
	return ok && (l.Kind == LitString || l.Kind == LitDate || l.Kind == LitTimestamp || l.Kind == LitTimestampNTZ)
}

// literalString is the value of a string literal, else "".
func literalString(e Expr) string {
	if l, ok := e.(*Literal); ok && l.Kind == LitString {
		return l.Text
	}
	return ""
}

// substitute is the generation expression f with its source column
// replaced by x.
func substitute(f, x Expr) Expr {
	switch f := f.(type) {
	case *Column:
		return x
	case *Cast:
		return &Cast{X: substitute(f.X, x), Type: f.Type}
	case *Binary:
		return &Binary{Op: f.Op, L: substitute(f.L, x), R: substitute(f.R, x)}
	case *Call:
		args := make([]Expr, len(f.Args))
		for i, a := range f.Args {
			args[i] = substitute(a, x)
		}
		return &Call{Name: f.Name, Args: args}
	}
	return f
}
