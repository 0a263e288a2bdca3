package merge

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/keyset"
	"github.com/deltalite-go/deltalite/schema"
)

// pairChunk bounds the candidate (target row, source row) pairs checked at
// once, so that a nested loop over a large source stays within memory.
const pairChunk = 1 << 16

// joiner is the join core of a merge, pure over Arrow batches: the source
// hashed on the equi-join keys, applied to the target one batch at a time
// (apply, safe for concurrent use), then to the source rows no target row
// matched (inserts). It does no I/O.
type joiner struct {
	p   *plan
	src arrow.RecordBatch // the whole source, as the plan's source schema
	// eligible marks the source rows the source-only conjuncts of the ON
	// predicate allow; nil: all.
	eligible []bool
	set      *keyset.Set // nil without equi-join keys: a nested loop
	first    []int32     // per key of set: its first source row
	next     []int32     // per source row: the next row with its key, or -1
	matched  []atomic.Uint64
	values   []*keyValues // per key: the source values that can match, for pruning
	// severalOK: a target row may match several source rows, which Spark
	// allows only in a merge that just inserts, or whose only MATCHED
	// clause is an unconditional DELETE.
	severalOK  bool
	hasMatched bool
	// rules are the table's rules of new rows, set per attempt: every
	// inserted and updated row build makes goes through them.
	rules *colrules.Rules
}

// newJoiner hashes src (rows of the plan's source schema). The joiner
// keeps a reference to src until release.
func newJoiner(ctx context.Context, p *plan, src arrow.RecordBatch) (*joiner, error) {
	n := int(src.NumRows())
	j := &joiner{p: p, src: src, next: make([]int32, n), matched: make([]atomic.Uint64, (n+63)/64)}
	src.Retain()
	var err error
	if p.sourceOnly != nil {
		if j.eligible, err = truths(ctx, p.sourceOnly, map[string]arrow.RecordBatch{p.src: src}); err != nil {
			j.release()
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "the merge predicate's source conditions")
		}
	}
	var matchedClauses []clause
	for _, c := range p.clauses {
		if c.When == Matched {
			matchedClauses = append(matchedClauses, c)
		}
	}
	j.hasMatched = len(matchedClauses) > 0
	j.severalOK = !p.rewritesRows() ||
		len(matchedClauses) == 1 && matchedClauses[0].Action == Delete && matchedClauses[0].cond == nil
	if len(p.keys) == 0 {
		return j, nil
	}
	cols, types, err := j.keyColumns(ctx, src, false)
	if err != nil {
		j.release()
		return nil, err
	}
	defer releaseAll(cols)
	if j.set, err = keyset.New(types, n); err != nil {
		j.release()
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "the merge predicate's keys")
	}
	b, err := j.set.Bind(cols)
	if err != nil {
		j.release()
		return nil, errs.Wrap(errs.Internal, "", err, "hashing the source keys")
	}
	for _, c := range cols {
		j.values = append(j.values, newKeyValues(c.DataType()))
	}
	// Rows go in backwards so that each key's chain lists its rows in order.
	for i := n - 1; i >= 0; i-- {
		j.next[i] = -1
		if j.eligible != nil && !j.eligible[i] {
			continue
		}
		e, added, err := b.Insert(i)
		if err != nil {
			j.release()
			return nil, errs.Wrap(errs.SourceTooLarge, "", err, "hashing the source keys")
		}
		if e < 0 {
			continue // a null key never matches
		}
		for x, c := range cols {
			j.values[x].add(c, i)
		}
		if added {
			j.first = append(j.first, -1)
		}
		j.next[i] = j.first[e]
		j.first[e] = int32(i)
	}
	return j, nil
}

// release drops the joiner's reference to the source.
func (j *joiner) release() {
	if j.src != nil {
		j.src.Release()
		j.src = nil
	}
}

// reset forgets which source rows were matched, for planning again.
func (j *joiner) reset() {
	for i := range j.matched {
		j.matched[i].Store(0)
	}
}

// footprint is the memory the joiner holds for the source: its batch, the
// key set, the row chains and the flags.
func (j *joiner) footprint() int64 {
	var n int64
	for _, c := range j.src.Columns() {
		n += int64(c.Data().SizeInBytes())
	}
	n += int64(len(j.next)+cap(j.first))*4 + int64(len(j.matched))*8 + int64(len(j.eligible))
	if j.set != nil {
		n += j.set.Bytes()
	}
	return n
}

// nestedLoop reports a join without equi-join keys: every target row is
// checked against every source row.
func (j *joiner) nestedLoop() bool { return j.set == nil }

// keyColumns evaluates the key sides of one relation on rec.
func (j *joiner) keyColumns(ctx context.Context, rec arrow.RecordBatch, target bool) ([]arrow.Array, []arrow.DataType, error) {
	var cols []arrow.Array
	var types []arrow.DataType
	for _, k := range j.p.keys {
		side, rel := k.source, j.p.src
		if target {
			side, rel = k.target, j.p.tgt
		}
		a, err := side.EvalInputs(ctx, map[string]arrow.RecordBatch{rel: rec})
		if err != nil {
			releaseAll(cols)
			return nil, nil, err
		}
		cols = append(cols, a)
		types = append(types, k.keyType)
	}
	return cols, types, nil
}

// batchResult is what one target batch becomes, in the shape the rewrite
// engine takes: the rows to keep (nil: all) and, when a row was updated or
// schema evolution adds columns, the batch in the plan's out schema with
// the updated values in place.
type batchResult struct {
	keep    []bool
	replace arrow.RecordBatch
	updated []bool // the rows an update clause gave new values; nil: none
	Counts
}

// changed reports whether any row of the batch was updated or deleted,
// which is when its file must be rewritten.
func (r *batchResult) changed() bool {
	return r.TargetRowsUpdated+r.TargetRowsDeleted > 0
}

func (r *batchResult) release() {
	if r.replace != nil {
		r.replace.Release()
		r.replace = nil
	}
}

// rowFate is what happens to one target row.
type rowFate struct {
	matches int32 // source rows that satisfy the ON predicate with it
	src     int32 // the (last) one a MATCHED clause takes it with
	clause  int16 // index in plan.clauses of the clause that takes it, or -1
}

// decide finds each row's fate in one target batch: the source rows it
// matches (marking them), Spark's multiple-match error, and the clause
// that takes it. The batch needs only the target columns the ON predicate
// and the clause conditions read (plan.probeColumns).
func (j *joiner) decide(ctx context.Context, tb arrow.RecordBatch) ([]rowFate, error) {
	n := int(tb.NumRows())
	fates := make([]rowFate, n)
	for i := range fates {
		fates[i].clause = -1
	}
	var tOK []bool
	if j.p.targetOnly != nil {
		var err error
		if tOK, err = truths(ctx, j.p.targetOnly, map[string]arrow.RecordBatch{j.p.tgt: tb}); err != nil {
			return nil, err
		}
	}
	var ti, si []int32
	flush := func() error {
		if len(ti) == 0 {
			return nil
		}
		err := j.pairs(ctx, tb, ti, si, fates)
		ti, si = ti[:0], si[:0]
		return err
	}
	if j.set != nil {
		cols, _, err := j.keyColumns(ctx, tb, true)
		if err != nil {
			return nil, err
		}
		defer releaseAll(cols)
		b, err := j.set.Bind(cols)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, "", err, "probing the source keys")
		}
		for i := 0; i < n; i++ {
			if tOK != nil && !tOK[i] {
				continue
			}
			e := b.Find(i)
			if e < 0 {
				continue
			}
			for r := j.first[e]; r >= 0; r = j.next[r] {
				ti, si = append(ti, int32(i)), append(si, r)
			}
			if len(ti) >= pairChunk {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	} else {
		m := int(j.src.NumRows())
		for i := 0; i < n; i++ {
			if tOK != nil && !tOK[i] {
				continue
			}
			for r := 0; r < m; r++ {
				if j.eligible != nil && !j.eligible[r] {
					continue
				}
				ti, si = append(ti, int32(i)), append(si, int32(r))
				if len(ti) >= pairChunk {
					if err := flush(); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if !j.severalOK {
		for i, f := range fates {
			if f.matches > 1 {
				return nil, j.ambiguous(tb, i, int(f.matches))
			}
		}
	}
	if err := j.bySource(ctx, tb, fates); err != nil {
		return nil, err
	}
	return fates, nil
}

// changes reports whether any row's fate changes it: every clause that
// takes a target row updates or deletes it.
func changes(fates []rowFate) bool {
	for _, f := range fates {
		if f.clause >= 0 {
			return true
		}
	}
	return false
}

// update is the rows one clause updated: target rows and their new form.
type update struct {
	rows []int32
	rec  arrow.RecordBatch
}

// apply runs the MATCHED and NOT MATCHED BY SOURCE clauses on one target
// batch (every column of the plan's target schema) and marks the source
// rows it matched.
func (j *joiner) apply(ctx context.Context, tb arrow.RecordBatch) (res batchResult, err error) {
	fates, err := j.decide(ctx, tb)
	if err != nil {
		return res, err
	}
	n := int(tb.NumRows())
	var updates []update
	defer func() {
		for _, u := range updates {
			u.rec.Release()
		}
	}()
	for ci, c := range j.p.clauses {
		var rows, srcRows []int32
		for i, f := range fates {
			if int(f.clause) == ci {
				rows, srcRows = append(rows, int32(i)), append(srcRows, f.src)
			}
		}
		if len(rows) == 0 {
			continue
		}
		cnt := int64(len(rows))
		switch {
		case c.Action == Delete && c.When == Matched:
			res.TargetRowsMatchedDeleted += cnt
		case c.Action == Delete:
			res.TargetRowsNotMatchedBySourceDeleted += cnt
		case c.When == Matched:
			res.TargetRowsMatchedUpdated += cnt
		default:
			res.TargetRowsNotMatchedBySourceUpdated += cnt
		}
		if c.Action == Delete {
			res.TargetRowsDeleted += cnt
			if res.keep == nil {
				res.keep = make([]bool, n)
				for i := range res.keep {
					res.keep[i] = true
				}
			}
			for _, r := range rows {
				res.keep[r] = false
			}
			continue
		}
		res.TargetRowsUpdated += cnt
		if res.updated == nil {
			res.updated = make([]bool, n)
		}
		for _, r := range rows {
			res.updated[r] = true
		}
		in, err := j.takeInputs(ctx, c.When, tb, rows, srcRows)
		if err != nil {
			return res, err
		}
		u, err := j.build(ctx, c, in, len(rows))
		releaseInputs(in)
		if err != nil {
			return res, err
		}
		updates = append(updates, update{rows: rows, rec: u})
	}
	if len(updates) > 0 || j.p.evolved() {
		if res.replace, err = j.replacement(ctx, tb, updates); err != nil {
			return res, err
		}
	}
	return res, nil
}

// replacement is tb in the out schema with the updated rows' new values in
// place: per column, the batch's values and the updates' concatenated,
// then gathered in row order.
func (j *joiner) replacement(ctx context.Context, tb arrow.RecordBatch, updates []update) (arrow.RecordBatch, error) {
	n := int(tb.NumRows())
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	off := int32(n)
	for _, u := range updates {
		for k, r := range u.rows {
			idx[r] = off + int32(k)
		}
		off += int32(len(u.rows))
	}
	mem := exec.GetAllocator(ctx)
	out := j.p.out
	cols := make([]arrow.Array, len(out.Fields))
	defer releaseAll(cols)
	fields := make([]arrow.Field, len(out.Fields))
	for i, f := range out.Fields {
		af, err := schema.ArrowField(f, schema.ArrowOptions{})
		if err != nil {
			return nil, errs.Wrap(errs.UnsupportedTable, "", err, "column %q", f.Name)
		}
		var base arrow.Array
		if k := columnIndex(tb, f.Name); k >= 0 && i < len(j.p.target.Fields) {
			if base, err = widened(ctx, tb.Column(k), f, af.Type); err != nil {
				return nil, err
			}
		} else {
			base = array.MakeArrayOfNull(mem, af.Type, n)
		}
		if len(updates) == 0 {
			cols[i] = base
		} else {
			parts := []arrow.Array{base}
			for _, u := range updates {
				part := u.rec.Column(i)
				part.Retain()
				if !arrow.TypeEqual(part.DataType(), base.DataType()) {
					cast, err := compute.CastArray(ctx, part, compute.SafeCastOptions(base.DataType()))
					part.Release()
					if err != nil {
						releaseAll(parts)
						return nil, errs.Wrap(errs.InvalidArgument, "", err, "column %q", f.Name)
					}
					part = cast
				}
				parts = append(parts, part)
			}
			all, err := array.Concatenate(parts, mem)
			releaseAll(parts)
			if err != nil {
				return nil, errs.Wrap(errs.Internal, "", err, "column %q", f.Name)
			}
			cols[i], err = takeArray(ctx, all, idx)
			all.Release()
			if err != nil {
				return nil, err
			}
		}
		af.Type = cols[i].DataType()
		fields[i] = af
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n)), nil
}

// widened is a target column's values in the type of its out column f
// (Arrow type dt): the same array (a new reference) unless schema
// evolution widened the column, or a type within it.
func widened(ctx context.Context, a arrow.Array, f *schema.Field, dt arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(a.DataType(), dt) {
		a.Retain()
		return a, nil
	}
	out, err := datafile.ConformArray(a, f.Type, dt, f.Name, exec.GetAllocator(ctx))
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "widening column %q to %s", f.Name, f.Type)
	}
	return out, nil
}

// pairs checks candidate pairs against the rest of the ON predicate, marks
// the matched source rows, and records per target row its matches and the
// MATCHED clause a matching source row takes it with.
func (j *joiner) pairs(ctx context.Context, tb arrow.RecordBatch, ti, si []int32, fates []rowFate) error {
	if j.p.pairCheck != nil {
		in, err := j.takeInputs(ctx, Matched, tb, ti, si)
		if err != nil {
			return err
		}
		ok, err := truths(ctx, j.p.pairCheck, in)
		releaseInputs(in)
		if err != nil {
			return errs.Wrap(errs.InvalidArgument, "", err, "the merge predicate")
		}
		k := 0
		for x := range ti {
			if ok[x] {
				ti[k], si[k] = ti[x], si[x]
				k++
			}
		}
		ti, si = ti[:k], si[:k]
	}
	for x := range ti {
		fates[ti[x]].matches++
		j.matched[si[x]/64].Or(1 << (si[x] % 64))
	}
	if len(ti) == 0 || !j.hasMatched {
		return nil
	}
	// Each pair takes the first MATCHED clause whose condition holds.
	take := make([]int16, len(ti))
	for x := range take {
		take[x] = -1
	}
	var in map[string]arrow.RecordBatch
	defer func() { releaseInputs(in) }()
	for ci, c := range j.p.clauses {
		if c.When != Matched {
			continue
		}
		if c.cond == nil {
			for x := range take {
				if take[x] < 0 {
					take[x] = int16(ci)
				}
			}
			break
		}
		if in == nil {
			var err error
			if in, err = j.takeInputs(ctx, Matched, tb, ti, si); err != nil {
				return err
			}
		}
		ok, err := truths(ctx, c.cond, in)
		if err != nil {
			return err
		}
		for x := range take {
			if take[x] < 0 && ok[x] {
				take[x] = int16(ci)
			}
		}
	}
	for x, ci := range take {
		if ci >= 0 {
			f := &fates[ti[x]]
			f.src, f.clause = si[x], ci
		}
	}
	return nil
}

// bySource gives the target rows no source row matched to the first NOT
// MATCHED BY SOURCE clause whose condition holds.
func (j *joiner) bySource(ctx context.Context, tb arrow.RecordBatch, fates []rowFate) error {
	var rows []int32
	for i := range fates {
		if fates[i].matches == 0 {
			rows = append(rows, int32(i))
		}
	}
	return j.firstClause(ctx, NotMatchedBySource, tb, rows, func(x int, ci int16) { fates[rows[x]].clause = ci })
}

// firstClause evaluates the clauses of kind w on the given rows of rec (a
// target batch for NOT MATCHED BY SOURCE, the source for NOT MATCHED) and
// calls take for each row that a clause takes, with the clause's index.
func (j *joiner) firstClause(ctx context.Context, w When, rec arrow.RecordBatch, rows []int32, take func(x int, ci int16)) error {
	if len(rows) == 0 {
		return nil
	}
	done := make([]bool, len(rows))
	var in map[string]arrow.RecordBatch
	defer func() { releaseInputs(in) }()
	for ci, c := range j.p.clauses {
		if c.When != w {
			continue
		}
		var ok []bool
		if c.cond != nil {
			if in == nil {
				var err error
				if in, err = j.takeInputs(ctx, w, rec, rows, rows); err != nil {
					return err
				}
			}
			var err error
			if ok, err = truths(ctx, c.cond, in); err != nil {
				return err
			}
		}
		for x := range rows {
			if !done[x] && (ok == nil || ok[x]) {
				done[x] = true
				take(x, int16(ci))
			}
		}
	}
	return nil
}

// inserts runs the NOT MATCHED clauses on the source rows no target row
// matched; call it after every batch of the target's scope was applied.
func (j *joiner) inserts(ctx context.Context) (out []arrow.RecordBatch, cnt Counts, err error) {
	cnt.SourceRows = j.src.NumRows()
	var rows []int32
	for r := 0; r < int(j.src.NumRows()); r++ {
		if j.matched[r/64].Load()&(1<<(r%64)) == 0 {
			rows = append(rows, int32(r))
		}
	}
	chosen := make([]int16, len(rows))
	for x := range chosen {
		chosen[x] = -1
	}
	if err := j.firstClause(ctx, NotMatched, j.src, rows, func(x int, ci int16) { chosen[x] = ci }); err != nil {
		return nil, cnt, err
	}
	defer func() {
		if err != nil {
			for _, b := range out {
				b.Release()
			}
			out = nil
		}
	}()
	for ci, c := range j.p.clauses {
		var take []int32
		for x, k := range chosen {
			if int(k) == ci {
				take = append(take, rows[x])
			}
		}
		if len(take) == 0 {
			continue
		}
		in, err := j.takeInputs(ctx, NotMatched, j.src, take, take)
		if err != nil {
			return out, cnt, err
		}
		b, err := j.build(ctx, c, in, len(take))
		releaseInputs(in)
		if err != nil {
			return out, cnt, err
		}
		out = append(out, b)
		cnt.TargetRowsInserted += int64(len(take))
	}
	return out, cnt, nil
}

// build makes the n rows a clause writes, in the out schema: its assigned
// columns from in; the other columns from the target rows it updates (in's
// target batch), or null for inserts and for columns schema evolution adds.
func (j *joiner) build(ctx context.Context, c clause, in map[string]arrow.RecordBatch, n int) (arrow.RecordBatch, error) {
	out := j.p.out
	cols := make([]arrow.Array, len(out.Fields))
	defer releaseAll(cols)
	fields := make([]arrow.Field, len(out.Fields))
	for _, a := range c.assign {
		v, err := a.value.EvalInputs(ctx, in)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "%s: value of %q", c.Clause, out.Fields[a.col].Name)
		}
		cols[a.col] = v
	}
	kept := in[j.p.tgt] // nil for inserts
	mem := exec.GetAllocator(ctx)
	for i, f := range out.Fields {
		af, err := schema.ArrowField(f, schema.ArrowOptions{})
		if err != nil {
			return nil, errs.Wrap(errs.UnsupportedTable, "", err, "column %q", f.Name)
		}
		if cols[i] == nil {
			if k := columnIndex(kept, f.Name); k >= 0 && i < len(j.p.target.Fields) {
				if cols[i], err = widened(ctx, kept.Column(k), f, af.Type); err != nil {
					return nil, err
				}
			} else {
				cols[i] = array.MakeArrayOfNull(mem, af.Type, n)
			}
		}
		af.Type = cols[i].DataType()
		fields[i] = af
	}
	b := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	defer b.Release()
	sets := func(name string) bool {
		for _, a := range c.assign {
			if strings.EqualFold(out.Fields[a.col].Name, name) {
				return true
			}
		}
		return false
	}
	var ruled arrow.RecordBatch
	var err error
	if kept == nil {
		ruled, err = j.rules.Insert(ctx, b, sets)
	} else {
		ruled, err = j.rules.Update(ctx, b, nil, sets)
	}
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "%s: nothing was merged", c.Clause)
	}
	return ruled, nil
}

// takeInputs gathers the rows a clause of kind w reads: target rows ti of
// tb and source rows si for MATCHED; for the one-sided kinds, rows ti of
// rec (a target batch or the source).
func (j *joiner) takeInputs(ctx context.Context, w When, rec arrow.RecordBatch, ti, si []int32) (map[string]arrow.RecordBatch, error) {
	t, err := takeRows(ctx, rec, ti)
	if err != nil {
		return nil, err
	}
	switch w {
	case NotMatched:
		return map[string]arrow.RecordBatch{j.p.src: t}, nil
	case NotMatchedBySource:
		return map[string]arrow.RecordBatch{j.p.tgt: t}, nil
	}
	s, err := takeRows(ctx, j.src, si)
	if err != nil {
		t.Release()
		return nil, err
	}
	return map[string]arrow.RecordBatch{j.p.tgt: t, j.p.src: s}, nil
}

// ambiguous is Spark's error for a target row that several source rows
// match, naming the row by the target columns the ON predicate reads.
// Spark (Delta 4) refuses it whatever the clause conditions say, unless
// the merge only inserts or its only MATCHED clause is an unconditional
// DELETE.
func (j *joiner) ambiguous(tb arrow.RecordBatch, row, n int) error {
	var parts []string
	for _, ref := range j.p.on.Columns() {
		if ref.Relation != j.p.tgt || len(ref.Path) != 1 {
			continue
		}
		if k := columnIndex(tb, ref.Path[0]); k >= 0 {
			parts = append(parts, fmt.Sprintf("%s = %s", ref, tb.Column(k).ValueStr(row)))
		}
	}
	return errs.New(errs.InvalidArgument, "", "cannot MERGE: %d source rows match the target row with %s, so which one updates or deletes it "+
		"is ambiguous and SQL's MERGE refuses it (only a merge that just inserts, or whose only WHEN MATCHED clause is an unconditional DELETE, "+
		"may match a row twice): keep one source row per target row, for example by removing duplicate keys from the source",
		n, strings.Join(parts, ", "))
}

// truths evaluates a predicate: true where it holds, false where it is
// false or null.
func truths(ctx context.Context, b *expr.Bound, in map[string]arrow.RecordBatch) ([]bool, error) {
	a, err := b.EvalInputs(ctx, in)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	bools, ok := a.(*array.Boolean)
	if !ok {
		return nil, errs.New(errs.Internal, "", "%s evaluated to %s, not a boolean", b, a.DataType())
	}
	out := make([]bool, bools.Len())
	for i := range out {
		out[i] = bools.IsValid(i) && bools.Value(i)
	}
	return out, nil
}

// indices wraps idx as an Arrow array, without a copy.
func indices(idx []int32) arrow.Array {
	buf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(idx))
	return array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(idx), []*memory.Buffer{nil, buf}, nil, 0, 0))
}

// takeArray gathers rows idx of a.
func takeArray(ctx context.Context, a arrow.Array, idx []int32) (arrow.Array, error) {
	ix := indices(idx)
	defer ix.Release()
	out, err := compute.TakeArray(ctx, a, ix)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "gathering rows")
	}
	return out, nil
}

// takeRows gathers rows idx of rec.
func takeRows(ctx context.Context, rec arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	ix := indices(idx)
	defer ix.Release()
	// Datums hold references of their own.
	values, indices := compute.NewDatum(rec), compute.NewDatum(ix)
	defer values.Release()
	defer indices.Release()
	d, err := compute.Take(ctx, *compute.DefaultTakeOptions(), values, indices)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "gathering rows")
	}
	defer d.Release()
	out := d.(*compute.RecordDatum).Value
	out.Retain()
	return out, nil
}

// columnIndex finds a column of rec by name, exactly, then ignoring case.
func columnIndex(rec arrow.RecordBatch, name string) int {
	if rec == nil {
		return -1
	}
	if ix := rec.Schema().FieldIndices(name); len(ix) > 0 {
		return ix[0]
	}
	for i, f := range rec.Schema().Fields() {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

func releaseInputs(in map[string]arrow.RecordBatch) {
	seen := map[arrow.RecordBatch]bool{}
	for _, r := range in {
		if r != nil && !seen[r] {
			seen[r] = true
			r.Release()
		}
	}
}
