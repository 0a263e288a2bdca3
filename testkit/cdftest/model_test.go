package cdftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/merge"
)

// row is a row of the generated tables: id bigint (never NULL, unique in
// the table), grp string (never NULL; the partition column of the
// partitioned tables), n bigint and w string (NULL as nil).
type row struct {
	id  int64
	grp string
	n   any // nil or int64
	w   any // nil or string
}

// The kinds of change rows, as table_changes spells them.
const (
	chInsert = "insert"
	chDelete = "delete"
	chPre    = "update_preimage"
	chPost   = "update_postimage"
)

// change is one change row the model expects from an operation.
type change struct {
	r    row
	kind string
}

// rexpr is a value over one row: its SQL with p as the row's qualifier
// ("", "t." or "s.") and its value, NULL propagating as in SQL.
type rexpr struct {
	sql  func(p string) string
	eval func(r row) any
}

// rcond is a condition over one row; eval is true only where SQL says TRUE
// (NULL counts as not satisfied, as in WHERE and WHEN ... AND).
type rcond struct {
	sql  func(p string) string
	eval func(r row) bool
}

// expr and cond see a MERGE's target row t and source row s.
type expr struct {
	sql  string
	eval func(t, s row) any
}

type cond struct {
	sql  string
	eval func(t, s row) bool
}

func onTarget(c rcond) cond {
	return cond{sql: c.sql("t."), eval: func(t, _ row) bool { return c.eval(t) }}
}

func onSource(c rcond) cond {
	return cond{sql: c.sql("s."), eval: func(_, s row) bool { return c.eval(s) }}
}

func exprOnTarget(e rexpr) expr {
	return expr{sql: e.sql("t."), eval: func(t, _ row) any { return e.eval(t) }}
}

// assign sets column col to e.
type assign struct {
	col string
	e   expr
}

// set applies assignments evaluated on the old row (and source row).
func set(t, s row, as []assign) row {
	out := t
	for _, a := range as {
		v := a.e.eval(t, s)
		switch a.col {
		case "grp":
			out.grp = v.(string)
		case "n":
			out.n = v
		case "w":
			out.w = v
		case "id":
			out.id = v.(int64)
		}
	}
	return out
}

// Operations of a sequence.
const (
	opCreate       = "create" // the table's first rows
	opAppend       = "append"
	opOverwrite    = "overwrite"
	opReplaceWhere = "replace-where"
	opUpsert       = "upsert"
	opMerge        = "merge"
	opDelete       = "delete"
	opUpdate       = "update"
	opOptimize     = "optimize"
)

var opKinds = []string{opAppend, opOverwrite, opReplaceWhere, opUpsert, opMerge, opMerge, opDelete, opUpdate, opOptimize}

// mclause is one WHEN clause of a MERGE; set is empty for UPDATE SET * and
// INSERT *.
type mclause struct {
	when   merge.When
	action merge.Action
	cond   *cond
	set    []assign
}

// op is one operation of a sequence.
type op struct {
	kind string
	// rows: the rows written (create, append, overwrite, replace-where) or
	// the source (upsert, merge).
	rows []row
	// where: the predicate of replace-where, delete and update (nil: none).
	where *rcond
	// sets: update's assignments (over the row, as t).
	sets    []assign
	clauses []mclause
}

// sequence is a table layout and the operations run on it.
type sequence struct {
	seed        uint64
	partitioned bool
	ops         []op
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0xc2b2ae3d27d4eb4f)) }

type gen struct {
	r      *rand.Rand
	nextID int64
	live   []row // the model's table, to draw keys that exist
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

var (
	groups = []string{"a", "b", "c"}
	words  = []string{"apple", "kiwi", "plum", ""}
)

func (g *gen) n() any {
	if g.chance(0.15) {
		return nil
	}
	return int64(g.r.IntN(51) - 10)
}

func (g *gen) w() any {
	if g.chance(0.15) {
		return nil
	}
	return pick(g, words)
}

// fresh draws a row with a key the table never held.
func (g *gen) fresh() row {
	g.nextID++
	return row{id: g.nextID, grp: pick(g, groups), n: g.n(), w: g.w()}
}

func (g *gen) freshRows(lo, hi int) []row {
	out := make([]row, lo+g.r.IntN(hi-lo+1))
	for i := range out {
		out[i] = g.fresh()
	}
	return out
}

// existing draws up to k distinct rows of the table.
func (g *gen) existing(k int) []row {
	idx := g.r.Perm(len(g.live))
	var out []row
	for _, i := range idx[:min(k, len(idx))] {
		out = append(out, g.live[i])
	}
	return out
}

func gt(v any, k int64) bool { n, ok := v.(int64); return ok && n > k }
func lt(v any, k int64) bool { n, ok := v.(int64); return ok && n < k }

func add(a, b any) any {
	x, ok1 := a.(int64)
	y, ok2 := b.(int64)
	if !ok1 || !ok2 {
		return nil
	}
	return x + y
}

func coalesce(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// rowCond draws a condition over one row.
func (g *gen) rowCond() rcond {
	k := int64(g.r.IntN(31) - 5)
	grp := pick(g, groups)
	word := pick(g, words[:3])
	m := int64(g.r.IntN(3))
	switch g.r.IntN(8) {
	case 0:
		return rcond{func(p string) string { return fmt.Sprintf("%sn > %d", p, k) }, func(r row) bool { return gt(r.n, k) }}
	case 1:
		return rcond{func(p string) string { return fmt.Sprintf("%sgrp = '%s'", p, grp) }, func(r row) bool { return r.grp == grp }}
	case 2:
		return rcond{func(p string) string { return fmt.Sprintf("%sid %% 3 = %d", p, m) }, func(r row) bool { return r.id%3 == m }}
	case 3:
		return rcond{func(p string) string { return p + "w IS NULL" }, func(r row) bool { return r.w == nil }}
	case 4:
		return rcond{func(p string) string { return fmt.Sprintf("%sw = '%s'", p, word) }, func(r row) bool { return r.w == word }}
	case 5:
		return rcond{func(p string) string { return fmt.Sprintf("(%sn IS NULL OR %sn < %d)", p, p, k) },
			func(r row) bool { return r.n == nil || lt(r.n, k) }}
	case 6:
		return rcond{func(p string) string { return fmt.Sprintf("%sgrp IN ('a', 'b') AND %sn > %d", p, p, k) },
			func(r row) bool { return r.grp != "c" && gt(r.n, k) }}
	default:
		// NOT of NULL is NULL: rows with a NULL n are not selected.
		return rcond{func(p string) string { return fmt.Sprintf("NOT (%sn > %d)", p, k) },
			func(r row) bool { return r.n != nil && !gt(r.n, k) }}
	}
}

// rowExpr draws a new value for col from the row itself.
func (g *gen) rowExpr(col string) rexpr {
	k := int64(g.r.IntN(21) - 10)
	switch col {
	case "grp":
		grp := pick(g, groups)
		return rexpr{func(string) string { return "'" + grp + "'" }, func(row) any { return grp }}
	case "n":
		switch g.r.IntN(4) {
		case 0:
			return rexpr{func(p string) string { return fmt.Sprintf("%sn + %d", p, k) }, func(r row) any { return add(r.n, k) }}
		case 1:
			return rexpr{func(string) string { return "NULL" }, func(row) any { return nil }}
		case 2:
			return rexpr{func(p string) string { return fmt.Sprintf("coalesce(%sn, 0) + 1", p) },
				func(r row) any { return add(coalesce(r.n, int64(0)), int64(1)) }}
		default:
			return rexpr{func(string) string { return fmt.Sprint(k) }, func(row) any { return k }}
		}
	default:
		switch g.r.IntN(3) {
		case 0:
			word := pick(g, words)
			return rexpr{func(string) string { return "'" + word + "'" }, func(row) any { return word }}
		case 1:
			return rexpr{func(p string) string { return "upper(" + p + "w)" }, func(r row) any {
				if r.w == nil {
					return nil
				}
				return strings.ToUpper(r.w.(string))
			}}
		default:
			return rexpr{func(string) string { return "NULL" }, func(row) any { return nil }}
		}
	}
}

// matchedExpr draws a new value for col of a matched row, from the
// target, the source, or both.
func (g *gen) matchedExpr(col string) expr {
	switch {
	case g.chance(0.4):
		return exprOnTarget(g.rowExpr(col))
	case col == "grp":
		return expr{"s.grp", func(_, s row) any { return s.grp }}
	case col == "n" && g.chance(0.5):
		return expr{"t.n + s.n", func(t, s row) any { return add(t.n, s.n) }}
	case col == "n":
		return expr{"s.n", func(_, s row) any { return s.n }}
	case g.chance(0.5):
		return expr{"coalesce(s.w, t.w)", func(t, s row) any { return coalesce(s.w, t.w) }}
	}
	return expr{"s.w", func(_, s row) any { return s.w }}
}

// assigns draws one or two assignments of distinct columns.
func (g *gen) assigns(draw func(col string) expr) []assign {
	cols := []string{"n", "w", "grp"}
	g.r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	var out []assign
	for _, c := range cols[:1+g.r.IntN(2)] {
		out = append(out, assign{c, draw(c)})
	}
	slices.SortFunc(out, func(a, b assign) int { return strings.Compare(a.col, b.col) })
	return out
}

// newSequence draws the sequence of seed: the first rows, then nOps
// operations, the model's table kept along to draw keys that exist.
func newSequence(seed uint64, nOps int) *sequence {
	g := &gen{r: newRand(seed)}
	sq := &sequence{seed: seed, partitioned: g.chance(0.5)}
	first := op{kind: opCreate, rows: g.freshRows(6, 20)}
	sq.ops = append(sq.ops, first)
	g.live, _ = apply(nil, first)
	for range nOps {
		o := g.op(pick(g, opKinds))
		sq.ops = append(sq.ops, o)
		g.live, _ = apply(g.live, o)
	}
	return sq
}

func (g *gen) op(kind string) op {
	o := op{kind: kind}
	switch kind {
	case opAppend:
		o.rows = g.freshRows(1, 5)
	case opOverwrite:
		o.rows = g.freshRows(2, 12)
	case opReplaceWhere:
		// The new rows must satisfy the predicate (both engines check).
		grp, k := pick(g, groups), int64(g.r.IntN(21))
		o.rows = g.freshRows(1, 5)
		switch g.r.IntN(3) {
		case 0:
			o.where = &rcond{func(p string) string { return fmt.Sprintf("%sgrp = '%s'", p, grp) }, func(r row) bool { return r.grp == grp }}
			for i := range o.rows {
				o.rows[i].grp = grp
			}
		case 1:
			o.where = &rcond{func(p string) string { return fmt.Sprintf("%sn > %d", p, k) }, func(r row) bool { return gt(r.n, k) }}
			for i := range o.rows {
				o.rows[i].n = k + 1 + int64(g.r.IntN(20))
			}
		default:
			o.where = &rcond{func(p string) string { return fmt.Sprintf("%sgrp = '%s' AND %sn > %d", p, grp, p, k) },
				func(r row) bool { return r.grp == grp && gt(r.n, k) }}
			for i := range o.rows {
				o.rows[i].grp, o.rows[i].n = grp, k+1+int64(g.r.IntN(20))
			}
		}
	case opUpsert:
		// Existing keys keep their partition: an upsert's identity is the
		// key within the partition.
		for _, r := range g.existing(g.r.IntN(5)) {
			o.rows = append(o.rows, row{id: r.id, grp: r.grp, n: g.n(), w: g.w()})
		}
		o.rows = append(o.rows, g.freshRows(0, 3)...)
		if len(o.rows) == 0 {
			o.rows = g.freshRows(1, 1)
		}
		g.r.Shuffle(len(o.rows), func(i, j int) { o.rows[i], o.rows[j] = o.rows[j], o.rows[i] })
	case opMerge:
		for _, r := range g.existing(1 + g.r.IntN(5)) {
			grp := r.grp
			if g.chance(0.3) {
				grp = pick(g, groups)
			}
			o.rows = append(o.rows, row{id: r.id, grp: grp, n: g.n(), w: g.w()})
		}
		o.rows = append(o.rows, g.freshRows(0, 4)...)
		if len(o.rows) == 0 {
			o.rows = g.freshRows(1, 1)
		}
		g.r.Shuffle(len(o.rows), func(i, j int) { o.rows[i], o.rows[j] = o.rows[j], o.rows[i] })
		o.clauses = g.clauses()
	case opDelete:
		if !g.chance(0.1) {
			c := g.rowCond()
			o.where = &c
		}
	case opUpdate:
		if !g.chance(0.1) {
			c := g.rowCond()
			o.where = &c
		}
		o.sets = g.assigns(func(col string) expr { return exprOnTarget(g.rowExpr(col)) })
	}
	return o
}

// clauses draws a MERGE's clause set: each kind with some chance, at most
// two of a kind; within a kind every clause but the last has a condition,
// as Spark requires.
func (g *gen) clauses() []mclause {
	var out []mclause
	for _, when := range []merge.When{merge.Matched, merge.NotMatched, merge.NotMatchedBySource} {
		if !g.chance(0.5) {
			continue
		}
		n := 1
		if g.chance(0.3) {
			n = 2
		}
		for i := range n {
			c := g.clause(when)
			if i < n-1 && c.cond == nil {
				c.cond = g.clauseCond(when)
			}
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = append(out, g.clause(pick(g, []merge.When{merge.Matched, merge.NotMatched, merge.NotMatchedBySource})))
	}
	return out
}

func (g *gen) clauseCond(when merge.When) *cond {
	var c cond
	switch when {
	case merge.Matched:
		if g.chance(0.3) {
			c = cond{"s.n > t.n", func(t, s row) bool { return s.n != nil && t.n != nil && s.n.(int64) > t.n.(int64) }}
		} else if g.chance(0.5) {
			c = onTarget(g.rowCond())
		} else {
			c = onSource(g.rowCond())
		}
	case merge.NotMatched:
		c = onSource(g.rowCond())
	default:
		c = onTarget(g.rowCond())
	}
	return &c
}

func (g *gen) clause(when merge.When) mclause {
	c := mclause{when: when}
	if g.chance(0.5) {
		c.cond = g.clauseCond(when)
	}
	switch when {
	case merge.Matched:
		switch g.r.IntN(3) {
		case 0:
			c.action = merge.Delete
		case 1:
			c.action = merge.UpdateAll
		default:
			c.action = merge.Update
			c.set = g.assigns(g.matchedExpr)
		}
	case merge.NotMatched:
		if g.chance(0.5) {
			c.action = merge.InsertAll
			break
		}
		c.action = merge.Insert
		n, w := exprOnSource(g.rowExpr("n")), exprOnSource(g.rowExpr("w"))
		c.set = []assign{{"grp", expr{"s.grp", func(_, s row) any { return s.grp }}},
			{"id", expr{"s.id", func(_, s row) any { return s.id }}}, {"n", n}, {"w", w}}
	default:
		if g.chance(0.5) {
			c.action = merge.Delete
			break
		}
		c.action = merge.Update
		c.set = g.assigns(func(col string) expr { return exprOnTarget(g.rowExpr(col)) })
	}
	return c
}

func exprOnSource(e rexpr) expr {
	return expr{sql: e.sql("s."), eval: func(_, s row) any { return e.eval(s) }}
}

// apply runs o on the model's table and returns the table after it and
// the change rows Spark's table_changes shows for it: appends and
// whole-file removes derive from the log's adds and removes, the rest from
// change data files, and OPTIMIZE shows nothing; all are the same rows.
func apply(table []row, o op) ([]row, []change) {
	var out []row
	var ch []change
	keep := func(r row) { out = append(out, r) }
	insert := func(r row) { out = append(out, r); ch = append(ch, change{r, chInsert}) }
	del := func(r row) { ch = append(ch, change{r, chDelete}) }
	update := func(old, new row) {
		out = append(out, new)
		ch = append(ch, change{old, chPre}, change{new, chPost})
	}
	switch o.kind {
	case opCreate, opAppend:
		out = append(out, table...)
		for _, r := range o.rows {
			insert(r)
		}
	case opOverwrite, opReplaceWhere:
		for _, r := range table {
			if o.where == nil || o.where.eval(r) {
				del(r)
			} else {
				keep(r)
			}
		}
		for _, r := range o.rows {
			insert(r)
		}
	case opDelete:
		for _, r := range table {
			if o.where == nil || o.where.eval(r) {
				del(r)
			} else {
				keep(r)
			}
		}
	case opUpdate:
		for _, r := range table {
			if o.where == nil || o.where.eval(r) {
				update(r, set(r, row{}, o.sets))
			} else {
				keep(r)
			}
		}
	case opUpsert:
		src := map[int64]row{}
		for _, s := range o.rows {
			src[s.id] = s
		}
		for _, r := range table {
			if s, ok := src[r.id]; ok {
				update(r, s)
				delete(src, r.id)
			} else {
				keep(r)
			}
		}
		for _, s := range o.rows {
			if _, ok := src[s.id]; ok {
				insert(s)
			}
		}
	case opMerge:
		src := map[int64]row{}
		for _, s := range o.rows {
			src[s.id] = s
		}
		matched := map[int64]bool{}
		for _, t := range table {
			s, ok := src[t.id]
			when := merge.NotMatchedBySource
			if ok {
				when, matched[t.id] = merge.Matched, true
			}
			c := firstClause(o.clauses, when, t, s)
			switch {
			case c == nil:
				keep(t)
			case c.action == merge.Delete:
				del(t)
			case c.action == merge.UpdateAll:
				update(t, s)
			default:
				update(t, set(t, s, c.set))
			}
		}
		for _, s := range o.rows {
			if matched[s.id] {
				continue
			}
			switch c := firstClause(o.clauses, merge.NotMatched, row{}, s); {
			case c == nil:
			case c.action == merge.InsertAll:
				insert(s)
			default:
				insert(set(row{}, s, c.set))
			}
		}
	case opOptimize:
		out = table
	}
	return out, ch
}

// firstClause is the first clause of kind when whose condition holds.
func firstClause(cs []mclause, when merge.When, t, s row) *mclause {
	for i, c := range cs {
		if c.when == when && (c.cond == nil || c.cond.eval(t, s)) {
			return &cs[i]
		}
	}
	return nil
}

// Rendering, as Spark SQL: the statements the Spark-written tables run and
// the text a failing seed prints. {table} is the table's name.

func sqlRow(r row) string {
	w := "CAST(NULL AS STRING)"
	if r.w != nil {
		w = "'" + r.w.(string) + "'"
	}
	n := "CAST(NULL AS BIGINT)"
	if r.n != nil {
		n = fmt.Sprintf("%dL", r.n)
	}
	return fmt.Sprintf("(%dL, '%s', %s, %s)", r.id, r.grp, n, w)
}

func sqlValues(rows []row) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = sqlRow(r)
	}
	return "SELECT * FROM VALUES " + strings.Join(parts, ", ") + " AS v(id, grp, n, w)"
}

func sqlSets(as []assign) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.col + " = " + a.e.sql
	}
	return strings.Join(parts, ", ")
}

// unqualified drops the t. of target-only SQL for UPDATE and DELETE.
func unqualified(s string) string { return strings.ReplaceAll(s, "t.", "") }

// sql renders o as Spark SQL statements.
func (o op) sql(partitioned bool) []string {
	switch o.kind {
	case opCreate:
		part := ""
		if partitioned {
			part = " PARTITIONED BY (grp)"
		}
		return []string{"CREATE TABLE {table} (id BIGINT, grp STRING, n BIGINT, w STRING) USING delta" + part +
			" TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')", "INSERT INTO {table} " + sqlValues(o.rows)}
	case opAppend:
		return []string{"INSERT INTO {table} " + sqlValues(o.rows)}
	case opOverwrite:
		return []string{"INSERT OVERWRITE {table} " + sqlValues(o.rows)}
	case opReplaceWhere:
		return []string{"INSERT INTO {table} REPLACE WHERE " + o.where.sql("") + " " + sqlValues(o.rows)}
	case opDelete:
		if o.where == nil {
			return []string{"DELETE FROM {table}"}
		}
		return []string{"DELETE FROM {table} WHERE " + o.where.sql("")}
	case opUpdate:
		s := "UPDATE {table} SET " + unqualified(sqlSets(o.sets))
		if o.where != nil {
			s += " WHERE " + o.where.sql("")
		}
		return []string{s}
	case opUpsert:
		// An upsert by id is this MERGE (sources keep existing keys'
		// partitions).
		return []string{"MERGE INTO {table} t USING (" + sqlValues(o.rows) + ") s ON t.id = s.id" +
			" WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"}
	case opMerge:
		var b strings.Builder
		b.WriteString("MERGE INTO {table} t USING (" + sqlValues(o.rows) + ") s ON t.id = s.id")
		for _, c := range o.clauses {
			b.WriteString(" " + c.sql())
		}
		return []string{b.String()}
	case opOptimize:
		return []string{"OPTIMIZE {table}"}
	}
	panic("unknown operation " + o.kind)
}

func (c mclause) sql() string {
	var b strings.Builder
	switch c.when {
	case merge.Matched:
		b.WriteString("WHEN MATCHED")
	case merge.NotMatched:
		b.WriteString("WHEN NOT MATCHED")
	default:
		b.WriteString("WHEN NOT MATCHED BY SOURCE")
	}
	if c.cond != nil {
		b.WriteString(" AND " + c.cond.sql)
	}
	switch c.action {
	case merge.Delete:
		b.WriteString(" THEN DELETE")
	case merge.UpdateAll:
		b.WriteString(" THEN UPDATE SET *")
	case merge.InsertAll:
		b.WriteString(" THEN INSERT *")
	case merge.Update:
		b.WriteString(" THEN UPDATE SET " + sqlSets(c.set))
	case merge.Insert:
		cols, vals := make([]string, len(c.set)), make([]string, len(c.set))
		for i, a := range c.set {
			cols[i], vals[i] = a.col, a.e.sql
		}
		b.WriteString(" THEN INSERT (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")")
	}
	return b.String()
}

// describe renders the sequence for a failing seed's log: the statements,
// upserts as UPSERT (what the engine runs), the table named t.
func (sq *sequence) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, partitioned=%t:", sq.seed, sq.partitioned)
	for i, o := range sq.ops {
		stmts := o.sql(sq.partitioned)
		if o.kind == opUpsert {
			stmts = []string{"UPSERT INTO {table} KEY (id) " + sqlValues(o.rows)}
		}
		for _, s := range stmts {
			fmt.Fprintf(&b, "\n  op %d: %s;", i, strings.ReplaceAll(s, "{table}", "t"))
		}
	}
	return b.String()
}
