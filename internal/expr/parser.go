package expr

import (
	"strconv"
	"strings"

	"github.com/deltalite-go/deltalite/schema"
)

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 256

// Binding powers, loosest first. Predicates (IS, IN, BETWEEN, LIKE) bind
// looser than comparisons, as in Spark's grammar: a = b IS NULL is
// (a = b) IS NULL, and NOT applies to a whole predicate.
const (
	bpOr = iota + 1
	bpAnd
	bpNot
	bpPredicate
	bpCompare
	bpBitOr  // |, looser than ^, looser than &, as in Spark's grammar
	bpBitXor // ^
	bpBitAnd // &
	bpAdditive
	bpMultiplicative
	bpUnary
	bpPostfix
)

type parser struct {
	src   string
	toks  []token
	i     int
	depth int
	// inCase counts the CASE expressions being parsed: inside one, WHEN,
	// THEN, ELSE and END are keywords, elsewhere they may name columns.
	inCase int
}

// Parse parses one expression in the Spark SQL subset this package
// supports. Errors are InvalidArgument and carry a *SyntaxError with the
// column of the problem.
func Parse(src string) (e Expr, err error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	e, err = p.expr(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tkEOF {
		if isSym(t, "->") {
			return nil, p.misplacedLambda(t)
		}
		return nil, p.errAt(t, "unexpected %s after the end of the expression", t.describe())
	}
	return e, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tkEOF {
		p.i++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) error {
	return syntaxErr(p.src, t.pos, format, args...)
}

// isKw reports whether t is the (unquoted, case-insensitive) keyword kw.
func isKw(t token, kw string) bool { return t.kind == tkIdent && strings.EqualFold(t.text, kw) }

func isSym(t token, s string) bool { return t.kind == tkSym && t.text == s }

func (p *parser) acceptKw(kw string) bool {
	if isKw(p.peek(), kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectSym(s string) error {
	if t := p.peek(); isSym(t, "->") {
		return p.misplacedLambda(t)
	} else if !isSym(t, s) {
		return p.errAt(t, "expected '%s', found %s", s, t.describe())
	}
	p.i++
	return nil
}

func (p *parser) expectKw(kw string) error {
	if t := p.peek(); !isKw(t, kw) {
		return p.errAt(t, "expected %s, found %s", kw, t.describe())
	}
	p.i++
	return nil
}

// expr parses an expression whose operators all bind tighter than minBP.
func (p *parser) expr(minBP int) (Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errAt(p.peek(), "expression nested too deeply")
	}
	left, err := p.prefix()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		bp := infixBP(t, p.peekAt(1))
		if bp == 0 || bp <= minBP {
			return left, nil
		}
		left, err = p.infix(left)
		if err != nil {
			return nil, err
		}
	}
}

// infixBP is the binding power of t as an infix or postfix operator, 0 when
// it is none; nt is the token after t.
func infixBP(t, nt token) int {
	switch t.kind {
	case tkSym:
		switch t.text {
		case "=", "==", "!=", "<>", "<", "<=", ">", ">=", "<=>":
			return bpCompare
		case "+", "-", "||":
			return bpAdditive
		case "*", "/", "%":
			return bpMultiplicative
		case "::", "[", ".":
			return bpPostfix
		case "|":
			return bpBitOr
		case "^":
			return bpBitXor
		case "&":
			return bpBitAnd
		}
	case tkIdent:
		switch strings.ToUpper(t.text) {
		case "OR":
			return bpOr
		case "AND":
			return bpAnd
		case "IS", "IN", "BETWEEN", "LIKE", "ILIKE", "RLIKE", "REGEXP":
			return bpPredicate
		case "NOT":
			if nt.kind == tkIdent {
				switch strings.ToUpper(nt.text) {
				case "IN", "BETWEEN", "LIKE", "ILIKE", "RLIKE", "REGEXP":
					return bpPredicate
				}
			}
		case "DIV":
			return bpMultiplicative
		}
	}
	return 0
}

var binaryOps = map[string]Op{"=": Eq, "==": Eq, "!=": Ne, "<>": Ne, "<": Lt, "<=": Le, ">": Gt, ">=": Ge,
	"<=>": NullSafeEq, "+": Add, "-": Sub, "||": Concat, "*": Mul, "/": Div, "%": Mod,
	"&": BitAnd, "|": BitOr, "^": BitXor}

func (p *parser) infix(left Expr) (Expr, error) {
	t := p.next()
	at := left.Pos()
	if t.kind == tkSym {
		if t.text == "::" {
			typ, err := p.typeName()
			if err != nil {
				return nil, err
			}
			return &Cast{At: at, X: left, Type: typ}, nil
		}
		if t.text == "." {
			nt := p.next()
			if nt.kind != tkIdent && nt.kind != tkQIdent {
				return nil, p.errAt(nt, "expected a field name after '.', found %s", nt.describe())
			}
			return &FieldAccess{At: at, X: left, Name: nt.text}, nil
		}
		if t.text == "[" {
			idx, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if err := p.expectSym("]"); err != nil {
				return nil, err
			}
			return &Subscript{At: at, X: left, Index: idx}, nil
		}
		op := binaryOps[t.text]
		right, err := p.expr(infixBP(t, token{}))
		if err != nil {
			return nil, err
		}
		return &Binary{At: at, Op: op, L: left, R: right}, nil
	}
	switch kw := strings.ToUpper(t.text); kw {
	case "OR", "AND", "DIV":
		op := map[string]Op{"OR": OpOr, "AND": OpAnd, "DIV": IntDiv}[kw]
		right, err := p.expr(infixBP(t, token{}))
		if err != nil {
			return nil, err
		}
		return &Binary{At: at, Op: op, L: left, R: right}, nil
	case "IS":
		return p.isPredicate(left)
	}
	not := false
	if isKw(t, "NOT") {
		not = true
		t = p.next()
	}
	switch strings.ToUpper(t.text) {
	case "IN":
		return p.inList(left, not)
	case "BETWEEN":
		lo, err := p.expr(bpPredicate)
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("AND"); err != nil {
			return nil, err
		}
		hi, err := p.expr(bpPredicate)
		if err != nil {
			return nil, err
		}
		return &Between{At: at, X: left, Lo: lo, Hi: hi, Not: not}, nil
	case "LIKE", "ILIKE":
		if nt := p.peek(); (isKw(nt, "ANY") || isKw(nt, "ALL") || isKw(nt, "SOME")) && isSym(p.peekAt(1), "(") {
			return p.likeQuantified(left, not, isKw(t, "ILIKE"))
		}
		pat, err := p.expr(bpPredicate)
		if err != nil {
			return nil, err
		}
		l := &Like{At: at, X: left, Pattern: pat, Not: not, Fold: isKw(t, "ILIKE")}
		if p.acceptKw("ESCAPE") {
			et := p.next()
			if et.kind != tkString || len([]rune(et.text)) != 1 {
				return nil, p.errAt(et, "ESCAPE takes a string of one character, found %s", et.describe())
			}
			l.Escape = []rune(et.text)[0]
		}
		return l, nil
	case "RLIKE", "REGEXP":
		pat, err := p.expr(bpPredicate)
		if err != nil {
			return nil, err
		}
		var e Expr = &Call{At: at, Name: "rlike", Args: []Expr{left, pat}}
		if not {
			e = &Unary{At: at, Op: OpNot, X: e}
		}
		return e, nil
	}
	return nil, p.errAt(t, "%s is not supported", strings.ToUpper(t.text))
}

func (p *parser) isPredicate(left Expr) (Expr, error) {
	at := left.Pos()
	not := p.acceptKw("NOT")
	t := p.next()
	switch {
	case isKw(t, "NULL"), isKw(t, "UNKNOWN"):
		return &IsNull{At: at, X: left, Not: not}, nil
	case isKw(t, "TRUE"), isKw(t, "FALSE"):
		return &IsBool{At: at, X: left, Value: isKw(t, "TRUE"), Not: not}, nil
	case isKw(t, "DISTINCT"):
		if err := p.expectKw("FROM"); err != nil {
			return nil, err
		}
		right, err := p.expr(bpPredicate)
		if err != nil {
			return nil, err
		}
		var e Expr = &Binary{At: at, Op: NullSafeEq, L: left, R: right}
		if !not {
			e = &Unary{At: at, Op: OpNot, X: e}
		}
		return e, nil
	}
	return nil, p.errAt(t, "expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS, found %s", t.describe())
}

func (p *parser) inList(left Expr, not bool) (Expr, error) {
	if err := p.expectSym("("); err != nil {
		return nil, err
	}
	if t := p.peek(); isKw(t, "SELECT") || isKw(t, "WITH") {
		return nil, p.errAt(t, "IN with a subquery is not supported")
	}
	in := &In{At: left.Pos(), X: left, Not: not}
	for {
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		in.List = append(in.List, e)
		t := p.next()
		if isSym(t, ")") {
			return in, nil
		}
		if !isSym(t, ",") {
			return nil, p.errAt(t, "expected ',' or ')' in the IN list, found %s", t.describe())
		}
	}
}

func (p *parser) prefix() (Expr, error) {
	t := p.next()
	switch t.kind {
	case tkEOF:
		return nil, p.errAt(t, "expected an expression, found end of input")
	case tkNumber:
		return &Literal{At: t.pos, Kind: LitNumber, Text: t.text}, nil
	case tkString:
		s := t.text
		// Spark joins adjacent string literals: 'a' 'b' is 'ab'.
		for p.peek().kind == tkString {
			s += p.next().text
		}
		return &Literal{At: t.pos, Kind: LitString, Text: s}, nil
	case tkBinary:
		return &Literal{At: t.pos, Kind: LitBinary, Text: t.text}, nil
	case tkQIdent:
		return p.column(t)
	case tkSym:
		switch t.text {
		case "(":
			if nt := p.peek(); isKw(nt, "SELECT") || isKw(nt, "WITH") {
				return nil, p.errAt(nt, "subqueries are not supported")
			}
			e, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if err := p.expectSym(")"); err != nil {
				return nil, err
			}
			return e, nil
		case "-", "+", "~":
			x, err := p.expr(bpUnary)
			if err != nil {
				return nil, err
			}
			op := map[string]Op{"-": Neg, "+": Plus, "~": BitNot}[t.text]
			return &Unary{At: t.pos, Op: op, X: x}, nil
		case "!":
			x, err := p.expr(bpNot)
			if err != nil {
				return nil, err
			}
			return &Unary{At: t.pos, Op: OpNot, X: x}, nil
		}
		return nil, p.errAt(t, "expected an expression, found %s", t.describe())
	}
	// A plain word: keyword, typed literal, function call or column.
	switch strings.ToUpper(t.text) {
	case "NOT":
		x, err := p.expr(bpNot)
		if err != nil {
			return nil, err
		}
		return &Unary{At: t.pos, Op: OpNot, X: x}, nil
	case "NULL":
		return &Literal{At: t.pos, Kind: LitNull}, nil
	case "TRUE", "FALSE":
		return &Literal{At: t.pos, Kind: LitBool, Text: strings.ToLower(t.text)}, nil
	case "DATE", "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ":
		if nt := p.peek(); nt.kind == tkString {
			p.next()
			kind := map[string]LitKind{"DATE": LitDate, "TIMESTAMP": LitTimestamp,
				"TIMESTAMP_NTZ": LitTimestampNTZ, "TIMESTAMP_LTZ": LitTimestamp}[strings.ToUpper(t.text)]
			return &Literal{At: t.pos, Kind: kind, Text: nt.text}, nil
		}
	case "CAST", "TRY_CAST":
		if isSym(p.peek(), "(") {
			if isKw(t, "TRY_CAST") {
				return nil, p.errAt(t, "TRY_CAST is not supported")
			}
			return p.cast(t)
		}
	case "CASE":
		return p.caseExpr(t)
	case "INTERVAL", "EXISTS":
		if nt := p.peekAt(1); isKw(t, "EXISTS") && isSym(p.peek(), "(") && !isKw(nt, "SELECT") && !isKw(nt, "WITH") {
			return p.call(t) // the higher-order function exists(array, x -> ...)
		}
		return nil, p.errAt(t, "%s is not supported", strings.ToUpper(t.text))
	case "AND", "OR", "IS", "IN", "BETWEEN", "LIKE", "ILIKE", "ESCAPE", "AS", "DIV":
		return nil, p.errAt(t, "expected an expression, found %s", t.describe())
	case "WHEN", "THEN", "ELSE", "END":
		if p.inCase > 0 {
			return nil, p.errAt(t, "expected an expression, found %s", t.describe())
		}
	}
	if isSym(p.peek(), "(") {
		return p.call(t)
	}
	return p.column(t)
}

// column parses a dotted name starting with t.
func (p *parser) column(t token) (Expr, error) {
	c := &Column{At: t.pos, Parts: []string{t.text}}
	for isSym(p.peek(), ".") {
		p.next()
		nt := p.next()
		if nt.kind != tkIdent && nt.kind != tkQIdent {
			return nil, p.errAt(nt, "expected a field name after '.', found %s", nt.describe())
		}
		c.Parts = append(c.Parts, nt.text)
	}
	return c, nil
}

func (p *parser) call(name token) (Expr, error) {
	p.next() // (
	c := &Call{At: name.pos, Name: strings.ToLower(name.text)}
	if isSym(p.peek(), ")") {
		p.next()
		return c, nil
	}
	if t := p.peek(); isKw(t, "DISTINCT") || isKw(t, "ALL") {
		return nil, p.errAt(t, "%s in a function call is not supported", strings.ToUpper(t.text))
	}
	switch c.Name {
	case "trim":
		if opt := p.peek(); (isKw(opt, "BOTH") || isKw(opt, "LEADING") || isKw(opt, "TRAILING")) && !isSym(p.peekAt(1), ")") && !isSym(p.peekAt(1), ",") {
			return p.trimForm(c)
		}
	case "position":
		return p.positionForm(c)
	}
	for {
		if isSym(p.peek(), "*") {
			return nil, p.errAt(p.peek(), "'*' is not supported as an argument")
		}
		e, err := p.argument()
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, e)
		t := p.next()
		if isSym(t, ")") {
			return c, nil
		}
		if c.Name == "substring" && len(c.Args) < 3 && (isKw(t, "FROM") && len(c.Args) == 1 || isKw(t, "FOR") && len(c.Args) == 2) {
			continue // substring(s FROM p FOR n)
		}
		if c.Name == "extract" && len(c.Args) == 1 && isKw(t, "FROM") {
			continue // extract(FIELD FROM x)
		}
		if isSym(t, "->") {
			return nil, p.misplacedLambda(t)
		}
		if c.Name == "trim" && len(c.Args) == 1 && isKw(t, "FROM") {
			return p.trimFrom(c, "trim", c.Args[0]) // trim(chars FROM s)
		}
		if c.Name == "overlay" && (isKw(t, "PLACING") && len(c.Args) == 1 || isKw(t, "FROM") && len(c.Args) == 2 || isKw(t, "FOR") && len(c.Args) == 3) {
			continue // overlay(s PLACING r FROM pos [FOR len])
		}
		if !isSym(t, ",") {
			return nil, p.errAt(t, "expected ',' or ')' in the arguments of %s, found %s", c.Name, t.describe())
		}
	}
}

// trimForm parses the rest of trim(BOTH | LEADING | TRAILING [chars]
// FROM s) as trim, ltrim or rtrim of s, with the characters first (the
// order of Spark's two-argument trim).
func (p *parser) trimForm(c *Call) (Expr, error) {
	name := map[string]string{"BOTH": "trim", "LEADING": "ltrim", "TRAILING": "rtrim"}[strings.ToUpper(p.next().text)]
	if p.acceptKw("FROM") {
		return p.trimFrom(c, name, nil)
	}
	chars, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if err := p.expectKw("FROM"); err != nil {
		return nil, err
	}
	return p.trimFrom(c, name, chars)
}

// trimFrom parses the source text after FROM and the closing parenthesis.
func (p *parser) trimFrom(c *Call, name string, chars Expr) (Expr, error) {
	s, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if err := p.expectSym(")"); err != nil {
		return nil, err
	}
	c.Name, c.Args = name, []Expr{s}
	if chars != nil {
		c.Args = []Expr{chars, s}
	}
	return c, nil
}

// positionForm parses the arguments of position: (sub IN s), read as
// locate(sub, s), or the function's (sub, s[, start]). The substring binds
// tighter than IN, as Spark's grammar reads it.
func (p *parser) positionForm(c *Call) (Expr, error) {
	for {
		bp := 0
		if len(c.Args) == 0 {
			bp = bpPredicate
		}
		e, err := p.expr(bp)
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, e)
		t := p.next()
		switch {
		case isSym(t, ")"):
			return c, nil
		case isKw(t, "IN") && len(c.Args) == 1:
			s, err := p.expr(bpPredicate)
			if err != nil {
				return nil, err
			}
			c.Name, c.Args = "locate", append(c.Args, s)
			return c, p.expectSym(")")
		case !isSym(t, ","):
			return nil, p.errAt(t, "expected ',' or ')' in the arguments of position, found %s", t.describe())
		}
	}
}

// likeQuantified parses the rest of x [NOT] LIKE|ILIKE ANY|SOME|ALL
// (p1, p2, ...) as Spark means it: the patterns' LIKEs (NOT LIKEs) joined
// by OR for ANY and SOME, by AND for ALL.
func (p *parser) likeQuantified(left Expr, not, fold bool) (Expr, error) {
	op := OpOr
	if isKw(p.next(), "ALL") {
		op = OpAnd
	}
	p.next() // (
	var out Expr
	for {
		pat, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		var l Expr = &Like{At: left.Pos(), X: left, Pattern: pat, Not: not, Fold: fold, Quantified: true}
		if out != nil {
			l = &Binary{At: left.Pos(), Op: op, L: out, R: l}
		}
		out = l
		t := p.next()
		if isSym(t, ")") {
			return out, nil
		}
		if !isSym(t, ",") {
			return nil, p.errAt(t, "expected ',' or ')' in the patterns, found %s", t.describe())
		}
	}
}

// caseExpr parses the rest of CASE [operand] WHEN c THEN v ... [ELSE v] END.
func (p *parser) caseExpr(kw token) (Expr, error) {
	c := &Case{At: kw.pos}
	p.inCase++
	defer func() { p.inCase-- }()
	if t := p.peek(); isKw(t, "END") || isKw(t, "ELSE") || isKw(t, "THEN") {
		return nil, p.errAt(t, "expected WHEN, found %s", t.describe())
	}
	if !isKw(p.peek(), "WHEN") {
		x, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		c.Operand = x
	}
	for p.acceptKw("WHEN") {
		cond, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		then, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, When{Cond: cond, Then: then})
	}
	if len(c.Whens) == 0 {
		return nil, p.errAt(p.peek(), "expected WHEN, found %s", p.peek().describe())
	}
	if p.acceptKw("ELSE") {
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		c.Else = e
	}
	if err := p.expectKw("END"); err != nil {
		return nil, err
	}
	return c, nil
}

func (p *parser) cast(kw token) (Expr, error) {
	p.next() // (
	x, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	typ, err := p.typeName()
	if err != nil {
		return nil, err
	}
	if err := p.expectSym(")"); err != nil {
		return nil, err
	}
	return &Cast{At: kw.pos, X: x, Type: typ}, nil
}

// typeName parses a Spark type name: int, bigint, decimal(10,2), string,
// varchar(20), date, timestamp, ...
func (p *parser) typeName() (schema.Type, error) {
	t := p.next()
	if t.kind != tkIdent {
		return nil, p.errAt(t, "expected a type name, found %s", t.describe())
	}
	var args []int
	if isSym(p.peek(), "(") {
		p.next()
		for {
			nt := p.next()
			n, err := strconv.Atoi(nt.text)
			if nt.kind != tkNumber || err != nil || n < 0 {
				return nil, p.errAt(nt, "expected a type parameter, found %s", nt.describe())
			}
			args = append(args, n)
			st := p.next()
			if isSym(st, ")") {
				break
			}
			if !isSym(st, ",") {
				return nil, p.errAt(st, "expected ',' or ')', found %s", st.describe())
			}
		}
	}
	prim := func(name string) (schema.Type, error) {
		if args != nil {
			return nil, p.errAt(t, "type %s takes no parameters", strings.ToUpper(t.text))
		}
		return &schema.Primitive{Name: name}, nil
	}
	switch strings.ToLower(t.text) {
	case "string":
		return prim(schema.String)
	case "varchar", "char", "character":
		if len(args) != 1 {
			return nil, p.errAt(t, "type %s takes one length parameter", strings.ToUpper(t.text))
		}
		return &schema.Primitive{Name: schema.String}, nil
	case "int", "integer":
		return prim(schema.Integer)
	case "bigint", "long":
		return prim(schema.Long)
	case "smallint", "short":
		return prim(schema.Short)
	case "tinyint", "byte":
		return prim(schema.Byte)
	case "float", "real":
		return prim(schema.Float)
	case "double":
		return prim(schema.Double)
	case "boolean", "bool":
		return prim(schema.Boolean)
	case "binary":
		return prim(schema.Binary)
	case "date":
		return prim(schema.Date)
	case "timestamp", "timestamp_ltz":
		return prim(schema.Timestamp)
	case "timestamp_ntz":
		return prim(schema.TimestampNTZ)
	case "decimal", "dec", "numeric":
		prec, scale := 10, 0
		switch len(args) {
		case 0:
		case 1:
			prec = args[0]
		case 2:
			prec, scale = args[0], args[1]
		default:
			return nil, p.errAt(t, "DECIMAL takes at most two parameters")
		}
		if prec < 1 || prec > 38 || scale > prec {
			return nil, p.errAt(t, "invalid DECIMAL(%d,%d): precision must be 1 to 38 and scale at most the precision", prec, scale)
		}
		return &schema.Decimal{Precision: prec, Scale: scale}, nil
	}
	return nil, p.errAt(t, "unknown or unsupported type %s", t.describe())
}
