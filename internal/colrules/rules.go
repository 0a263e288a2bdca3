package colrules

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

const constraintPrefix = "delta.constraints."

// Rules are a table's rules for new rows. A nil *Rules has none. Its
// methods are safe for concurrent use (an operation writes batches in
// parallel); identity values are handed out once each.
type Rules struct {
	sc     *schema.Struct
	checks []check
	gens   []generated
	ids    []*identity
}

// check is a bound CHECK constraint.
type check struct {
	name, text string
	pred       *expr.Bound
	cols       []int // the top-level columns it reads, for the error
}

// generated is a bound generated column: value computes it (of the
// column's type), equal checks a given value (col <=> expression).
type generated struct {
	idx   int
	field *schema.Field
	text  string
	value *expr.Bound
	equal *expr.Bound
	deps  map[string]bool // lower-cased top-level columns it reads
	cols  []int
}

// identity is an identity column and the values this operation assigned.
type identity struct {
	idx         int
	field       *schema.Field
	start, step int64
	always      bool
	mu          sync.Mutex
	next        int64 // the next value to assign
	assigned    bool  // whether any was
	high        int64 // the last value assigned
}

// For reads the rules of the table with metadata md for rows of schema sc
// (its logical schema, or the one an operation planned with: identity
// columns are numbered from md's high watermarks), its generation
// expressions and CHECK constraints bound in session sess (the time zone
// Spark's writers evaluate them in: spark.sql.session.timeZone). It
// returns nil when the table has none, and an
// errs.UnsupportedTable error naming the column or constraint whose
// expression this engine cannot evaluate, or whose identity settings it
// does not understand.
func For(md *protocol.Metadata, sc *schema.Struct, sess expr.Session) (*Rules, error) {
	if md == nil || sc == nil {
		return nil, nil
	}
	r := &Rules{sc: sc}
	rels := map[string]*schema.Struct{"": sc}
	// The identity settings and high watermarks are md's: sc may be a
	// schema planned against an older version of the table.
	current, err := schema.Parse(md.SchemaString)
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, "", err, "table schema")
	}
	for i, f := range sc.Fields {
		if IsIdentity(f) {
			if cf := current.Field(f.Name); cf != nil && IsIdentity(cf) {
				c := *f
				c.Metadata = cf.Metadata
				f = &c
			}
		}
		if text, ok := f.Metadata[schema.GenerationExpressionKey].(string); ok {
			g, err := bindGenerated(sess, i, f, text, sc, rels)
			if err != nil {
				return nil, err
			}
			r.gens = append(r.gens, g)
		}
		if IsIdentity(f) {
			id, err := readIdentity(i, f)
			if err != nil {
				return nil, err
			}
			r.ids = append(r.ids, id)
		}
	}
	for _, c := range constraints(md) {
		p, err := sess.ParsePredicate(c.text, sc)
		if err != nil {
			return nil, errs.New(errs.UnsupportedTable, "", "CHECK constraint %s (%s) is beyond the expressions this engine evaluates, so it cannot keep it: %v", c.name, c.text, err)
		}
		c.pred, c.cols = p, topColumns(sc, p)
		r.checks = append(r.checks, c)
	}
	if len(r.checks)+len(r.gens)+len(r.ids) == 0 {
		return nil, nil
	}
	return r, nil
}

func constraints(md *protocol.Metadata) []check {
	var out []check
	for k, v := range md.Configuration {
		if name, ok := strings.CutPrefix(k, constraintPrefix); ok {
			out = append(out, check{name: name, text: v})
		}
	}
	// The first violated constraint in name order is the one reported.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].name < out[j-1].name; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func bindGenerated(sess expr.Session, i int, f *schema.Field, text string, sc *schema.Struct, rels map[string]*schema.Struct) (generated, error) {
	fail := func(err error) (generated, error) {
		// UnsupportedTable whatever err's kind: the table, not the caller's input, is beyond this engine.
		return generated{}, errs.New(errs.UnsupportedTable, "",
			"generated column %s (GENERATED ALWAYS AS (%s)) is beyond the expressions this engine evaluates, so it cannot write it: %v", f.Name, text, err)
	}
	e, err := expr.Parse(text)
	if err != nil {
		return fail(err)
	}
	v, err := sess.BindValue(e, rels)
	if err != nil {
		return fail(err)
	}
	cols := topColumns(sc, v)
	for _, c := range cols {
		if c == i {
			return fail(fmt.Errorf("it reads its own column"))
		}
	}
	if v, err = expr.Assign(v, f, false); err != nil {
		return fail(err)
	}
	var eq *expr.Bound // nil for a map: Spark compares no maps, so a row may not give one
	if !holdsMap(f.Type) {
		if eq, err = sess.Compile("`"+strings.ReplaceAll(f.Name, "`", "``")+"` <=> ("+text+")", rels); err != nil {
			return fail(err)
		}
	}
	deps := map[string]bool{}
	for _, c := range cols {
		deps[strings.ToLower(sc.Fields[c].Name)] = true
	}
	return generated{idx: i, field: f, text: text, value: v, equal: eq, deps: deps, cols: append(cols, i)}, nil
}

// CheckNewColumns refuses a generated column of sc whose expression Delta
// does not let a user give a new column (Spark's CREATE TABLE refuses it
// with DELTA_UNSUPPORTED_EXPRESSION_GENERATED_COLUMN), naming the column:
// what a table this engine creates holds, Spark can create too.
func CheckNewColumns(sc *schema.Struct) error {
	for _, f := range sc.Fields {
		text, ok := f.Metadata[schema.GenerationExpressionKey].(string)
		if !ok {
			continue
		}
		err := expr.SubstitutionFree(text)
		var e expr.Expr
		if err == nil {
			e, err = expr.Parse(text)
		}
		if err == nil {
			err = expr.GeneratedColumnAllowed(e)
		}
		if err == nil {
			err = expr.MapSubscriptFree(e, sc)
		}
		if err != nil {
			return errs.Wrap(errs.InvalidArgument, "", err, "generated column %s (GENERATED ALWAYS AS (%s))", f.Name, text)
		}
	}
	return nil
}

// Readers names the CHECK constraints and generated columns whose
// expressions read the column at path (a top-level column, or a nested
// field by its path), or a field within it or holding it: those whose
// results a change of its type could change, which Spark's ALTER TABLE
// CHANGE COLUMN and schema evolution refuse (checkDependentExpressions).
func (r *Rules) Readers(path []string) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, c := range r.checks {
		if readsPath(c.pred, path) {
			out = append(out, fmt.Sprintf("CHECK constraint %s (%s)", c.name, c.text))
		}
	}
	for _, g := range r.gens {
		if readsPath(g.value, path) {
			out = append(out, fmt.Sprintf("generated column %s (GENERATED ALWAYS AS (%s))", g.field.Name, g.text))
		}
	}
	return out
}

// readsPath: b reads path, a field within it or a struct holding it
// (names compared case-insensitively, as columns resolve).
func readsPath(b *expr.Bound, path []string) bool {
	for _, c := range b.Columns() {
		n := min(len(c.Path), len(path))
		same := n > 0
		for i := 0; same && i < n; i++ {
			same = strings.EqualFold(c.Path[i], path[i])
		}
		if same {
			return true
		}
	}
	return false
}

// topColumns are the indexes of the top-level columns b reads.
func topColumns(sc *schema.Struct, b *expr.Bound) []int {
	seen := map[int]bool{}
	var out []int
	for _, c := range b.Columns() {
		if len(c.Path) == 0 {
			continue
		}
		if i := sc.Index(c.Path[0]); i >= 0 && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out
}

func readIdentity(i int, f *schema.Field) (*identity, error) {
	bad := func(format string, args ...any) (*identity, error) {
		return nil, errs.New(errs.UnsupportedTable, "", "identity column %s: %s", f.Name, fmt.Sprintf(format, args...))
	}
	if p, ok := f.Type.(*schema.Primitive); !ok || p.Name != schema.Long {
		return bad("its type is %s; identity columns are bigint", f.Type)
	}
	start, err := metaLong(f, schema.IdentityStartKey)
	if err != nil {
		return bad("%v", err)
	}
	step, err := metaLong(f, schema.IdentityStepKey)
	if err != nil {
		return bad("%v", err)
	}
	if step == 0 {
		return bad("%s is 0", schema.IdentityStepKey)
	}
	allow, ok := f.Metadata[schema.IdentityAllowExplicitKey].(bool)
	if !ok {
		return bad("%s is %v, not a boolean", schema.IdentityAllowExplicitKey, f.Metadata[schema.IdentityAllowExplicitKey])
	}
	id := &identity{idx: i, field: f, start: start, step: step, always: !allow, next: start}
	if _, has := f.Metadata[schema.IdentityHighWaterMarkKey]; has {
		hwm, err := metaLong(f, schema.IdentityHighWaterMarkKey)
		if err != nil {
			return bad("%v", err)
		}
		if id.next, err = add(hwm, step); err != nil {
			return bad("no value follows the high watermark %d", hwm)
		}
	}
	return id, nil
}

// metaLong reads a whole number of a column's metadata.
func metaLong(f *schema.Field, key string) (int64, error) {
	v, ok := schema.MetadataLong(f.Metadata[key])
	if !ok {
		return 0, fmt.Errorf("%s is %v, not a whole number this engine reads exactly", key, f.Metadata[key])
	}
	return v, nil
}

func add(a, b int64) (int64, error) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, fmt.Errorf("overflow")
	}
	return s, nil
}

// Has reports whether r has any rule.
func (r *Rules) Has() bool { return r != nil }

// HasIdentity reports whether the table has identity columns.
func (r *Rules) HasIdentity() bool { return r != nil && len(r.ids) > 0 }

// Computed reports whether f is a column the rules fill in when incoming
// rows leave it out: a generated or identity column. A source may lack it
// where it must otherwise give every column (MERGE's UPDATE SET * and
// INSERT *).
func Computed(f *schema.Field) bool {
	_, gen := f.Metadata[schema.GenerationExpressionKey]
	return gen || IsIdentity(f)
}

// IsIdentity reports whether f is an identity column.
func IsIdentity(f *schema.Field) bool {
	_, ok := f.Metadata[schema.IdentityStartKey]
	return ok
}

// Relaxed is sc with the columns the rules fill in nullable, for casting
// incoming rows that leave them out to the table's shape (the data-file
// writer still refuses a null where the table forbids one).
func (r *Rules) Relaxed(sc *schema.Struct) *schema.Struct {
	if r == nil {
		return sc
	}
	out := &schema.Struct{Fields: make([]*schema.Field, len(sc.Fields))}
	for i, f := range sc.Fields {
		out.Fields[i] = f
		if !f.Nullable && Computed(f) {
			c := *f
			c.Nullable = true
			out.Fields[i] = &c
		}
	}
	return out
}

// Given says which top-level columns the incoming rows gave (matched
// case-insensitively), from the schema they came with.
func Given(s *arrow.Schema) func(string) bool {
	names := map[string]bool{}
	for _, f := range s.Fields() {
		names[strings.ToLower(f.Name)] = true
	}
	return func(n string) bool { return names[strings.ToLower(n)] }
}

// Insert applies the rules to a batch of inserted rows of the table's
// logical schema (Conform's shape); given says which columns the rows
// gave, the others being nulls. Identity columns left out are numbered
// (given ones refused for GENERATED ALWAYS), generated columns left out
// computed and given ones checked, then every CHECK constraint checked. It
// returns the batch to write (the caller releases it) or an error naming
// the rule and the row's values.
func (r *Rules) Insert(ctx context.Context, rec arrow.RecordBatch, given func(string) bool) (arrow.RecordBatch, error) {
	return r.apply(ctx, rec, nil, given, false)
}

// Update applies the rules to a batch of rows some of which (sel; nil:
// all) hold the new values of updated rows: assigned says which columns
// the update set. An identity column may not be set; a generated column
// set is checked, one not set is computed again from the new values; the
// CHECK constraints are checked on those rows.
func (r *Rules) Update(ctx context.Context, rec arrow.RecordBatch, sel []bool, assigned func(string) bool) (arrow.RecordBatch, error) {
	return r.apply(ctx, rec, sel, assigned, true)
}

func (r *Rules) apply(ctx context.Context, rec arrow.RecordBatch, sel []bool, given func(string) bool, update bool) (arrow.RecordBatch, error) {
	if r == nil {
		rec.Retain()
		return rec, nil
	}
	if int(rec.NumCols()) != len(r.sc.Fields) {
		return nil, errs.New(errs.Internal, "", "column rules: the batch has %d columns, the table %d", rec.NumCols(), len(r.sc.Fields))
	}
	cols := make([]arrow.Array, rec.NumCols())
	copy(cols, rec.Columns())
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	n := int(rec.NumRows())
	for _, id := range r.ids {
		switch {
		case given(id.field.Name) && update:
			return nil, errs.New(errs.InvalidArgument, "", "identity column %s cannot be updated (Spark's rule: its values are assigned once, when a row is inserted)", id.field.Name)
		case given(id.field.Name) && id.always:
			return nil, errs.New(errs.InvalidArgument, "", "identity column %s is GENERATED ALWAYS AS IDENTITY: its values are assigned by the table, so the rows may not give it; leave the column out", id.field.Name)
		}
	}
	if !update {
		var err error
		if made, err = r.number(ctx, cols, n, given); err != nil {
			return nil, err
		}
	}
	cur := func() arrow.RecordBatch { return array.NewRecordBatch(rec.Schema(), cols, int64(n)) }
	for _, g := range r.gens {
		if given(g.field.Name) {
			continue
		}
		if update && !r.touches(g, given) {
			continue // the columns it reads kept their values
		}
		b := cur()
		v, err := g.value.Eval(ctx, b)
		b.Release()
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "computing generated column %s (%s)", g.field.Name, g.text)
		}
		made = append(made, v)
		if sel != nil {
			if v, err = Place(ctx, cols[g.idx], v, sel); err != nil {
				return nil, err
			}
			made = append(made, v)
		}
		cols[g.idx] = v
	}
	out := cur()
	for _, g := range r.gens {
		if !given(g.field.Name) {
			continue
		}
		if g.equal == nil {
			out.Release()
			return nil, errs.New(errs.InvalidArgument, "", "generated column %s = %s is of type %s, which holds a map: Spark compares no maps, so a row may not give it (as Spark refuses it); leave the column out and it is computed",
				g.field.Name, g.text, g.field.Type)
		}
		if bad, err := firstFailing(ctx, out, g.equal, sel, false); err != nil || bad >= 0 {
			defer out.Release()
			if err != nil {
				return nil, errs.Wrap(errs.InvalidArgument, "", err, "checking generated column %s (%s)", g.field.Name, g.text)
			}
			return nil, errs.New(errs.InvalidArgument, "", "generated column %s = %s: a row gives a value other than its expression's: %s; leave the column out and it is computed",
				g.field.Name, g.text, rowValues(r.sc, out, g.cols, bad))
		}
	}
	for _, c := range r.checks {
		// Spark's DeltaInvariantChecker: a row fails when the constraint
		// is FALSE or NULL.
		if bad, err := firstFailing(ctx, out, c.pred, sel, true); err != nil || bad >= 0 {
			defer out.Release()
			if err != nil {
				return nil, errs.Wrap(errs.InvalidArgument, "", err, "checking CHECK constraint %s (%s)", c.name, c.text)
			}
			return nil, errs.New(errs.InvalidArgument, "", "CHECK constraint %s (%s) violated by row with values: %s",
				c.name, c.text, rowValues(r.sc, out, c.cols, bad))
		}
	}
	return out, nil
}

// Number gives the rows of rec (inserted rows Insert took) identity
// values afresh in the columns given does not name: for an operation that
// checks its rows once and writes them in each of its attempts, each
// attempt numbering from the high watermark of the table it plans against.
// The caller releases the batch returned.
func (r *Rules) Number(ctx context.Context, rec arrow.RecordBatch, given func(string) bool) (arrow.RecordBatch, error) {
	if r == nil || len(r.ids) == 0 {
		rec.Retain()
		return rec, nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	copy(cols, rec.Columns())
	made, err := r.number(ctx, cols, int(rec.NumRows()), given)
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	if err != nil {
		return nil, err
	}
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows()), nil
}

// number puts n new values of each identity column given does not name
// into cols, and returns the arrays it made.
func (r *Rules) number(ctx context.Context, cols []arrow.Array, n int, given func(string) bool) ([]arrow.Array, error) {
	var made []arrow.Array
	for _, id := range r.ids {
		if given(id.field.Name) {
			continue // BY DEFAULT takes explicit values (Insert refused them for ALWAYS)
		}
		vals, err := id.assign(ctx, n)
		if err != nil {
			return made, err
		}
		made = append(made, vals)
		cols[id.idx] = vals
	}
	return made, nil
}

// touches reports whether an update that set the columns assigned names
// changes a column generated column g reads.
func (r *Rules) touches(g generated, assigned func(string) bool) bool {
	for d := range g.deps {
		if assigned(d) {
			return true
		}
	}
	return false
}

// firstFailing is the first row (of those sel marks) for which pred is
// FALSE, or NULL when nullFails; -1 when none.
func firstFailing(ctx context.Context, rec arrow.RecordBatch, pred *expr.Bound, sel []bool, nullFails bool) (int, error) {
	m, err := expr.Mask(ctx, rec, pred)
	if err != nil {
		return -1, err
	}
	defer m.Release()
	for i := 0; i < m.Len(); i++ {
		if sel != nil && !sel[i] {
			continue
		}
		if m.IsNull(i) {
			if nullFails {
				return i, nil
			}
			continue
		}
		if !m.Value(i) {
			return i, nil
		}
	}
	return -1, nil
}

// rowValues renders row i's values of the columns cols as "a => 1, b =>
// NULL", as Spark's violation message lists them.
func rowValues(sc *schema.Struct, rec arrow.RecordBatch, cols []int, i int) string {
	parts := make([]string, 0, len(cols))
	for _, c := range cols {
		a := rec.Column(c)
		v := "NULL"
		if a.IsValid(i) {
			v = a.ValueStr(i)
		}
		parts = append(parts, sc.Fields[c].Name+" => "+v)
	}
	return strings.Join(parts, ", ")
}

// Place is old with the rows sel marks replaced by values of upd: upd
// holds either a value per row of old (the marked ones are taken) or one
// per marked row, in order. The caller releases the array returned.
func Place(ctx context.Context, old, upd arrow.Array, sel []bool) (arrow.Array, error) {
	mem := exec.GetAllocator(ctx)
	both, err := array.Concatenate([]arrow.Array{old, upd}, mem)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "placing new values")
	}
	defer both.Release()
	b := array.NewInt32Builder(mem)
	defer b.Release()
	n, dense := int32(old.Len()), upd.Len() == len(sel)
	next := n
	for i, s := range sel {
		switch {
		case !s:
			b.Append(int32(i))
		case dense:
			b.Append(n + int32(i))
		default:
			b.Append(next)
			next++
		}
	}
	idx := b.NewInt32Array()
	defer idx.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), both, idx)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "placing new values")
	}
	return out, nil
}

// assign hands out n values in the column's direction, each once.
func (id *identity) assign(ctx context.Context, n int) (arrow.Array, error) {
	if n == 0 {
		return array.MakeArrayOfNull(exec.GetAllocator(ctx), arrow.PrimitiveTypes.Int64, 0), nil
	}
	id.mu.Lock()
	first := id.next
	last, err1 := mul(int64(n-1), id.step)
	if err1 == nil {
		last, err1 = add(first, last)
	}
	var next int64
	if err1 == nil {
		next, err1 = add(last, id.step)
		if err1 != nil { // the last value is fine; the one after it is not
			next, err1 = last, nil
		}
	}
	if err1 != nil {
		id.mu.Unlock()
		return nil, errs.New(errs.InvalidArgument, "", "identity column %s: %d more values from %d by %d overflow bigint", id.field.Name, n, first, id.step)
	}
	id.next, id.assigned, id.high = next, true, last
	id.mu.Unlock()
	b := array.NewInt64Builder(exec.GetAllocator(ctx))
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		b.UnsafeAppend(first + int64(i)*id.step)
	}
	return b.NewArray(), nil
}

func mul(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	p := a * b
	if p/b != a {
		return 0, fmt.Errorf("overflow")
	}
	return p, nil
}

// Numbered reports whether the operation gave rows identity values: its
// rows then hold values a concurrent commit may have taken too, so they
// may only be committed on the table they were numbered against.
func (r *Rules) Numbered() bool {
	if r == nil {
		return false
	}
	for _, id := range r.ids {
		id.mu.Lock()
		a := id.assigned
		id.mu.Unlock()
		if a {
			return true
		}
	}
	return false
}

// Metadata is md with the high watermark of every identity column this
// operation numbered rows of advanced to the last value assigned, as Spark
// records it (delta.identity.highWaterMark in the column's metadata), for
// the operation's commit; md itself when no value was assigned.
func (r *Rules) Metadata(md *protocol.Metadata, mode schema.Mode) (*protocol.Metadata, error) {
	if r == nil || md == nil {
		return md, nil
	}
	var moved []*identity
	for _, id := range r.ids {
		id.mu.Lock()
		if id.assigned {
			moved = append(moved, id)
		}
		id.mu.Unlock()
	}
	if len(moved) == 0 {
		return md, nil
	}
	sc, err := schema.Parse(md.SchemaString)
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, "", err, "table schema")
	}
	for _, id := range moved {
		f := sc.Field(id.field.Name)
		if f == nil {
			return nil, errs.New(errs.Internal, "", "identity column %s is not in the schema committed", id.field.Name)
		}
		if f.Metadata == nil {
			f.Metadata = map[string]any{}
		}
		id.mu.Lock()
		f.Metadata[schema.IdentityHighWaterMarkKey] = id.high
		id.mu.Unlock()
	}
	return md.WithSchema(sc, mode), nil
}

// holdsMap reports whether values of t are or hold maps, which Spark
// neither orders nor compares.
func holdsMap(t schema.Type) bool {
	switch t := t.(type) {
	case *schema.Map:
		return true
	case *schema.Array:
		return holdsMap(t.Element)
	case *schema.Struct:
		for _, f := range t.Fields {
			if holdsMap(f.Type) {
				return true
			}
		}
	}
	return false
}
