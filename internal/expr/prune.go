package expr

import (
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/schema"
)

// Tristate is what the log alone says about a predicate on a whole file.
type Tristate int8

const (
	// Unknown: the file may hold rows of both kinds; read it.
	Unknown Tristate = iota
	// True: the predicate IS TRUE for every row of the file.
	True
	// False: the predicate IS TRUE for no row (each is false or null).
	False
)

func (t Tristate) String() string {
	switch t {
	case True:
		return "true"
	case False:
		return "false"
	}
	return "unknown"
}

// File is what the log says about one data file.
type File struct {
	// PartitionValues is the add action's map ("" is null), keyed by
	// physical name under column mapping, else by logical name.
	PartitionValues map[string]string
	// Stats are the file's parsed statistics; nil when absent.
	Stats *stats.File
	// Relation is the relation of the predicate the file belongs to; ""
	// for a predicate bound to a single relation. Columns of other
	// relations are unknown.
	Relation string
}

// Decide says whether the predicate holds for every row of a file, for no
// row, or cannot be decided from the file's partition values and
// statistics. It is conservative: it answers True or False only when that
// holds for any content the log allows.
func Decide(pred *Bound, f File) Tristate {
	rel := f.Relation
	if rel == "" && len(pred.rels) == 1 {
		for name := range pred.rels {
			rel = name
		}
	}
	if f.Stats != nil && f.Stats.NumRecords == 0 {
		return False
	}
	d := &decider{rel: rel, pv: f.PartitionValues, fs: f.Stats, cache: pred.cache, refs: pred.refs, loc: pred.loc}
	o := d.analyze(pred.root)
	switch {
	case o == oTrue:
		return True
	case o&oTrue == 0:
		return False
	}
	return Unknown
}

// EvalPartition decides a predicate from a file's partition values alone:
// True or False when the partition columns decide it (for every row of the
// file), Unknown when it depends on other columns.
func EvalPartition(pred *Bound, partitionValues map[string]string) Tristate {
	return Decide(pred, File{PartitionValues: partitionValues})
}

// CanSkip reports whether a file cannot hold a row for which the predicate
// IS TRUE, judging by its statistics (min/max, null counts, record count)
// and partition values; either may be nil.
func CanSkip(pred *Bound, fs *stats.File, partitionValues map[string]string) bool {
	return Decide(pred, File{PartitionValues: partitionValues, Stats: fs}) == False
}

// outcomes is the set of values a boolean expression may take on the rows
// of a file.
type outcomes uint8

const (
	oTrue outcomes = 1 << iota
	oFalse
	oNull
	oAny = oTrue | oFalse | oNull
)

func outcomeOf(v any) outcomes {
	switch v {
	case true:
		return oTrue
	case false:
		return oFalse
	}
	return oNull
}

func (o outcomes) each(f func(v any)) {
	if o&oTrue != 0 {
		f(true)
	}
	if o&oFalse != 0 {
		f(false)
	}
	if o&oNull != 0 {
		f(nil)
	}
}

// combine applies a three-valued operator to every pair of outcomes.
func combine(a, b outcomes, op func(x, y any) any) outcomes {
	var out outcomes
	a.each(func(x any) {
		b.each(func(y any) { out |= outcomeOf(op(x, y)) })
	})
	return out
}

func and3(x, y any) any {
	if x == false || y == false {
		return false
	}
	if x == nil || y == nil {
		return nil
	}
	return true
}

func or3(x, y any) any {
	if x == true || y == true {
		return true
	}
	if x == nil || y == nil {
		return nil
	}
	return false
}

func (o outcomes) not() outcomes {
	out := o & oNull
	if o&oTrue != 0 {
		out |= oFalse
	}
	if o&oFalse != 0 {
		out |= oTrue
	}
	return out
}

// mapOutcomes applies a total function of one truth value.
func (o outcomes) mapEach(f func(v any) any) outcomes {
	var out outcomes
	o.each(func(v any) { out |= outcomeOf(f(v)) })
	return out
}

type decider struct {
	rel   string
	pv    map[string]string
	fs    *stats.File
	cache *constCache
	refs  map[node][]*colRef
	loc   *time.Location
}

// partitionValue is the value of a top-level column of the file's relation
// that the partition values fix; ok is false for any other column and for
// a value that does not parse.
func (d *decider) partitionValue(c *colRef) (any, bool) {
	raw, ok := d.rawPartition(c)
	if !ok {
		return nil, false
	}
	v, _, err := Session{loc: d.loc}.PartitionValue(c.top().Type, raw)
	if err != nil {
		return nil, false
	}
	return v, true
}

// rawPartition is the log's text of a partition column ("" is null).
func (d *decider) rawPartition(c *colRef) (string, bool) {
	if c.rel != d.rel || c.nested() || d.pv == nil {
		return "", false
	}
	f := c.top()
	raw, ok := d.pv[f.PhysicalName(schema.MappingName)]
	if !ok {
		raw, ok = d.pv[f.Name]
	}
	return raw, ok
}

// constant evaluates n when every column it reads is fixed by the
// partition values.
func (d *decider) constant(n node) (any, bool) {
	if l, ok := n.(*lit); ok {
		return l.v, true
	}
	var key strings.Builder
	for _, c := range d.refs[n] {
		raw, ok := d.rawPartition(c)
		if !ok {
			return nil, false
		}
		key.WriteString(raw)
		key.WriteByte(0)
	}
	k := constKey{n: n, vals: key.String()}
	if r, ok := d.cache.get(k); ok {
		return r.v, r.ok
	}
	v, err := constValue(d.substitute(n), d.loc)
	d.cache.put(k, constResult{v: v, ok: err == nil})
	return v, err == nil
}

// constCache memoises subtrees evaluated on partition values: the files of
// one partition share them, so pruning costs one evaluation per partition.
type constCache struct {
	mu sync.Mutex
	m  map[constKey]constResult
}

type constKey struct {
	n    node
	vals string // the raw partition values the subtree reads
}

type constResult struct {
	v  any
	ok bool
}

// maxConstCache bounds the memory a long-lived predicate keeps.
const maxConstCache = 1 << 14

func (c *constCache) get(k constKey) (constResult, bool) {
	if c == nil {
		return constResult{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	return r, ok
}

func (c *constCache) put(k constKey, r constResult) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[constKey]constResult{}
	}
	if len(c.m) < maxConstCache {
		c.m[k] = r
	}
}

// substitute replaces fixed columns with their values.
func (d *decider) substitute(n node) node {
	if c, ok := n.(*colRef); ok {
		if v, ok := d.partitionValue(c); ok {
			return &lit{v: v, t: c.Type()}
		}
		return c
	}
	return rebuild(n, d.substitute)
}

func (d *decider) analyze(n node) outcomes {
	if v, ok := d.constant(n); ok {
		return outcomeOf(v)
	}
	switch n := n.(type) {
	case *notN:
		return d.analyze(n.x).not()
	case *logicN:
		op := and3
		if n.op == OpOr {
			op = or3
		}
		return combine(d.analyze(n.l), d.analyze(n.r), op)
	case *isBoolN:
		return d.analyze(n.x).mapEach(func(v any) any { return (v == n.val) != n.not })
	case *isNullN:
		var o outcomes
		if isBool(n.x.Type()) {
			o = d.analyze(n.x)
		} else {
			o = d.nullness(n.x)
		}
		return o.mapEach(func(v any) any { return (v == nil) != n.not })
	case *cmpN:
		return d.compare(n.op, n.l, n.r)
	case *betweenN:
		o := combine(d.compare(Ge, n.x, n.lo), d.compare(Le, n.x, n.hi), and3)
		if n.not {
			o = o.not()
		}
		return o
	case *inN:
		return d.in(n)
	case *likeN:
		return d.like(n)
	case *colRef:
		if isBool(n.Type()) {
			return d.boolColumn(n)
		}
	}
	return oAny
}

// colStats returns the statistics of a data column of the file's relation,
// also through an implicit widening cast; ok is false for anything else.
func (d *decider) colStats(n node) (c stats.Column, float, ok bool) {
	cast, isCast := n.(*castN)
	if isCast {
		if !cast.implicit {
			return c, false, false
		}
		n = cast.x
	}
	col, isCol := n.(*colRef)
	if !isCol || col.rel != d.rel {
		return c, false, false
	}
	if _, fixed := d.partitionValue(col); fixed {
		return c, false, false
	}
	c = d.fs.Column(col.path...) // a nil File knows nothing
	if col.nested() {
		// A null parent struct may not count as a null leaf; assume nulls.
		c.NullCount = -1
	}
	t := col.Type()
	if isCast {
		c.Min = widen(c.Min, t, cast.t, d.loc)
		c.Max = widen(c.Max, t, cast.t, d.loc)
		t = cast.t
	}
	return c, isFloating(t), true
}

// widen converts a statistic along a monotone implicit cast (a DATE to a
// TIMESTAMP at its local midnight in loc); anything else becomes unknown.
func widen(v stats.Value, from, to schema.Type, loc *time.Location) stats.Value {
	if !v.Known() {
		return v
	}
	switch {
	case isIntegral(from) && isIntegral(to), isFloating(from) && isType(to, schema.Double):
		return v
	case isIntegral(from) && isFloating(to):
		return stats.Value{Kind: stats.Float, Float: float64(v.Int)}
	case isIntegral(from) && isDecimal(to):
		s := to.(*schema.Decimal).Scale
		return stats.Value{Kind: stats.Decimal, Decimal: decimal128.FromI64(v.Int).IncreaseScaleBy(int32(s))}
	case isDecimal(from) && isDecimal(to):
		fs, ts := from.(*schema.Decimal).Scale, to.(*schema.Decimal).Scale
		if ts >= fs {
			return stats.Value{Kind: stats.Decimal, Decimal: v.Decimal.IncreaseScaleBy(int32(ts - fs))}
		}
	case isType(from, schema.Date) && isType(to, schema.TimestampNTZ):
		return stats.Value{Kind: stats.Int, Int: v.Int * microsPerDay}
	case isType(from, schema.Date) && isType(to, schema.Timestamp):
		return stats.Value{Kind: stats.Int, Int: zonedMicros(loc, v.Int*microsPerDay)}
	}
	return stats.Value{}
}

func (d *decider) numRecords() int64 {
	if d.fs == nil {
		return -1
	}
	return d.fs.NumRecords
}

// nullness is the outcome set of "x IS NULL" seen as values: oNull when x
// may be null, oTrue when it may be non-null.
func (d *decider) nullness(x node) outcomes {
	c, _, ok := d.colStats(x)
	if !ok {
		return oNull | oTrue
	}
	var o outcomes
	num := d.numRecords()
	if c.NullCount != 0 {
		o |= oNull
	}
	if !(num > 0 && c.NullCount == num) {
		o |= oTrue
	}
	return o
}

func flip(op Op) Op {
	switch op {
	case Lt:
		return Gt
	case Le:
		return Ge
	case Gt:
		return Lt
	case Ge:
		return Le
	}
	return op
}

func (d *decider) compare(op Op, l, r node) outcomes {
	c, float, ok := d.colStats(l)
	v, isConst := d.constant(r)
	if !ok || !isConst {
		c, float, ok = d.colStats(r)
		v, isConst = d.constant(l)
		op = flip(op)
	}
	if !ok || !isConst {
		return oAny
	}
	return d.compareStats(op, c, float, v)
}

// compareStats is the outcome set of "x op v" over a column with
// statistics c. NaN sorts above every number. Spark, and this engine's
// writer, leave a column's upper bound out (or NaN) when it holds a NaN,
// so a known upper bound rules out x > v as Spark's data skipping trusts
// it; but a NaN row makes x < v, x = v false, and some writers' bounds
// ignore NaN, so float bounds never prove those true for every row.
func (d *decider) compareStats(op Op, c stats.Column, float bool, v any) outcomes {
	num := d.numRecords()
	allNull := num > 0 && c.NullCount == num
	nullOut := oNull
	if op == NullSafeEq {
		nullOut = oFalse
	}
	if v == nil {
		if op != NullSafeEq {
			return oNull
		}
		o := d.nullnessOf(c)
		return o.mapEach(func(x any) any { return x == nil })
	}
	if allNull {
		return nullOut
	}
	var o outcomes
	if c.NullCount != 0 {
		o |= nullOut
	}
	sv, err := stats.FromGo(v)
	if err != nil {
		return oAny
	}
	lo, okLo := stats.Compare(sv, c.Min) // v against min
	hi, okHi := stats.Compare(sv, c.Max) // v against max
	canT, canF := true, true
	switch op {
	case Eq, NullSafeEq:
		canT = !(okLo && lo < 0) && !(okHi && hi > 0)
		canF = !(okLo && okHi && lo == 0 && hi == 0)
	case Ne:
		canT = !(okLo && okHi && lo == 0 && hi == 0)
		canF = !(okLo && lo < 0) && !(okHi && hi > 0)
	case Lt:
		canT, canF = !(okLo && lo <= 0), !(okHi && hi > 0)
	case Le:
		canT, canF = !(okLo && lo < 0), !(okHi && hi >= 0)
	case Gt:
		canT, canF = !(okHi && hi >= 0), !(okLo && lo < 0)
	case Ge:
		canT, canF = !(okHi && hi > 0), !(okLo && lo <= 0)
	}
	if float {
		switch op {
		case Lt, Le, Eq, NullSafeEq:
			canF = true
		}
	}
	if canT {
		o |= oTrue
	}
	if canF {
		o |= oFalse
	}
	return o
}

func (d *decider) nullnessOf(c stats.Column) outcomes {
	num := d.numRecords()
	var o outcomes
	if c.NullCount != 0 {
		o |= oNull
	}
	if !(num > 0 && c.NullCount == num) {
		o |= oTrue
	}
	return o
}

func (d *decider) in(n *inN) outcomes {
	c, float, ok := d.colStats(n.x)
	if !ok {
		return oAny
	}
	var o outcomes
	if c.NullCount != 0 {
		o |= oNull
	}
	hasNull := false
	for _, e := range n.list {
		v, isConst := d.constant(e)
		if !isConst {
			return oAny
		}
		if v == nil {
			hasNull = true
			continue
		}
		o |= d.compareStats(Eq, c, float, v) & (oTrue | oNull)
	}
	num := d.numRecords()
	if !(num > 0 && c.NullCount == num) {
		// A non-null value that matches no element: false, or null when
		// the list holds a null. Only min = max = an element rules it out.
		unmatched := true
		if !float && len(n.list) > 0 {
			if r, ok := stats.Compare(c.Min, c.Max); ok && r == 0 {
				for _, e := range n.list {
					v, _ := d.constant(e)
					if v == nil {
						continue
					}
					if sv, err := stats.FromGo(v); err == nil {
						if r, ok := stats.Compare(sv, c.Min); ok && r == 0 {
							unmatched = false
						}
					}
				}
			}
		}
		if unmatched {
			if hasNull {
				o |= oNull
			} else {
				o |= oFalse
			}
		}
	}
	if n.not {
		o = o.not()
	}
	return o
}

func (d *decider) like(n *likeN) outcomes {
	c, _, ok := d.colStats(n.x)
	if !ok || n.m == nil {
		return oAny
	}
	if _, isCol := n.x.(*colRef); !isCol {
		return oAny // a cast to string does not keep the order of values
	}
	if s, ok := n.m.exact(); ok { // no wildcard: an equality
		o := d.compareStats(Eq, c, false, s)
		if n.not {
			o = o.not()
		}
		return o
	}
	num := d.numRecords()
	if num > 0 && c.NullCount == num {
		return oNull
	}
	o := oFalse
	if c.NullCount != 0 {
		o |= oNull
	}
	canT := true
	if p := n.m.prefix(); p != "" {
		if c.Max.Kind == stats.Bytes && c.Max.Bytes < p {
			canT = false
		}
		if c.Min.Kind == stats.Bytes && c.Min.Bytes > p && !strings.HasPrefix(c.Min.Bytes, p) {
			canT = false
		}
	}
	if canT {
		o |= oTrue
	}
	if n.not {
		o = o.not()
	}
	return o
}

func (d *decider) boolColumn(n *colRef) outcomes {
	c, _, ok := d.colStats(n)
	if !ok {
		return oAny
	}
	num := d.numRecords()
	if num > 0 && c.NullCount == num {
		return oNull
	}
	var o outcomes
	if c.NullCount != 0 {
		o |= oNull
	}
	if c.Max.Kind != stats.Bool || c.Max.Int == 1 {
		o |= oTrue
	}
	if c.Min.Kind != stats.Bool || c.Min.Int == 0 {
		o |= oFalse
	}
	return o
}

// rebuild copies n with its children replaced by f(child).
func rebuild(n node, f func(node) node) node {
	switch n := n.(type) {
	case *castN:
		c := *n
		c.x = f(n.x)
		return &c
	case *notN:
		return &notN{x: f(n.x)}
	case *logicN:
		return &logicN{op: n.op, l: f(n.l), r: f(n.r)}
	case *cmpN:
		return &cmpN{op: n.op, l: f(n.l), r: f(n.r)}
	case *arithN:
		return &arithN{op: n.op, l: f(n.l), r: f(n.r), t: n.t}
	case *dateArithN:
		return &dateArithN{sub: n.sub, d: f(n.d), n: f(n.n)}
	case *negN:
		return &negN{x: f(n.x)}
	case *inN:
		c := &inN{x: f(n.x), not: n.not}
		for _, e := range n.list {
			c.list = append(c.list, f(e))
		}
		return c
	case *betweenN:
		return &betweenN{x: f(n.x), lo: f(n.lo), hi: f(n.hi), not: n.not}
	case *isNullN:
		return &isNullN{x: f(n.x), not: n.not}
	case *isBoolN:
		return &isBoolN{x: f(n.x), val: n.val, not: n.not}
	case *likeN:
		c := *n
		c.x, c.pat = f(n.x), f(n.pat)
		return &c
	case *caseN:
		return n.rebuilt(f)
	case *assignN:
		c := *n
		c.x = f(n.x)
		return &c
	case *callN:
		c := &callN{fn: n.fn, t: n.t, scale: n.scale, rx: n.rx}
		for _, a := range n.args {
			c.args = append(c.args, f(a))
		}
		return c
	}
	return n
}
