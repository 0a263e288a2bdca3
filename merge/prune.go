package merge

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// maxInList is how many distinct source values of a key make an IN list
// for pruning; past it the key prunes by the values' range.
const maxInList = 256

// keyValues summarises the source values of one equi-join key that can
// match (rows the source-only conjuncts allow, no key null): their range
// and, while there are few, the values themselves as SQL literals.
type keyValues struct {
	usable   bool // a type whose values render as literals and order
	seen     bool
	lo, hi   ordered
	loText   string
	hiText   string
	distinct map[string]ordered // literal → value; nil once past maxInList
}

// ordered is a key value in a form Go compares: int64, string,
// decimal128.Num or bool.
type ordered any

func compareOrdered(a, b ordered) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case string:
		return strings.Compare(x, b.(string))
	case decimal128.Num:
		return x.Cmp(b.(decimal128.Num))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	return 0
}

func newKeyValues(dt arrow.DataType) *keyValues {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW,
		arrow.DATE32, arrow.TIMESTAMP, arrow.DECIMAL128, arrow.BOOL:
		return &keyValues{usable: true, distinct: map[string]ordered{}}
	}
	return &keyValues{}
}

// add records row i of a (a non-null value).
func (k *keyValues) add(a arrow.Array, i int) {
	if !k.usable {
		return
	}
	v, text, ok := literalOf(a, i)
	if !ok {
		k.usable = false
		return
	}
	if !k.seen || compareOrdered(v, k.lo) < 0 {
		k.lo, k.loText = v, text
	}
	if !k.seen || compareOrdered(v, k.hi) > 0 {
		k.hi, k.hiText = v, text
	}
	k.seen = true
	if k.distinct != nil {
		k.distinct[text] = v
		if len(k.distinct) > maxInList {
			k.distinct = nil
		}
	}
}

// literalOf reads row i of a as an ordered value and a SQL literal.
func literalOf(a arrow.Array, i int) (ordered, string, bool) {
	if d, ok := a.(*array.Dictionary); ok {
		return literalOf(d.Dictionary(), d.GetValueIndex(i))
	}
	switch a := a.(type) {
	case *array.Int8:
		return int64(a.Value(i)), strconv.FormatInt(int64(a.Value(i)), 10), true
	case *array.Int16:
		return int64(a.Value(i)), strconv.FormatInt(int64(a.Value(i)), 10), true
	case *array.Int32:
		return int64(a.Value(i)), strconv.FormatInt(int64(a.Value(i)), 10), true
	case *array.Int64:
		return a.Value(i), strconv.FormatInt(a.Value(i), 10) + "L", true
	case *array.String:
		return a.Value(i), quoteSQL(a.Value(i)), true
	case *array.LargeString:
		return a.Value(i), quoteSQL(a.Value(i)), true
	case *array.StringView:
		return a.Value(i), quoteSQL(a.Value(i)), true
	case *array.Boolean:
		return a.Value(i), strings.ToUpper(strconv.FormatBool(a.Value(i))), true
	case *array.Date32:
		v := a.Value(i)
		return int64(v), "DATE '" + v.FormattedString() + "'", true
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		t := a.Value(i).ToTime(tt.Unit).UTC()
		kw := "TIMESTAMP"
		if tt.TimeZone == "" {
			kw = "TIMESTAMP_NTZ"
		}
		return t.UnixNano(), kw + " '" + t.Format("2006-01-02 15:04:05.999999999") + "'", t.Year() > 1677 && t.Year() < 2262
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return a.Value(i), a.Value(i).ToString(dt.Scale) + "BD", true
	}
	return nil, "", false
}

// quoteSQL renders s as a string literal of the expression grammar, whose
// strings take backslash escapes.
func quoteSQL(s string) string {
	return "'" + sqlEscaper.Replace(s) + "'"
}

// sqlEscaper is built once: quoteSQL runs for every source key.
var sqlEscaper = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// fileFilter is a predicate over the target alone that holds for every
// target row some source row can match: the ON predicate's target-only
// conjuncts and, per equi-join key, the source's values (an IN list when
// they are few, else their range). A file it rules out (expr.Decide gives
// False) holds no row a source row matches, so MATCHED clauses never touch
// it and no insert depends on it. nil means every file may match.
func (j *joiner) fileFilter() (*expr.Bound, error) {
	var conj []expr.Expr
	if j.p.targetOnly != nil {
		conj = append(conj, j.p.targetOnly.Expr())
	}
	for x, k := range j.p.keys {
		kv := j.values[x]
		var text string
		switch {
		case !kv.usable || !kv.seen:
			continue
		case kv.distinct != nil:
			lits := make([]string, 0, len(kv.distinct))
			for l := range kv.distinct {
				lits = append(lits, l)
			}
			slices.SortFunc(lits, func(a, b string) int { return compareOrdered(kv.distinct[a], kv.distinct[b]) })
			text = fmt.Sprintf("%s IN (%s)", k.target, strings.Join(lits, ", "))
		default:
			text = fmt.Sprintf("%s BETWEEN %s AND %s", k.target, kv.loText, kv.hiText)
		}
		e, err := expr.Parse(text)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, "", err, "the file filter of key %s", k.target)
		}
		conj = append(conj, e)
	}
	if j.set != nil && j.set.Len() == 0 {
		// No source row has a key that can match.
		conj = append(conj, &expr.Literal{Kind: expr.LitBool, Text: "false"})
	}
	if len(conj) == 0 {
		return nil, nil
	}
	b, err := j.p.sess.Bind(expr.And(conj...), map[string]*schema.Struct{j.p.tgt: j.p.target})
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "the file filter")
	}
	return b, nil
}

// bySourceFilter is a predicate over the target alone that holds for every
// target row a NOT MATCHED BY SOURCE clause may act on: the OR of their
// conditions. ok is false when there is no such clause (no file needs
// reading for them); a nil predicate with ok means every file.
func (p *plan) bySourceFilter() (_ *expr.Bound, ok bool, err error) {
	var conds []expr.Expr
	for _, c := range p.clauses {
		if c.When != NotMatchedBySource {
			continue
		}
		if c.cond == nil {
			return nil, true, nil
		}
		conds = append(conds, c.cond.Expr())
	}
	if len(conds) == 0 {
		return nil, false, nil
	}
	or := conds[0]
	for _, c := range conds[1:] {
		or = &expr.Binary{At: or.Pos(), Op: expr.OpOr, L: or, R: c}
	}
	b, err := p.sess.Bind(or, map[string]*schema.Struct{p.tgt: p.target})
	if err != nil {
		return nil, false, errs.Wrap(errs.Internal, "", err, "the NOT MATCHED BY SOURCE conditions")
	}
	return b, true, nil
}

// inScope returns whether a target file is one a merge reads: one a
// source row may match, or one a NOT MATCHED BY SOURCE clause may act on.
// The others are carried over untouched. It is also the merge's read
// predicate for the conflict checker.
func (j *joiner) inScope(mode schema.Mode) (func(*protocol.Add) bool, error) {
	match, err := j.fileFilter()
	if err != nil {
		return nil, err
	}
	bySource, any, err := j.p.bySourceFilter()
	if err != nil {
		return nil, err
	}
	target := j.p.target
	return func(a *protocol.Add) bool {
		f := expr.File{PartitionValues: a.PartitionValues, Stats: stats.Parse(a.Stats, target, mode)}
		return match == nil || expr.Decide(match, f) != expr.False ||
			any && (bySource == nil || expr.Decide(bySource, f) != expr.False)
	}, nil
}
