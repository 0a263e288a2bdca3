package expr

import (
	"regexp"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// notInGeneratedColumns are the functions Delta's Spark evaluates in a
// CHECK constraint but refuses in a new generated column
// (DELTA_UNSUPPORTED_EXPRESSION_GENERATED_COLUMN): their Spark expressions
// are not on its AllowedUserProvidedExpressions list, or are on it for
// constraints only. Found by creating each with Spark 4
// (TestSparkRefusesInGeneratedColumns).
var notInGeneratedColumns = map[string]string{
	"regexp_count": "", "regexp_extract_all": "", "regexp_instr": "", "regexp_substr": "",
	"contains": "", "startswith": "", "endswith": "",
	"current_date": "it is not deterministic", "current_timestamp": "it is not deterministic",
	"nullif":  "Spark rewrites it into a common expression",
	"try_add": "", "try_subtract": "", "try_multiply": "", "try_divide": "", "try_to_binary": "", "try_to_number": "",
	"to_number": "", "btrim": "",
	"array_size": "", "array_compact": "", "array_append": "", "array_prepend": "", "array_insert": "",
	"array_sort": "Spark rewrites it into a lambda comparator",
}

func init() {
	// Delta's list has lambda functions for CHECK constraints only, and
	// every higher-order function takes one (an expression given for it is
	// one reading no variable).
	for name := range hofFuncs {
		notInGeneratedColumns[name] = "its lambda function is taken in CHECK constraints only"
	}
}

// GeneratedColumnAllowed refuses an expression Spark would not let a user
// give a new generated column, naming the construct: ILIKE, LIKE ANY / ALL,
// BETWEEN, and the functions above (decode of a binary by a charset too).
// A table another engine made is not checked: this engine computes what
// it can bind.
func GeneratedColumnAllowed(e Expr) error {
	var bad error
	visit(e, func(x Expr) {
		if bad != nil {
			return
		}
		refuse := func(what, why string) {
			if why != "" {
				why = ": " + why
			}
			bad = errs.New(errs.InvalidArgument, "", "%s cannot be used in a generated column, as Delta refuses it there%s (it can be a CHECK constraint)", what, why)
		}
		switch x := x.(type) {
		case *Call:
			if why, ok := notInGeneratedColumns[x.Name]; ok {
				refuse(x.Name, why)
			} else if x.Name == "decode" && len(x.Args) == 2 {
				refuse("decode(binary, charset)", "")
			}
		case *Like:
			if x.Fold {
				refuse("ILIKE", "")
			} else if x.Quantified {
				refuse("LIKE ANY / SOME / ALL", "")
			}
		case *Between:
			refuse("BETWEEN", "write it as two comparisons")
		}
	})
	return bad
}

// sparkVariable is what Spark's VariableSubstitution replaces in SQL text
// (spark.sql.variable.substitute, on by default).
var sparkVariable = regexp.MustCompile(`\$\{[^}$ ]+\}`)

// SubstitutionFree refuses the text of a new generated column or CHECK
// constraint holding ${name}: Spark replaces it in the SQL text before
// parsing (by a conf or environment value, or by nothing when unset), and
// stores what it parsed, so Spark could never have written it; it would
// mean one thing here and another to a Spark session.
func SubstitutionFree(text string) error {
	if v := sparkVariable.FindString(text); v != "" {
		return errs.New(errs.InvalidArgument, "", "%s in %q is a variable Spark substitutes in SQL text before it parses it; write its value instead", v, text)
	}
	return nil
}

// ConstraintAllowed refuses a new CHECK constraint Spark could not keep:
// one whose lambda function reads a column (a name none of the lambdas
// around it declares), on which Delta's writer fails (an unresolved
// attribute in its invariant checker, Delta 4.4) rather than checking it.
func ConstraintAllowed(e Expr) error {
	if c, l := lambdaColumn(e, nil, nil); c != nil {
		return errs.New(errs.InvalidArgument, "", "the lambda function %s reads the column %s, which Delta's Spark writer cannot check (it fails on every write); pass the column's values in another way", l, c)
	}
	return nil
}

// lambdaColumn is a column a lambda function within e reads, and that
// lambda; vars are the variables in scope (lower case), nil outside any
// lambda.
func lambdaColumn(e Expr, vars map[string]bool, in *Lambda) (*Column, *Lambda) {
	var col *Column
	var lam *Lambda
	visit(e, func(x Expr) {
		if col != nil {
			return
		}
		switch x := x.(type) {
		case *Lambda:
			inner := map[string]bool{}
			for k := range vars {
				inner[k] = true
			}
			for _, p := range x.Params {
				inner[strings.ToLower(p)] = true
			}
			col, lam = lambdaColumn(x.Body, inner, x)
		case *Column:
			if vars != nil && !vars[strings.ToLower(x.Parts[0])] {
				col, lam = x, in
			}
		}
	})
	return col, lam
}

// visit calls f on e and on each expression within it, parents first.
func visit(e Expr, f func(Expr)) {
	if e == nil {
		return
	}
	f(e)
	var kids []Expr
	switch x := e.(type) {
	case *Unary:
		kids = []Expr{x.X}
	case *Binary:
		kids = []Expr{x.L, x.R}
	case *In:
		kids = append([]Expr{x.X}, x.List...)
	case *Between:
		kids = []Expr{x.X, x.Lo, x.Hi}
	case *IsNull:
		kids = []Expr{x.X}
	case *IsBool:
		kids = []Expr{x.X}
	case *Like:
		kids = []Expr{x.X, x.Pattern}
	case *Cast:
		kids = []Expr{x.X}
	case *Subscript:
		kids = []Expr{x.X, x.Index}
	case *FieldAccess:
		kids = []Expr{x.X}
	case *Call:
		kids = x.Args
	case *Case:
		kids = []Expr{x.Operand, x.Else}
		for _, w := range x.Whens {
			kids = append(kids, w.Cond, w.Then)
		}
	}
	for _, k := range kids {
		visit(k, f)
	}
}
