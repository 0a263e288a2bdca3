package expr

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/schema"
)

const bpAtom = 100

// reserved words are backquoted when they appear as identifiers, so that
// rendered text parses back to the same expression.
var reserved = map[string]bool{"NOT": true, "AND": true, "OR": true, "IS": true, "IN": true, "BETWEEN": true,
	"LIKE": true, "ILIKE": true, "RLIKE": true, "REGEXP": true, "NULL": true, "TRUE": true, "FALSE": true,
	"CAST": true, "TRY_CAST": true, "CASE": true, "DIV": true, "ESCAPE": true, "AS": true, "INTERVAL": true,
	"EXISTS": true, "DISTINCT": true, "FROM": true, "FOR": true, "SELECT": true, "WITH": true, "UNKNOWN": true,
	"ANY": true, "ALL": true, "SOME": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true}

// QuoteIdent writes a column name as the parser reads it back: plain when
// it is a plain word and no keyword, else `backquoted`.
func QuoteIdent(s string) string { return quoteIdent(s) }

func quoteIdent(s string) string {
	plain := s != "" && isIdentStart(s[0]) && !reserved[strings.ToUpper(s)]
	for i := 0; plain && i < len(s); i++ {
		plain = isIdentPart(s[i])
	}
	if plain {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

func quoteString(s string) string {
	var sb strings.Builder
	sb.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\':
			sb.WriteString(`\\`)
		case '\'':
			sb.WriteString(`\'`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&sb, `\u%04X`, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('\'')
	return sb.String()
}

// typeSQL is the Spark SQL spelling of a type, as CAST takes it.
func typeSQL(t schema.Type) string {
	switch t := t.(type) {
	case *schema.Decimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case *schema.Primitive:
		switch t.Name {
		case schema.Integer:
			return "INT"
		case schema.Long:
			return "BIGINT"
		case schema.Short:
			return "SMALLINT"
		case schema.Byte:
			return "TINYINT"
		}
		return strings.ToUpper(t.Name)
	}
	switch t := t.(type) {
	case *schema.Struct:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = quoteIdent(f.Name) + ": " + typeSQL(f.Type)
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case *schema.Array:
		return "ARRAY<" + typeSQL(t.Element) + ">"
	case *schema.Map:
		return "MAP<" + typeSQL(t.Key) + ", " + typeSQL(t.Value) + ">"
	}
	return "VOID"
}

// bindingPower is how tightly e holds together when rendered.
func bindingPower(e Expr) int {
	switch e := e.(type) {
	case *Binary:
		switch e.Op {
		case OpOr:
			return bpOr
		case OpAnd:
			return bpAnd
		case Add, Sub, Concat:
			return bpAdditive
		case Mul, Div, Mod, IntDiv:
			return bpMultiplicative
		case BitAnd:
			return bpBitAnd
		case BitXor:
			return bpBitXor
		case BitOr:
			return bpBitOr
		}
		return bpCompare
	case *Unary:
		if e.Op == OpNot {
			return bpNot
		}
		return bpUnary
	case *In, *Between, *IsNull, *IsBool, *Like:
		return bpPredicate
	case *Literal:
		if e.Kind == LitNumber && strings.HasPrefix(e.Text, "-") {
			return bpUnary
		}
	}
	return bpAtom
}

// operand renders e, in parentheses unless it binds tighter than min.
func operand(sb *strings.Builder, e Expr, min int) {
	if bindingPower(e) > min {
		render(sb, e)
		return
	}
	sb.WriteByte('(')
	render(sb, e)
	sb.WriteByte(')')
}

func render(sb *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *Column:
		for i, p := range e.Parts {
			if i > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(quoteIdent(p))
		}
	case *Literal:
		switch e.Kind {
		case LitNull:
			sb.WriteString("NULL")
		case LitBool:
			sb.WriteString(strings.ToUpper(e.Text))
		case LitNumber:
			if strings.HasPrefix(e.Text, ".") {
				sb.WriteByte('0') // .5 after a name would read as a field
			}
			sb.WriteString(e.Text)
		case LitString:
			sb.WriteString(quoteString(e.Text))
		case LitBinary:
			sb.WriteString("X'" + strings.ToUpper(hex.EncodeToString([]byte(e.Text))) + "'")
		case LitDate:
			sb.WriteString("DATE " + quoteString(e.Text))
		case LitTimestamp:
			sb.WriteString("TIMESTAMP " + quoteString(e.Text))
		case LitTimestampNTZ:
			sb.WriteString("TIMESTAMP_NTZ " + quoteString(e.Text))
		}
	case *Unary:
		switch e.Op {
		case OpNot:
			sb.WriteString("NOT ")
			operand(sb, e.X, bpNot-1)
		case Neg, BitNot:
			sb.WriteString(map[Op]string{Neg: "-", BitNot: "~"}[e.Op])
			operand(sb, e.X, bpUnary)
		default:
			sb.WriteByte('+')
			operand(sb, e.X, bpUnary)
		}
	case *Binary:
		bp := bindingPower(e)
		operand(sb, e.L, bp-1)
		sb.WriteString(" " + string(e.Op) + " ")
		operand(sb, e.R, bp)
	case *In:
		subject(sb, e.X, "", e.Not, " IN ")
		renderList(sb, e.List)
	case *Between:
		subject(sb, e.X, "", e.Not, " BETWEEN ")
		operand(sb, e.Lo, bpPredicate)
		sb.WriteString(" AND ")
		operand(sb, e.Hi, bpPredicate)
	case *IsNull:
		subject(sb, e.X, " IS", e.Not, " NULL")
	case *IsBool:
		word := " FALSE"
		if e.Value {
			word = " TRUE"
		}
		subject(sb, e.X, " IS", e.Not, word)
	case *Like:
		word := " LIKE "
		if e.Fold {
			word = " ILIKE "
		}
		subject(sb, e.X, "", e.Not, word)
		operand(sb, e.Pattern, bpPredicate)
		if e.Escape != 0 {
			sb.WriteString(" ESCAPE " + quoteString(string(e.Escape)))
		}
	case *Subscript:
		renderSubscript(sb, e, func(x Expr) { render(sb, x) })
	case *FieldAccess:
		renderFieldAccess(sb, e, func(x Expr) { render(sb, x) })
	case *Cast:
		sb.WriteString("CAST(")
		render(sb, e.X)
		sb.WriteString(" AS " + typeSQL(e.Type) + ")")
	case *Call:
		if e.Name == "extract" && len(e.Args) == 2 {
			sb.WriteString("extract(")
			render(sb, e.Args[0])
			sb.WriteString(" FROM ")
			render(sb, e.Args[1])
			sb.WriteString(")")
			return
		}
		sb.WriteString(e.Name)
		renderList(sb, e.Args)
	case *Case:
		sb.WriteString("CASE")
		if e.Operand != nil {
			sb.WriteByte(' ')
			render(sb, e.Operand)
		}
		for _, w := range e.Whens {
			sb.WriteString(" WHEN ")
			render(sb, w.Cond)
			sb.WriteString(" THEN ")
			render(sb, w.Then)
		}
		if e.Else != nil {
			sb.WriteString(" ELSE ")
			render(sb, e.Else)
		}
		sb.WriteString(" END")
	case *Lambda:
		renderLambda(sb, e)
	}
}

func renderString(e Expr) string {
	var sb strings.Builder
	render(&sb, e)
	return sb.String()
}

func (e *Column) String() string  { return renderString(e) }
func (e *Literal) String() string { return renderString(e) }
func (e *Unary) String() string   { return renderString(e) }
func (e *Binary) String() string  { return renderString(e) }
func (e *In) String() string      { return renderString(e) }
func (e *Between) String() string { return renderString(e) }
func (e *IsNull) String() string  { return renderString(e) }
func (e *IsBool) String() string  { return renderString(e) }
func (e *Like) String() string    { return renderString(e) }
func (e *Cast) String() string    { return renderString(e) }
func (e *Call) String() string    { return renderString(e) }
func (e *Case) String() string    { return renderString(e) }

// renderList writes the expressions comma-separated in parentheses, as an
// IN list and a call's arguments stand.
func renderList(sb *strings.Builder, xs []Expr) {
	sb.WriteByte('(')
	for i, x := range xs {
		if i > 0 {
			sb.WriteString(", ")
		}
		render(sb, x)
	}
	sb.WriteByte(')')
}

// subject writes the left operand of a predicate (IN, BETWEEN, LIKE, IS)
// and its keywords: the ones before NOT, NOT when negated, the rest.
func subject(sb *strings.Builder, x Expr, before string, not bool, after string) {
	operand(sb, x, bpPredicate-1)
	sb.WriteString(before)
	if not {
		sb.WriteString(" NOT")
	}
	sb.WriteString(after)
}
