package merge

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/schema"
)

// plan is a merge resolved against the target and source schemas: the ON
// predicate split for the join, and every clause bound.
type plan struct {
	sess     expr.Session   // Options.SessionTimeZone's: every expression is bound in it
	src, tgt string         // the aliases
	target   *schema.Struct // the table's schema, as target batches come
	source   *schema.Struct
	// out is the schema written: the target's plus the columns schema
	// evolution adds (added), nullable, at the end.
	out   *schema.Struct
	added []*schema.Field
	// widened are the indexes of the target columns schema evolution
	// changes the type of (struct fields added within them, type
	// widening): out has them in the evolved type.
	widened []int
	on      *expr.Bound // the whole ON predicate, over target and source

	// The ON predicate's conjuncts, by the relations they read: equi-join
	// keys hashed over the source, target-only and source-only filters,
	// and what must be checked on each candidate pair (nil: nothing).
	keys       []joinKey
	targetOnly *expr.Bound // over the target alone
	sourceOnly *expr.Bound // over the source alone
	pairCheck  *expr.Bound // over target and source

	clauses []clause
}

// joinKey is one equi-join conjunct t-side = s-side, hashed as keyType.
type joinKey struct {
	target, source *expr.Bound // each side over its own relation
	keyType        arrow.DataType
}

// clause is a Clause bound: its condition over the relations its kind
// sees, and the columns of out it sets.
type clause struct {
	Clause
	cond   *expr.Bound // nil: always
	assign []assignment
}

// assignment sets column col of out to value, already cast to its type.
type assignment struct {
	col   int
	value *expr.Bound
}

// resolve binds opt against the target (table) and source schemas.
func resolve(opt Options, target, source *schema.Struct) (*plan, error) {
	return resolveWidening(opt, target, source, schema.MergeOptions{})
}

// resolveWidening is resolve on a table whose schema evolution may widen
// columns as widen allows (widen.Preview: refuses to, the table having the
// preview of type widening).
func resolveWidening(opt Options, target, source *schema.Struct, widen schema.MergeOptions) (*plan, error) {
	clauses, err := opt.Plan()
	if err != nil {
		return nil, err
	}
	sess, err := op.Session(opt.SessionTimeZone)
	if err != nil {
		return nil, err
	}
	p := &plan{sess: sess, target: target, source: source, out: target}
	p.src, p.tgt = opt.Aliases()
	evolve := strings.EqualFold(strings.TrimSpace(opt.SchemaMode), SchemaModeMerge)
	if err := p.evolve(clauses, evolve); err != nil {
		return nil, err
	}
	if evolve {
		if err := p.widen(clauses, widen); err != nil {
			return nil, err
		}
	}
	if err := p.split(opt.Predicate); err != nil {
		return nil, err
	}
	for i, c := range clauses {
		bc, err := p.bindClause(c, opt.AllowTypeMismatch)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "clause %d (%s)", i+1, c)
		}
		p.clauses = append(p.clauses, bc)
	}
	return p, nil
}

// rels are the relations a clause of kind w sees: MATCHED both, NOT
// MATCHED the source only, NOT MATCHED BY SOURCE the target only.
func (p *plan) rels(w When) map[string]*schema.Struct {
	switch w {
	case NotMatched:
		return map[string]*schema.Struct{p.src: p.source}
	case NotMatchedBySource:
		return map[string]*schema.Struct{p.tgt: p.target}
	}
	return map[string]*schema.Struct{p.tgt: p.target, p.src: p.source}
}

// evolve checks the columns UPDATE SET * and INSERT * map by name, and
// with schema evolution adds the source columns the target lacks.
func (p *plan) evolve(clauses []Clause, merge bool) error {
	var extra, missing []string
	seen := map[string]bool{}
	for _, c := range clauses {
		if c.Action != UpdateAll && c.Action != InsertAll {
			continue
		}
		if err := p.checkExcept(c); err != nil {
			return err
		}
		for _, f := range p.source.Fields {
			if p.target.Field(f.Name) == nil && !excepted(c, f.Name) && !seen["+"+strings.ToLower(f.Name)] {
				seen["+"+strings.ToLower(f.Name)] = true
				extra = append(extra, f.Name)
				if merge {
					p.added = append(p.added, &schema.Field{Name: f.Name, Type: f.Type, Nullable: true})
				}
			}
		}
		for _, f := range p.target.Fields {
			// A generated or identity column the source lacks is computed.
			if p.source.Field(f.Name) == nil && !excepted(c, f.Name) && !colrules.Computed(f) && !seen["-"+strings.ToLower(f.Name)] {
				seen["-"+strings.ToLower(f.Name)] = true
				missing = append(missing, f.Name)
			}
		}
	}
	switch {
	case len(extra) > 0 && !merge:
		return errs.New(errs.SchemaMismatch, "", "the source has column(s) %s that the table lacks, which UPDATE SET * / INSERT * would write: "+
			"add them with schema mode %q, leave them out with except columns, or drop them from the source", strings.Join(quoted(extra), ", "), SchemaModeMerge)
	case len(missing) > 0 && !merge:
		return errs.New(errs.SchemaMismatch, "", "the source lacks table column(s) %s, which UPDATE SET * / INSERT * set from the source column of the same name: "+
			"add them to the source, leave them out with except columns, or use schema mode %q (UPDATE keeps them, INSERT writes null)", strings.Join(quoted(missing), ", "), SchemaModeMerge)
	}
	if len(p.added) > 0 {
		p.out = &schema.Struct{Fields: append(append([]*schema.Field(nil), p.target.Fields...), p.added...)}
	}
	return nil
}

// widen gives the target columns the struct fields the source column of
// the same name holds and they lack (schema.AddFields: within structs,
// arrays and maps, appended at the struct's end), and its wider types
// where o's widening allows them, as Spark's MERGE schema evolution does
// (computePostEvolutionTargetSchema): for the columns UPDATE SET * /
// INSERT * write and those a clause assigns by name. A struct field, array
// element or map key / value the source holds wider widens in place
// (schema.WidenType). On a table with the preview of type widening, which
// Spark would widen, such a column is refused (schema.PreviewRefusal).
func (p *plan) widen(clauses []Clause, o schema.MergeOptions) error {
	widen := o.Widen
	if o.Preview {
		widen = schema.WidenAll
	}
	assigned := func(name string) bool {
		for _, c := range clauses {
			if (c.Action == UpdateAll || c.Action == InsertAll) && !excepted(c, name) {
				return true
			}
			for col := range c.Set {
				if strings.EqualFold(strings.TrimPrefix(strings.TrimSpace(col), p.tgt+"."), name) {
					return true
				}
			}
		}
		return false
	}
	var fields []*schema.Field
	for i, tf := range p.target.Fields {
		sf := p.source.Field(tf.Name)
		if sf == nil || !assigned(tf.Name) {
			continue
		}
		t, added := schema.AddFields(tf.Type, sf.Type)
		wide, widened := t, false
		if widen != schema.NoWidening {
			wide, widened = schema.WidenType(t, sf.Type, widen)
		}
		if widened && o.Preview {
			c := schema.Widened(&schema.Struct{Fields: []*schema.Field{tf}}, &schema.Struct{Fields: []*schema.Field{{Name: tf.Name, Type: wide}}})[0]
			return errs.New(errs.SchemaMismatch, "", "%s", schema.PreviewRefusal(c.Column(), c.From, c.To))
		}
		if !added && !widened {
			continue
		}
		if fields == nil {
			fields = append([]*schema.Field(nil), p.out.Fields...)
		}
		nf := *tf
		nf.Type = wide
		fields[i] = &nf
		p.widened = append(p.widened, i)
	}
	if fields != nil {
		p.out = &schema.Struct{Fields: fields}
	}
	return nil
}

// evolved reports whether the merge changes the table's schema.
func (p *plan) evolved() bool { return len(p.added) > 0 || len(p.widened) > 0 }

// checkExcept refuses except columns that name no column of either side.
func (p *plan) checkExcept(c Clause) error {
	for _, e := range c.Except {
		if p.target.Field(e) == nil && p.source.Field(e) == nil {
			return errs.New(errs.InvalidArgument, "", "%s: except column %q is neither a table nor a source column", c, e)
		}
	}
	return nil
}

func excepted(c Clause, name string) bool {
	for _, e := range c.Except {
		if strings.EqualFold(e, name) {
			return true
		}
	}
	return false
}

// split binds the ON predicate and sorts its conjuncts.
func (p *plan) split(pred string) error {
	on, err := parseExpr(pred, "the merge predicate")
	if err != nil {
		return err
	}
	both := map[string]*schema.Struct{p.tgt: p.target, p.src: p.source}
	if p.on, err = p.sess.Compile(pred, both); err != nil {
		return errs.Wrap(errs.InvalidArgument, "", err, "the merge predicate")
	}
	var tOnly, sOnly, pair []expr.Expr
	for _, c := range expr.SplitAnd(on) {
		b, err := p.sess.Bind(c, both)
		if err != nil {
			return errs.Wrap(errs.InvalidArgument, "", err, "the merge predicate")
		}
		reads := map[string]bool{}
		for _, ref := range b.Columns() {
			reads[ref.Relation] = true
		}
		switch {
		case reads[p.tgt] && !reads[p.src]:
			tOnly = append(tOnly, c)
		case reads[p.src] && !reads[p.tgt]:
			sOnly = append(sOnly, c)
		default:
			if k, ok := p.equiKey(c); ok {
				p.keys = append(p.keys, k)
			} else {
				pair = append(pair, c)
			}
		}
	}
	if p.targetOnly, err = p.bindAnd(tOnly, map[string]*schema.Struct{p.tgt: p.target}); err != nil {
		return err
	}
	if p.sourceOnly, err = p.bindAnd(sOnly, map[string]*schema.Struct{p.src: p.source}); err != nil {
		return err
	}
	p.pairCheck, err = p.bindAnd(pair, both)
	return err
}

// equiKey recognises t-side = s-side, each side reading one relation, with
// types whose values hash equal exactly when SQL = holds.
func (p *plan) equiKey(c expr.Expr) (joinKey, bool) {
	b, ok := c.(*expr.Binary)
	if !ok || b.Op != expr.Eq {
		return joinKey{}, false
	}
	tRel := map[string]*schema.Struct{p.tgt: p.target}
	sRel := map[string]*schema.Struct{p.src: p.source}
	for _, sides := range [][2]expr.Expr{{b.L, b.R}, {b.R, b.L}} {
		t, terr := p.sess.BindValue(sides[0], tRel)
		s, serr := p.sess.BindValue(sides[1], sRel)
		if terr != nil || serr != nil || len(t.Columns()) == 0 || len(s.Columns()) == 0 {
			continue
		}
		if kt, ok := keyType(t.Type(), s.Type()); ok {
			return joinKey{target: t, source: s, keyType: kt}, true
		}
		return joinKey{}, false
	}
	return joinKey{}, false
}

// keyType is the Arrow type both sides of an equi-join are hashed as, when
// the compact key set's equality of that type is SQL's = for the pair
// (integers of any width as long, float with double as double). Other
// pairs are checked row by row.
func keyType(a, b schema.Type) (arrow.DataType, bool) {
	integral := func(t schema.Type) bool {
		switch t.String() {
		case schema.Byte, schema.Short, schema.Integer, schema.Long:
			return true
		}
		return false
	}
	floating := func(t schema.Type) bool { return t.String() == schema.Float || t.String() == schema.Double }
	switch {
	case integral(a) && integral(b):
		return arrow.PrimitiveTypes.Int64, true
	case floating(a) && floating(b):
		return arrow.PrimitiveTypes.Float64, true
	case a.String() != b.String():
		return nil, false
	}
	switch a.(type) {
	case *schema.Decimal:
	case *schema.Primitive:
		switch a.String() {
		case schema.String, schema.Binary, schema.Boolean, schema.Date, schema.Timestamp, schema.TimestampNTZ:
		default:
			return nil, false
		}
	default:
		return nil, false
	}
	dt, err := schema.ArrowType(a, schema.ArrowOptions{})
	return dt, err == nil
}

// bindAnd binds the AND of conjuncts; nil when there are none.
func (p *plan) bindAnd(cs []expr.Expr, rels map[string]*schema.Struct) (*expr.Bound, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	b, err := p.sess.Bind(expr.And(cs...), rels)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "the merge predicate")
	}
	return b, nil
}

// bindClause binds a clause's condition and assignments.
func (p *plan) bindClause(c Clause, lossy bool) (clause, error) {
	bc := clause{Clause: c}
	rels := p.rels(c.When)
	if c.Predicate != "" {
		var err error
		if bc.cond, err = p.sess.Compile(c.Predicate, rels); err != nil {
			return clause{}, errs.Wrap(errs.InvalidArgument, "", err, "condition")
		}
	}
	set := map[int]string{} // column of out → expression text
	switch c.Action {
	case Update, Insert:
		for _, col := range sortedKeys(c.Set) {
			i, err := p.targetColumn(col)
			if err != nil {
				return clause{}, err
			}
			if prev, dup := set[i]; dup {
				return clause{}, errs.New(errs.InvalidArgument, "", "column %q is set twice (%s and %s)", p.out.Fields[i].Name, prev, c.Set[col])
			}
			set[i] = c.Set[col]
		}
	case UpdateAll, InsertAll:
		for i, f := range p.out.Fields {
			if excepted(c, f.Name) {
				continue
			}
			if colrules.IsIdentity(f) && c.Action == UpdateAll {
				continue // an identity column keeps its values (colrules refuses an update of it)
			}
			if sf := p.source.Field(f.Name); sf != nil {
				set[i] = (&expr.Column{Parts: []string{p.src, sf.Name}}).String()
			}
		}
	}
	for i := range p.out.Fields {
		text, ok := set[i]
		if !ok {
			continue
		}
		v, err := p.bindAssignment(text, i, rels, lossy)
		if err != nil {
			return clause{}, err
		}
		bc.assign = append(bc.assign, assignment{col: i, value: v})
	}
	return bc, nil
}

// targetColumn finds the column of out a SET key names: a top-level
// column, optionally qualified with the target alias, plain or backticked.
func (p *plan) targetColumn(key string) (int, error) {
	e, err := expr.Parse(key)
	col, ok := e.(*expr.Column)
	if err != nil || !ok {
		return -1, errs.New(errs.InvalidArgument, "", "%q is not a column name", key)
	}
	parts := col.Parts
	if len(parts) == 2 && strings.EqualFold(parts[0], p.tgt) {
		parts = parts[1:]
	}
	if len(parts) != 1 {
		return -1, errs.New(errs.InvalidArgument, "", "cannot set %q: only top-level table columns can be set", key)
	}
	i := p.out.Index(parts[0])
	if i < 0 {
		return -1, errs.New(errs.SchemaMismatch, "", "cannot set %q: the table has no such column (columns: %s)", key, strings.Join(quoted(names(p.out)), ", "))
	}
	return i, nil
}

// bindAssignment binds the value of column col, cast to its type.
func (p *plan) bindAssignment(text string, col int, rels map[string]*schema.Struct, lossy bool) (*expr.Bound, error) {
	f := p.out.Fields[col]
	e, err := parseExpr(text, fmt.Sprintf("value of %q", f.Name))
	if err != nil {
		return nil, err
	}
	v, err := p.sess.BindValue(e, rels)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "value of %q", f.Name)
	}
	// Spark's store assignment: lossy or impossible casts are refused
	// unless type mismatches are allowed.
	v, err = expr.Assign(v, f, !lossy)
	if err != nil {
		return nil, errs.Wrap(errs.SchemaMismatch, "", err, "value of %q", f.Name)
	}
	return v, nil
}

func names(s *schema.Struct) []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// probeColumns are the target columns that decide which rows a merge
// changes (joiner.decide): those the ON predicate and the conditions of
// MATCHED and NOT MATCHED BY SOURCE clauses read, top-level, in table
// order.
func (p *plan) probeColumns() []string {
	need := map[string]bool{}
	add := func(b *expr.Bound) {
		if b == nil {
			return
		}
		for _, ref := range b.Columns() {
			if ref.Relation == p.tgt {
				need[strings.ToLower(ref.Path[0])] = true
			}
		}
	}
	add(p.on)
	for _, c := range p.clauses {
		if c.When != NotMatched {
			add(c.cond)
		}
	}
	var out []string
	for _, f := range p.target.Fields {
		if need[strings.ToLower(f.Name)] {
			out = append(out, f.Name)
		}
	}
	return out
}
