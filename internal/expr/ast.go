package expr

import "github.com/deltalite-go/deltalite/schema"

// Expr is a parsed, unbound expression. Pos is the byte offset in the
// source text where the expression starts.
type Expr interface {
	Pos() int
	// String renders the expression as canonical SQL.
	String() string
	expr()
}

// Op is an operator of a Unary or Binary expression.
type Op string

// Operators. Spelling variants are normalised by the parser: "==" is Eq,
// "<>" is Ne, "!" is Not, "IS NOT DISTINCT FROM" is NullSafeEq.
const (
	Eq         Op = "="
	Ne         Op = "!="
	Lt         Op = "<"
	Le         Op = "<="
	Gt         Op = ">"
	Ge         Op = ">="
	NullSafeEq Op = "<=>"
	OpAnd      Op = "AND"
	OpOr       Op = "OR"
	OpNot      Op = "NOT"
	Add        Op = "+"
	Sub        Op = "-"
	Mul        Op = "*"
	Div        Op = "/"
	Mod        Op = "%"
	IntDiv     Op = "DIV"
	Concat     Op = "||"
	Neg        Op = "NEG" // unary minus
	Plus       Op = "POS" // unary plus
	BitAnd     Op = "&"
	BitOr      Op = "|"
	BitXor     Op = "^"
	BitNot     Op = "~"
)

// Column is a column reference: Parts are the dot-separated names as
// written. The first part may name a relation (s.id in a MERGE condition)
// or a top-level column whose struct fields follow (a.b.c); the binder
// decides which.
type Column struct {
	At    int
	Parts []string
}

// LitKind says how a literal was written.
type LitKind uint8

// Literal kinds.
const (
	LitNull LitKind = iota
	LitBool
	// LitNumber keeps the text as written, suffix included ("10", "10L",
	// "1.50", "1e3", "2.5D", "1BD"); the binder gives it a type.
	LitNumber
	LitString
	LitBinary
	LitDate
	LitTimestamp
	LitTimestampNTZ
)

// Literal is a constant. Text is the number as written, the decoded string,
// the raw bytes of a binary literal, the quoted text of a typed literal, or
// "true"/"false".
type Literal struct {
	At   int
	Kind LitKind
	Text string
}

// Unary is NOT x, -x or +x.
type Unary struct {
	At int
	Op Op
	X  Expr
}

// Binary is a comparison, AND/OR, arithmetic or string concatenation.
type Binary struct {
	At   int
	Op   Op
	L, R Expr
}

// In is x [NOT] IN (list).
type In struct {
	At   int
	X    Expr
	List []Expr
	Not  bool
}

// Between is x [NOT] BETWEEN lo AND hi.
type Between struct {
	At     int
	X      Expr
	Lo, Hi Expr
	Not    bool
}

// IsNull is x IS [NOT] NULL (and IS [NOT] UNKNOWN).
type IsNull struct {
	At  int
	X   Expr
	Not bool
}

// IsBool is x IS [NOT] TRUE / FALSE.
type IsBool struct {
	At    int
	X     Expr
	Value bool
	Not   bool
}

// Like is x [NOT] LIKE pattern [ESCAPE 'c'], or ILIKE when Fold is set.
// Escape is the escape character; 0 means the default backslash.
type Like struct {
	At      int
	X       Expr
	Pattern Expr
	Escape  rune
	Not     bool
	Fold    bool
	// Quantified marks the LIKEs x [NOT] LIKE ANY | SOME | ALL (...) is
	// parsed into (joined by OR or AND), which Delta refuses in a
	// generated column.
	Quantified bool
}

// Cast is CAST(x AS type) or x::type.
type Cast struct {
	At   int
	X    Expr
	Type schema.Type
}

// Call is a function call; Name is lower case.
type Call struct {
	At   int
	Name string
	Args []Expr
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE Else] END. With an
// Operand (the simple form) each When's Cond is a value compared with the
// operand by =; without one each Cond is a predicate. Else is nil when
// absent (the result is then NULL).
type Case struct {
	At      int
	Operand Expr
	Whens   []When
	Else    Expr
}

// When is one WHEN Cond THEN Then branch of a Case.
type When struct {
	Cond, Then Expr
}

func (e *Column) Pos() int  { return e.At }
func (e *Literal) Pos() int { return e.At }
func (e *Unary) Pos() int   { return e.At }
func (e *Binary) Pos() int  { return e.At }
func (e *In) Pos() int      { return e.At }
func (e *Between) Pos() int { return e.At }
func (e *IsNull) Pos() int  { return e.At }
func (e *IsBool) Pos() int  { return e.At }
func (e *Like) Pos() int    { return e.At }
func (e *Cast) Pos() int    { return e.At }
func (e *Call) Pos() int    { return e.At }
func (e *Case) Pos() int    { return e.At }

func (*Column) expr()  {}
func (*Literal) expr() {}
func (*Unary) expr()   {}
func (*Binary) expr()  {}
func (*In) expr()      {}
func (*Between) expr() {}
func (*IsNull) expr()  {}
func (*IsBool) expr()  {}
func (*Like) expr()    {}
func (*Cast) expr()    {}
func (*Call) expr()    {}
func (*Case) expr()    {}
