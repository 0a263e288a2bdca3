package mergetest

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/merge"
)

// kind is a column's type in the generated tables.
type kind int

const (
	kInt64 kind = iota
	kInt32
	kString
	kFloat64
	kDecimal // decimal(10,2), values as unscaled int64
	kDate    // days since the epoch, as int64
	kTS      // microseconds since the epoch, UTC
	kBool
	// Source-only kinds the engines widen to the table's: int32 to bigint,
	// decimal(8,2) to decimal(10,2), float to double.
	kDecimal8
	kFloat32
)

type column struct {
	name string
	kind kind
}

// tableCols are the columns of every generated table; grp is the partition
// column of the partitioned scenarios. noteCol is the column schema
// evolution adds.
var (
	tableCols = []column{
		{"id", kInt64}, {"grp", kString}, {"s", kString}, {"n", kInt64}, {"x", kFloat64},
		{"amt", kDecimal}, {"d", kDate}, {"ts", kTS}, {"ok", kBool},
	}
	noteCol = column{"note", kString}
)

var (
	groups = []string{"a", "b", "c", "d e"}
	words  = []string{"apple", "Banana", " cherry ", "date", "", "élan", "bölük", "fig tree"}
)

// Operations of a step.
const (
	opMerge  = "merge"
	opDelete = "delete"
	opUpdate = "update"
)

// step is one operation applied to both copies of the table.
type step struct {
	op    string
	label string
	// MERGE: the ON predicate, the clauses in order, schema evolution, and
	// the source (columns and rows, values as gen.value makes them).
	predicate  string
	clauses    []merge.Clause
	schemaMode string
	srcCols    []column
	srcRows    [][]any
	// multiMatch marks a MERGE whose source holds every key twice, with
	// what the engine must do: bothRefuse, sparkRefuses or allowed.
	multiMatch string
	// UPDATE: column → expression. DELETE and UPDATE use predicate as WHERE.
	updates map[string]string
}

// scenario is a base table and the steps applied to it.
type scenario struct {
	seed        uint64
	partitioned bool
	// casts are the source kinds of columns sources carry narrower than
	// the table.
	casts    map[string]kind
	cols     []column
	initRows [][]any
	appends  int
	steps    []step
}

// gen draws a scenario from a seed.
type gen struct {
	r       *rand.Rand
	sc      *scenario
	cols    []column // the table's columns now (note joins on evolution)
	keySpan int
	nextKey int64
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

// value draws a value of kind k for column name; nil is NULL.
func (g *gen) value(c column) any {
	if c.name == "grp" {
		if g.chance(0.1) {
			return nil // a NULL partition value where grp partitions the table
		}
		return pick(g, groups)
	}
	if g.chance(0.12) {
		return nil
	}
	switch c.kind {
	case kInt64, kInt32:
		return int64(g.r.IntN(151) - 50)
	case kFloat32:
		return float64(g.r.IntN(201)-40) / 4
	case kDecimal8:
		return int64(g.r.IntN(200001) - 100000)
	case kString:
		if c.name == "note" {
			return fmt.Sprintf("note-%d", g.r.IntN(100))
		}
		return pick(g, words)
	case kFloat64:
		return float64(g.r.IntN(201)-40) / 4 // exact in binary: no formatting doubt
	case kDecimal:
		return int64(g.r.IntN(200001) - 100000)
	case kDate:
		return int64(18993 + g.r.IntN(120)) // 2022-01-01 and after
	case kTS:
		return int64(1_640_995_200_000_000) + int64(g.r.IntN(1_000_000))*1_000_003
	case kBool:
		return g.chance(0.5)
	}
	panic("unknown kind")
}

// row draws a row of cols with key id (nil: NULL key).
func (g *gen) row(cols []column, id any) []any {
	out := make([]any, len(cols))
	for i, c := range cols {
		if c.name == "id" {
			out[i] = id
			continue
		}
		out[i] = g.value(c)
	}
	return out
}

// key draws a source key: mostly one the table may hold, sometimes a new
// one, sometimes NULL.
func (g *gen) key() any {
	switch {
	case g.chance(0.08):
		return nil
	case g.chance(0.3):
		g.nextKey++
		return g.nextKey
	}
	return int64(g.r.IntN(g.keySpan))
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// newScenario draws the scenario of seed: the table, then steps of MERGE,
// DELETE and UPDATE (only the operations in ops).
func newScenario(seed uint64, ops []string, nSteps int) *scenario {
	sc := &scenario{seed: seed}
	g := &gen{r: newRand(seed), sc: sc}
	sc.partitioned = g.chance(0.5)
	sc.casts = map[string]kind{}
	for _, c := range []column{{"n", kInt32}, {"amt", kDecimal8}, {"x", kFloat32}} {
		if g.chance(0.3) {
			sc.casts[c.name] = c.kind
		}
	}
	sc.cols = slices.Clone(tableCols)
	g.cols = slices.Clone(tableCols)
	n := 30 + g.r.IntN(40)
	g.keySpan = n + n/2
	g.nextKey = int64(g.keySpan)
	for range n {
		// A few keys twice and a few NULL: the target need not be keyed.
		var id any = int64(g.r.IntN(g.keySpan))
		if g.chance(0.06) {
			id = nil
		}
		sc.initRows = append(sc.initRows, g.row(sc.cols, id))
	}
	sc.appends = 1 + g.r.IntN(3)
	evolveAt := -1
	if slices.Contains(ops, opMerge) && g.chance(0.4) {
		evolveAt = g.r.IntN(nSteps)
	}
	if slices.Contains(ops, opMerge) {
		defer func() { sc.steps = append(sc.steps, g.multiMatchStep()) }()
	}
	for i := range nSteps {
		op := pick(g, ops)
		if i == evolveAt {
			op = opMerge
		}
		var st step
		switch op {
		case opMerge:
			st = g.mergeStep(i == evolveAt)
		case opDelete:
			st = step{op: opDelete, predicate: g.wherePredicate()}
		case opUpdate:
			st = g.updateStep()
		}
		st.label = fmt.Sprintf("step %d (%s)", i, st.describe())
		sc.steps = append(sc.steps, st)
	}
	return sc
}

// Expressions both engines evaluate alike: over the source (s.) and the
// target (t.) of a merge. A template is usable where the clause sees every
// relation it names: MATCHED clauses see both, NOT MATCHED only s, NOT
// MATCHED BY SOURCE only t. DELETE and UPDATE use them unqualified.
var (
	setTemplates = map[string][]string{
		"s": {"upper(s.s)", "lower(t.s)", "trim(s.s)", "s.s || '-' || t.s", "substring(s.s, 1, 3)",
			"CAST(s.n AS STRING)", "coalesce(s.s, t.s, 'none')", "'lit'",
			"CASE WHEN s.ok THEN 'yes' WHEN NOT s.ok THEN 'no' ELSE 'unknown' END"},
		"n": {"s.n", "t.n + s.n", "coalesce(s.n, t.n, 0)", "CASE WHEN s.n > t.n THEN s.n ELSE t.n END",
			"s.n * 2 - 1", "abs(s.n)", "CAST(s.x AS BIGINT)", "length(s.s)", "t.n - 1", "NULL"},
		"x":    {"s.x", "s.x * 2.0 + 1.0", "CAST(s.n AS DOUBLE)", "coalesce(s.x, t.x)", "t.x - 0.5"},
		"amt":  {"s.amt", "coalesce(s.amt, t.amt)", "s.amt + t.amt", "CAST(s.n AS DECIMAL(10,2))", "t.amt"},
		"d":    {"s.d", "coalesce(s.d, t.d)", "CASE WHEN s.d > t.d THEN s.d ELSE t.d END", "DATE '2024-02-29'"},
		"ts":   {"s.ts", "coalesce(t.ts, s.ts)"},
		"ok":   {"s.ok", "NOT t.ok", "s.n > 10", "t.x IS NULL"},
		"note": {"s.note", "upper(s.note)", "t.note"},
	}
	condTemplates = []string{
		"s.n > t.n", "t.ok", "s.s IS NULL", "t.amt > s.amt", "s.x < 10.0", "t.id % 3 = 0",
		"s.n BETWEEN 0 AND 50", "s.s LIKE 'b%'", "s.s IN ('apple', 'date')", "t.d < s.d", "s.ts >= t.ts",
		"NOT s.ok", "t.grp = 'a'", "s.n > 10", "s.ok", "s.x < 10.0", "s.id % 3 = 0", "s.amt > 0",
		"t.n > 10", "t.s IS NULL", "t.d < DATE '2022-03-01'", "NOT t.ok", "t.x >= 5.0 OR t.s LIKE '%a%'",
	}
	// onPredicates are the ON predicates: equi (one and two columns), with
	// a residual, with target-only and source-only conjuncts, and without
	// an equi conjunct at all (a nested loop). partitioned marks the ones
	// that name the partition column on both sides.
	onPredicates = []string{
		"t.id = s.id",
		"t.id = s.id AND t.grp = s.grp",
		"t.id = s.id AND s.n >= t.n",
		"t.id >= s.id AND t.id <= s.id",
		"t.id = s.id AND t.grp = 'a'",
		"t.id = s.id AND s.ok",
	}
	wherePredicates = []string{
		"n > 10", "grp = 'a'", "s IS NULL", "id % 4 = 1", "amt < 0", "d >= DATE '2022-02-01'", "ok",
		"x BETWEEN 1 AND 5 OR s LIKE '%a%'", "NOT (n < 0)", "grp IN ('b', 'c') AND n < 20", "id IS NULL",
		"coalesce(n, 0) = 0", "upper(s) = 'DATE'", "substring(s, 1, 2) = 'da'", "trim(s) = 'cherry'",
		"CASE WHEN n > 5 THEN x > 0 ELSE ok END", "abs(n) > 30", "grp = 'd e' OR amt > 500.00",
	}
	qualifier = regexp.MustCompile(`\b([st])\.`)
)

// sees reports whether an expression names only relations in rels ("s",
// "t").
func sees(expr, rels string) bool {
	for _, m := range qualifier.FindAllStringSubmatch(expr, -1) {
		if !strings.Contains(rels, m[1]) {
			return false
		}
	}
	return true
}

// relsOf are the relations a clause of kind w sees.
func relsOf(w merge.When) string {
	switch w {
	case merge.NotMatched:
		return "s"
	case merge.NotMatchedBySource:
		return "t"
	}
	return "st"
}

// pickExpr draws a template for column col that sees only rels, or "".
func (g *gen) pickExpr(col, rels string) string {
	var ok []string
	for _, e := range setTemplates[col] {
		if sees(e, rels) {
			ok = append(ok, e)
		}
	}
	if len(ok) == 0 {
		return ""
	}
	return pick(g, ok)
}

func (g *gen) pickCond(rels string) string {
	var ok []string
	for _, e := range condTemplates {
		if sees(e, rels) {
			ok = append(ok, e)
		}
	}
	return pick(g, ok)
}

// clauseKinds are the seven clause kinds, in the spec's order.
var clauseKinds = []struct {
	when   merge.When
	action merge.Action
}{
	{merge.Matched, merge.Update}, {merge.Matched, merge.UpdateAll}, {merge.Matched, merge.Delete},
	{merge.NotMatched, merge.Insert}, {merge.NotMatched, merge.InsertAll},
	{merge.NotMatchedBySource, merge.Update}, {merge.NotMatchedBySource, merge.Delete},
}

// clause draws a clause of kind w, action a.
func (g *gen) clause(w merge.When, a merge.Action) merge.Clause {
	c := merge.Clause{When: w, Action: a}
	rels := relsOf(w)
	if g.chance(0.5) {
		c.Predicate = g.pickCond(rels)
	}
	switch a {
	case merge.Update, merge.Insert:
		c.Set = map[string]string{}
		if a == merge.Insert {
			c.Set["id"] = "s.id"
			c.Set["grp"] = "s.grp"
		}
		for _, col := range g.cols {
			if col.name == "id" || col.name == "grp" {
				continue
			}
			if g.chance(0.4) {
				if e := g.pickExpr(col.name, rels); e != "" {
					c.Set[col.name] = e
				}
			}
		}
		if len(c.Set) == 0 {
			c.Set["n"] = g.pickExpr("n", rels)
		}
	case merge.UpdateAll, merge.InsertAll:
		if g.chance(0.25) {
			c.Except = []string{pick(g, []string{"s", "x", "ok"})}
		}
	}
	return c
}

// mergeStep draws a MERGE: predicate, clauses (every kind with some
// chance, sometimes two of a kind so order matters), and a source whose
// keys repeat only where Spark allows it.
func (g *gen) mergeStep(evolve bool) step {
	st := step{op: opMerge}
	preds := onPredicates
	st.predicate = pick(g, preds)
	for _, k := range clauseKinds {
		if g.chance(0.35) {
			st.clauses = append(st.clauses, g.clause(k.when, k.action))
		}
	}
	if evolve {
		// delta-rs fills the new column from the source in explicit
		// INSERTs, and in matched rows no clause acts on, where Spark
		// leaves it NULL (TestEvolvedColumnStaysNull): an evolving step
		// only deletes matched rows or updates them with SET *, and
		// inserts with INSERT *.
		st.schemaMode = merge.SchemaModeMerge
		st.clauses = slices.DeleteFunc(st.clauses, func(c merge.Clause) bool {
			return c.When == merge.Matched && c.Action != merge.Delete || c.When == merge.NotMatched && c.Action == merge.Insert
		})
		st.clauses = append(st.clauses, merge.Clause{When: merge.Matched, Action: merge.UpdateAll},
			merge.Clause{When: merge.NotMatched, Action: merge.InsertAll})
		g.cols = append(g.cols, noteCol)
	}
	if len(st.clauses) == 0 {
		st.clauses = append(st.clauses, g.clause(merge.NotMatched, merge.InsertAll))
	}
	// Clauses of a kind are tried in order; shuffling them (but not the
	// last two clauses of an evolving step) keeps that order random.
	if n := len(st.clauses); !evolve {
		g.r.Shuffle(n, func(i, j int) { st.clauses[i], st.clauses[j] = st.clauses[j], st.clauses[i] })
	} else if n > 2 {
		g.r.Shuffle(n-2, func(i, j int) { st.clauses[i], st.clauses[j] = st.clauses[j], st.clauses[i] })
	}
	slices.SortStableFunc(st.clauses, func(a, b merge.Clause) int { return int(a.When) - int(b.When) })

	st.srcCols = g.sourceCols()
	// Duplicate source keys are legal only in a merge that just inserts:
	// Spark refuses a target row matched twice whatever the clauses'
	// conditions say (the final step of a scenario tests that).
	dups := !evolve && !slices.ContainsFunc(st.clauses, func(c merge.Clause) bool { return c.When != merge.NotMatched }) && g.chance(0.5)
	seen := map[int64]bool{}
	for range 4 + g.r.IntN(16) {
		id := g.key()
		if k, ok := id.(int64); ok {
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		st.srcRows = append(st.srcRows, g.row(st.srcCols, id))
		if dups && id != nil && g.chance(0.3) {
			st.srcRows = append(st.srcRows, g.row(st.srcCols, id))
		}
	}
	g.r.Shuffle(len(st.srcRows), func(i, j int) { st.srcRows[i], st.srcRows[j] = st.srcRows[j], st.srcRows[i] })
	return st
}

// What the final step of a scenario, whose source holds every key twice,
// must do (step.multiMatch).
const (
	// bothRefuse: Spark and delta-rs refuse it; so must the engine.
	bothRefuse = "refuse"
	// sparkRefuses: Spark refuses it but delta-rs takes it, so delta-rs does
	// not run the step and the engine must refuse it as Spark does.
	sparkRefuses = "spark refuses"
	// allowed: every engine takes it.
	allowed = "allow"
)

// multiMatchStep is a MERGE whose source has two rows for every key the
// table may hold, with one of the clause sets below.
func (g *gen) multiMatchStep() step {
	st := step{op: opMerge, predicate: "t.id = s.id", multiMatch: bothRefuse}
	st.srcCols = g.sourceCols()
	nIdx := slices.IndexFunc(st.srcCols, func(c column) bool { return c.name == "n" })
	variant := g.r.IntN(7)
	for id := range g.nextKey + 1 {
		a, b := g.row(st.srcCols, id), g.row(st.srcCols, id)
		if variant == 4 { // the MATCHED condition holds for one copy only
			a[nIdx], b[nIdx] = int64(1), nil
		}
		st.srcRows = append(st.srcRows, a, b)
	}
	switch variant {
	case 0:
		st.clauses = []merge.Clause{{When: merge.Matched, Action: merge.UpdateAll}}
	case 1:
		st.clauses = []merge.Clause{{When: merge.Matched, Action: merge.Update, Set: map[string]string{"n": "s.n"}},
			{When: merge.NotMatched, Action: merge.InsertAll}}
	case 2:
		st.clauses = []merge.Clause{{When: merge.Matched, Action: merge.Delete, Predicate: "s.id >= 0"}}
	case 3:
		st.clauses = []merge.Clause{{When: merge.Matched, Action: merge.Delete}}
		st.multiMatch = allowed
	case 4:
		st.clauses = []merge.Clause{{When: merge.Matched, Action: merge.Update, Predicate: "s.n IS NOT NULL",
			Set: map[string]string{"n": "s.n + 100"}}}
		st.multiMatch = sparkRefuses
	case 5:
		st.clauses = []merge.Clause{{When: merge.NotMatchedBySource, Action: merge.Update, Set: map[string]string{"n": "t.n + 1"}}}
		st.multiMatch = sparkRefuses
	default:
		st.clauses = []merge.Clause{{When: merge.NotMatched, Action: merge.InsertAll}}
		st.multiMatch = allowed
	}
	st.label = fmt.Sprintf("final step (every key twice: %s)", st.describe())
	return st
}

// sourceCols are the columns of a MERGE source: the table's, some
// narrower as the scenario's casts say.
func (g *gen) sourceCols() []column {
	cols := slices.Clone(g.cols)
	for i, c := range cols {
		if k, ok := g.sc.casts[c.name]; ok {
			cols[i].kind = k
		}
	}
	return cols
}

// unqualified turns a merge template into a single-table expression: both
// s. and t. name the table's own columns.
func unqualified(e string) string { return qualifier.ReplaceAllString(e, "") }

func (g *gen) wherePredicate() string {
	if g.chance(0.06) {
		return "" // every row
	}
	p := pick(g, wherePredicates)
	if g.chance(0.2) {
		p = "(" + p + ") AND (" + pick(g, wherePredicates) + ")"
	}
	return p
}

func (g *gen) updateStep() step {
	st := step{op: opUpdate, predicate: g.wherePredicate(), updates: map[string]string{}}
	for _, col := range g.cols {
		if col.name == "id" || !g.chance(0.4) {
			continue
		}
		if col.name == "grp" {
			// Moves rows to another partition of a partitioned table.
			st.updates["grp"] = pick(g, grpSets)
			continue
		}
		st.updates[col.name] = unqualified(pick(g, setTemplates[col.name]))
	}
	if len(st.updates) == 0 {
		st.updates["n"] = unqualified(pick(g, setTemplates["n"]))
	}
	return st
}

// grpSets are UPDATE values of the partition column.
var grpSets = []string{"'b'", "upper(grp)", "CASE WHEN n > 0 THEN 'c' ELSE grp END", "coalesce(grp, 'a')"}

// describe renders a step for test logs, in SQL.
func (st step) describe() string {
	where := ""
	if st.predicate != "" {
		where = " WHERE " + st.predicate
	}
	switch st.op {
	case opDelete:
		return "DELETE FROM t" + where
	case opUpdate:
		var sets []string
		for _, k := range sortedKeys(st.updates) {
			sets = append(sets, k+" = "+st.updates[k])
		}
		return "UPDATE t SET " + strings.Join(sets, ", ") + where
	}
	var b strings.Builder
	b.WriteString("MERGE ")
	if st.schemaMode != "" {
		b.WriteString("WITH SCHEMA EVOLUTION ")
	}
	fmt.Fprintf(&b, "INTO t USING s (%d rows) ON %s", len(st.srcRows), st.predicate)
	for _, c := range st.clauses {
		b.WriteString(" " + c.String())
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
