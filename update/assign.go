package update

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/schema"
)

// assignment is one bound SET col = value.
type assignment struct {
	idx   int           // the column's index in the table schema
	field *schema.Field // the column
	value *expr.Bound
	text  string
}

// bindAssignments binds every SET against the table schema, in column
// order.
func bindAssignments(sess expr.Session, sc *schema.Struct, set map[string]string) ([]assignment, error) {
	if len(set) == 0 {
		return nil, errs.New(errs.InvalidArgument, "", "an update needs at least one assignment (SET column = expression)")
	}
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []assignment
	seen := map[*schema.Field]string{}
	for _, name := range names {
		text := set[name]
		f := sc.Field(strings.TrimSpace(strings.Trim(strings.TrimSpace(name), "`")))
		if f == nil {
			return nil, errs.New(errs.InvalidArgument, "", "SET %s: the table has no column %q (columns: %s)", name, name, columnList(sc))
		}
		if prev, dup := seen[f]; dup {
			return nil, errs.New(errs.InvalidArgument, "", "SET names column %q twice (%s and %s)", f.Name, prev, name)
		}
		seen[f] = name
		e, err := expr.Parse(text)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "SET %s = %s", f.Name, text)
		}
		v, err := sess.BindValue(e, map[string]*schema.Struct{"": sc})
		if err == nil {
			v, err = expr.Assign(v, f, true)
		}
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "SET %s = %s", f.Name, text)
		}
		out = append(out, assignment{idx: sc.Index(f.Name), field: f, value: v, text: text})
	}
	slices.SortFunc(out, func(a, b assignment) int { return a.idx - b.idx })
	return out, nil
}

func columnList(sc *schema.Struct) string {
	names := make([]string, len(sc.Fields))
	for i, f := range sc.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// assign is the rewrite's batch function: the rows for which pred IS TRUE
// get the assignments' values, evaluated on those rows only, and go
// through the table's column rules (generated columns computed again from
// the new values, CHECK constraints; identity columns may not be set).
func assign(pred *expr.Bound, sets []assignment, rules *colrules.Rules) rewrite.Func {
	assigned := func(name string) bool {
		for _, a := range sets {
			if strings.EqualFold(a.field.Name, name) {
				return true
			}
		}
		return false
	}
	return func(ctx context.Context, b rewrite.Batch) (_ rewrite.Output, err error) {
		rec := b.Rec
		n := rec.NumRows()
		var sel []bool
		matched := n
		if pred != nil {
			if sel, matched, err = rewrite.Select(ctx, rec, pred, true); err != nil {
				return rewrite.Output{}, err
			}
		}
		if matched == 0 {
			return rewrite.Output{}, nil
		}
		mem := exec.GetAllocator(ctx)
		sub := rec
		if matched < n {
			if sub, err = filter(ctx, mem, rec, sel); err != nil {
				return rewrite.Output{}, err
			}
			defer sub.Release()
		}
		cols := slices.Clone(rec.Columns())
		var made []arrow.Array
		defer func() {
			for _, a := range made {
				a.Release()
			}
		}()
		for _, a := range sets {
			v, err := a.eval(ctx, sub)
			if err != nil {
				return rewrite.Output{}, errs.Wrap(errs.InvalidArgument, b.File.Path, err, "SET %s = %s", a.field.Name, a.text)
			}
			made = append(made, v)
			if sel != nil {
				if v, err = colrules.Place(ctx, rec.Column(a.idx), v, sel); err != nil {
					return rewrite.Output{}, err
				}
				made = append(made, v)
			}
			cols[a.idx] = v
		}
		set := array.NewRecordBatch(rec.Schema(), cols, n)
		out, err := rules.Update(ctx, set, sel, assigned)
		set.Release()
		if err != nil {
			return rewrite.Output{}, errs.Wrap(errs.InvalidArgument, b.File.Path, err, "nothing was updated")
		}
		if sel == nil { // every row matched
			sel = make([]bool, n)
			for i := range sel {
				sel[i] = true
			}
		}
		return rewrite.Output{Replace: out, Updated: sel}, nil
	}
}

// eval computes the assignment's values on rec, of the column's type
// (expr.Assign cast them as Spark's store assignment does). A NULL for a
// NOT NULL column is the rewrite engine's to refuse, counted over every
// file.
func (a assignment) eval(ctx context.Context, rec arrow.RecordBatch) (arrow.Array, error) {
	return a.value.Eval(ctx, rec)
}

// filter keeps the rows sel marks.
func filter(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, sel []bool) (arrow.RecordBatch, error) {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues(sel, nil)
	mask := b.NewBooleanArray()
	defer mask.Release()
	out, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, mem), rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "selecting the rows to update")
	}
	return out, nil
}
