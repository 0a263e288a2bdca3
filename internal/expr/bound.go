package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/schema"
)

// node is a bound expression: every column resolved, every operand of the
// type its operator evaluates in.
type node interface{ Type() schema.Type }

// colRef is a resolved column: a top-level column of relation rel, and
// the struct fields below it for a nested reference.
type colRef struct {
	rel    string
	path   []string        // names as the schema spells them
	fields []*schema.Field // one per path element
}

// lit is a constant of type t (v nil is null). natural marks a literal
// that kept the type its text gives it; src, when set, is the constant
// expression it was folded from, rendered instead of the value.
type lit struct {
	v       any
	t       schema.Type
	natural bool
	src     Expr
}

type castN struct {
	x        node
	t        schema.Type
	implicit bool
}

type notN struct{ x node }

type logicN struct {
	op   Op // OpAnd or OpOr
	l, r node
}

// cmpN compares two operands of one type (or of void type).
type cmpN struct {
	op   Op
	l, r node
}

// arithN is arithmetic. For decimals the operands keep their own scales
// and t is the result type; otherwise both operands are of type t (or of
// double for Div, long for IntDiv).
type arithN struct {
	op   Op
	l, r node
	t    schema.Type
}

// dateArithN adds (or subtracts) a number of days to a date.
type dateArithN struct {
	sub  bool
	d, n node
}

type negN struct{ x node }

// inN is x IN (list) with x and every element of one type.
type inN struct {
	x    node
	list []node
	not  bool
}

type betweenN struct {
	x, lo, hi node
	not       bool
}

type isNullN struct {
	x   node
	not bool
}

type isBoolN struct {
	x        node
	val, not bool
}

type likeN struct {
	x, pat    node
	esc       rune
	not, fold bool
	m         *likeMatcher // compiled when the pattern is a constant
}

type callN struct {
	fn    string
	args  []node
	t     schema.Type
	scale int        // the digits of round(x, d), a constant
	rx    *regexCall // a regular expression function's pattern
	op    node       // the operation of a try_ function, over args (tryfuncs.go)
}

func (n *colRef) Type() schema.Type   { return n.fields[len(n.fields)-1].Type }
func (n *lit) Type() schema.Type      { return n.t }
func (n *castN) Type() schema.Type    { return n.t }
func (*notN) Type() schema.Type       { return tBool }
func (*logicN) Type() schema.Type     { return tBool }
func (*cmpN) Type() schema.Type       { return tBool }
func (n *arithN) Type() schema.Type   { return n.t }
func (*dateArithN) Type() schema.Type { return tDate }
func (n *negN) Type() schema.Type     { return n.x.Type() }
func (*inN) Type() schema.Type        { return tBool }
func (*betweenN) Type() schema.Type   { return tBool }
func (*isNullN) Type() schema.Type    { return tBool }
func (*isBoolN) Type() schema.Type    { return tBool }
func (*likeN) Type() schema.Type      { return tBool }
func (n *callN) Type() schema.Type    { return n.t }
func (n *colRef) top() *schema.Field  { return n.fields[0] }
func (n *colRef) nested() bool        { return len(n.fields) > 1 }
func (n *colRef) key() string         { return n.rel + "\x00" + strings.Join(n.path, "\x00") }

// children lists the operands of n.
func children(n node) []node {
	switch n := n.(type) {
	case *castN:
		return []node{n.x}
	case *notN:
		return []node{n.x}
	case *logicN:
		return []node{n.l, n.r}
	case *cmpN:
		return []node{n.l, n.r}
	case *arithN:
		return []node{n.l, n.r}
	case *dateArithN:
		return []node{n.d, n.n}
	case *negN:
		return []node{n.x}
	case *inN:
		return append([]node{n.x}, n.list...)
	case *betweenN:
		return []node{n.x, n.lo, n.hi}
	case *isNullN:
		return []node{n.x}
	case *isBoolN:
		return []node{n.x}
	case *likeN:
		return []node{n.x, n.pat}
	case *callN:
		return n.args
	case *caseN:
		return n.children()
	case *assignN:
		return []node{n.x}
	case *lambdaN:
		return []node{n.body}
	case *fieldN:
		return []node{n.v}
	}
	return nil
}

// walk calls f on n and every node below it, depth first.
func walk(n node, f func(node)) {
	f(n)
	for _, c := range children(n) {
		walk(c, f)
	}
}

func hasColumns(n node) bool {
	found := false
	walk(n, func(m node) {
		switch m.(type) {
		case *colRef, *lambdaVarN:
			found = true // a lambda variable varies as a column does
		}
	})
	return found
}

// Bound is an expression bound to the schemas of one or more relations:
// ready to evaluate, to prune files with and to render. It is immutable and
// safe for concurrent use.
type Bound struct {
	root  node
	rels  map[string]*schema.Struct
	cache *constCache
	refs  map[node][]*colRef // the columns each node reads
	loc   *time.Location     // the session time zone it was bound in
}

// newBound computes what file decisions need once per expression.
func newBound(root node, rels map[string]*schema.Struct, loc *time.Location) *Bound {
	b := &Bound{root: root, rels: rels, cache: &constCache{}, refs: map[node][]*colRef{}, loc: loc}
	var collect func(n node) []*colRef
	collect = func(n node) []*colRef {
		var out []*colRef
		if c, ok := n.(*colRef); ok {
			out = []*colRef{c}
		}
		for _, ch := range children(n) {
			out = append(out, collect(ch)...)
		}
		b.refs[n] = out
		return out
	}
	collect(root)
	return b
}

// Type is the Delta type of the expression's value.
func (b *Bound) Type() schema.Type { return b.root.Type() }

// String renders the expression as canonical Spark SQL: keywords upper
// case, literals typed by the columns they meet (a string compared with a
// date column renders as DATE '2026-01-01'), implicit casts left out,
// qualifiers kept only when more than one relation is bound. The text
// binds again to an equivalent expression.
func (b *Bound) String() string { return unbind(b.root, len(b.rels) > 1).String() }

// Expr returns the canonical form of the bound expression as an AST.
func (b *Bound) Expr() Expr { return unbind(b.root, len(b.rels) > 1) }

// ColumnRef names a column the expression reads: Path holds the top-level
// column and, for a nested reference, the struct fields below it, spelled
// as the schema spells them. Relation is the key the relation was bound
// under ("" for a single unnamed relation).
type ColumnRef struct {
	Relation string
	Path     []string
}

func (c ColumnRef) String() string {
	parts := c.Path
	if c.Relation != "" {
		parts = append([]string{c.Relation}, parts...)
	}
	return (&Column{Parts: parts}).String()
}

// Columns lists the columns the expression reads, each once, in the order
// they first appear.
func (b *Bound) Columns() []ColumnRef {
	var out []ColumnRef
	seen := map[string]bool{}
	walk(b.root, func(n node) {
		if c, ok := n.(*colRef); ok && !seen[c.key()] {
			seen[c.key()] = true
			out = append(out, ColumnRef{Relation: c.rel, Path: append([]string(nil), c.path...)})
		}
	})
	return out
}

// Columns lists the columns a bound expression reads; see Bound.Columns.
func Columns(b *Bound) []ColumnRef { return b.Columns() }

// OnlyPartitionColumns reports whether every column the expression reads
// is a top-level column named in partCols (matched case-insensitively), so
// that partition values alone decide it.
func OnlyPartitionColumns(b *Bound, partCols []string) bool {
	ok := true
	walk(b.root, func(n node) {
		c, isCol := n.(*colRef)
		if !isCol {
			return
		}
		if c.nested() || !containsFold(partCols, c.path[0]) {
			ok = false
		}
	})
	return ok
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// unbind turns a bound node back into canonical AST form.
func unbind(n node, qualify bool) Expr {
	switch n := n.(type) {
	case *colRef:
		parts := n.path
		if qualify && n.rel != "" {
			parts = append([]string{n.rel}, parts...)
		}
		return &Column{Parts: append([]string(nil), parts...)}
	case *lit:
		if n.src != nil {
			return n.src
		}
		return literalExpr(n)
	case *castN:
		if n.implicit {
			return unbind(n.x, qualify)
		}
		return &Cast{X: unbind(n.x, qualify), Type: n.t}
	case *notN:
		return &Unary{Op: OpNot, X: unbind(n.x, qualify)}
	case *logicN:
		return &Binary{Op: n.op, L: unbind(n.l, qualify), R: unbind(n.r, qualify)}
	case *cmpN:
		return &Binary{Op: n.op, L: unbind(n.l, qualify), R: unbind(n.r, qualify)}
	case *arithN:
		return &Binary{Op: n.op, L: unbind(n.l, qualify), R: unbind(n.r, qualify)}
	case *dateArithN:
		op := Add
		if n.sub {
			op = Sub
		}
		return &Binary{Op: op, L: unbind(n.d, qualify), R: unbind(n.n, qualify)}
	case *negN:
		return &Unary{Op: Neg, X: unbind(n.x, qualify)}
	case *inN:
		in := &In{X: unbind(n.x, qualify), Not: n.not}
		for _, e := range n.list {
			in.List = append(in.List, unbind(e, qualify))
		}
		return in
	case *betweenN:
		return &Between{X: unbind(n.x, qualify), Lo: unbind(n.lo, qualify), Hi: unbind(n.hi, qualify), Not: n.not}
	case *isNullN:
		return &IsNull{X: unbind(n.x, qualify), Not: n.not}
	case *isBoolN:
		return &IsBool{X: unbind(n.x, qualify), Value: n.val, Not: n.not}
	case *likeN:
		l := &Like{X: unbind(n.x, qualify), Pattern: unbind(n.pat, qualify), Not: n.not, Fold: n.fold}
		if n.esc != '\\' {
			l.Escape = n.esc
		}
		return l
	case *caseN:
		return unbindCase(n, qualify)
	case *assignN:
		return unbind(n.x, qualify) // the column's type is implied
	case *lambdaN:
		return unbindLambda(n, qualify)
	case *lambdaVarN:
		return &Column{Parts: []string{n.name}}
	case *fieldN:
		return &Column{Parts: append([]string{n.v.name}, n.path...)}
	case *callN:
		if op, ok := bitOps[n.fn]; ok {
			if op == BitNot {
				return &Unary{Op: op, X: unbind(n.args[0], qualify)}
			}
			return &Binary{Op: op, L: unbind(n.args[0], qualify), R: unbind(n.args[1], qualify)}
		}
		if n.fn == subscriptFn {
			return &Subscript{X: unbind(n.args[0], qualify), Index: unbind(n.args[1], qualify)}
		}
		if n.fn == fieldFn {
			return &FieldAccess{X: unbind(n.args[0], qualify), Name: n.args[1].(*lit).v.(string)}
		}
		c := &Call{Name: n.fn}
		for _, a := range n.args {
			c.Args = append(c.Args, unbind(a, qualify))
		}
		return c
	}
	return &Literal{Kind: LitNull}
}

// literalExpr renders a constant so that it parses and binds back to the
// same value: natural literals keep their type through suffixes, coerced
// ones render plainly and coerce again against the same operand.
func literalExpr(n *lit) Expr {
	num := func(s string) Expr { return &Literal{Kind: LitNumber, Text: s} }
	switch v := n.v.(type) {
	case nil:
		return &Literal{Kind: LitNull}
	case bool:
		return &Literal{Kind: LitBool, Text: strconv.FormatBool(v)}
	case int8:
		return num(strconv.Itoa(int(v)) + suffixIf(n.natural, "Y"))
	case int16:
		return num(strconv.Itoa(int(v)) + suffixIf(n.natural, "S"))
	case int32:
		return num(strconv.Itoa(int(v)))
	case int64:
		return num(strconv.FormatInt(v, 10) + suffixIf(n.natural && v >= math.MinInt32 && v <= math.MaxInt32, "L"))
	case float32:
		if n.natural {
			return floatLiteral(float64(v), 32, true, "F")
		}
		// The exact double of the float, so that it coerces back exactly.
		return floatLiteral(float64(v), 64, false, "")
	case float64:
		return floatLiteral(v, 64, n.natural, "D")
	case decimal128.Num:
		scale := 0
		if d, ok := n.t.(*schema.Decimal); ok {
			scale = d.Scale
		}
		s := v.ToString(int32(scale))
		if n.natural && scale == 0 && v.BigInt().IsInt64() {
			s += "BD"
		}
		return num(s)
	case string:
		return &Literal{Kind: LitString, Text: v}
	case []byte:
		return &Literal{Kind: LitBinary, Text: string(v)}
	case arrow.Date32:
		return &Literal{Kind: LitDate, Text: formatDate(v)}
	case arrow.Timestamp:
		if isType(n.t, schema.TimestampNTZ) {
			return &Literal{Kind: LitTimestampNTZ, Text: formatTimestamp(v)}
		}
		return &Literal{Kind: LitTimestamp, Text: formatTimestamp(v)}
	}
	return &Literal{Kind: LitString, Text: fmt.Sprint(n.v)}
}

func suffixIf(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

func floatLiteral(f float64, bits int, natural bool, suffix string) Expr {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		t := tDouble
		if bits == 32 {
			t = tFloat
		}
		return &Cast{X: &Literal{Kind: LitString, Text: formatDouble(f, bits)}, Type: t}
	}
	a := math.Abs(f)
	var s string
	if a == 0 || a >= 1e-6 && a < 1e20 {
		s = strconv.FormatFloat(f, 'f', -1, bits)
	} else {
		s = strconv.FormatFloat(f, 'E', -1, bits)
	}
	if natural {
		s += suffix
	}
	return &Literal{Kind: LitNumber, Text: s}
}
