package expr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Eval evaluates the expression on a batch that holds the columns of every
// relation, matched by logical name (exactly, then case-insensitively;
// nested fields through struct columns). The result has one value per row;
// for a predicate it is a boolean array where null means unknown. Memory
// comes from the allocator in ctx (exec.WithAllocator), else the
// default one; the caller releases the result.
func (b *Bound) Eval(ctx context.Context, rec arrow.RecordBatch) (arrow.Array, error) {
	in := make(map[string]arrow.RecordBatch, len(b.rels))
	for name := range b.rels {
		in[name] = rec
	}
	return b.EvalInputs(ctx, in)
}

// EvalInputs evaluates the expression with one batch per relation, keyed
// as the relations were bound; the batches must have the same number of
// rows (row i of each is one joined row).
func (b *Bound) EvalInputs(ctx context.Context, inputs map[string]arrow.RecordBatch) (out arrow.Array, err error) {
	n := -1
	for name := range b.rels {
		rec, ok := inputs[name]
		if !ok || rec == nil {
			return nil, errs.New(errs.InvalidArgument, "", "no input batch for relation %q", name)
		}
		if n >= 0 && int(rec.NumRows()) != n {
			return nil, errs.New(errs.InvalidArgument, "", "input batches differ in length: %d and %d rows", n, rec.NumRows())
		}
		n = int(rec.NumRows())
	}
	ev := newEvaluator(ctx, inputs, n, b.loc)
	defer ev.close()
	defer func() {
		// Arrow kernels panic on some malformed input; report it as an error.
		if r := recover(); r != nil {
			out, err = nil, errs.Recovered(errs.Internal, "", "evaluating "+b.String(), r)
		}
	}()
	v, err := ev.eval(b.root)
	if err != nil {
		return nil, wrapEval(b, err)
	}
	defer v.release()
	return ev.array(v)
}

func wrapEval(b *Bound, err error) error {
	var e *errs.Error
	if errors.As(err, &e) {
		return err
	}
	return errs.Wrap(errs.InvalidArgument, "", err, "evaluating %s", b)
}

// FirstNotTrue is the index of rec's first row for which pred is not TRUE
// (FALSE or NULL), or -1 when it holds for every row: the check of rows a
// write promised to keep within a predicate.
func FirstNotTrue(ctx context.Context, rec arrow.RecordBatch, pred *Bound) (int, error) {
	mask, err := Mask(ctx, rec, pred)
	if err != nil {
		return 0, err
	}
	defer mask.Release()
	for i := 0; i < mask.Len(); i++ {
		if mask.IsNull(i) || !mask.Value(i) {
			return i, nil
		}
	}
	return -1, nil
}

// Mask evaluates a predicate to its boolean array.
func Mask(ctx context.Context, rec arrow.RecordBatch, pred *Bound) (*array.Boolean, error) {
	if !isBool(pred.Type()) {
		return nil, errs.New(errs.InvalidArgument, "", "%s is not a predicate", pred)
	}
	arr, err := pred.Eval(ctx, rec)
	if err != nil {
		return nil, err
	}
	return arr.(*array.Boolean), nil
}

// Filter keeps the rows of rec for which the predicate IS TRUE (neither
// false nor null), as a WHERE clause does.
func Filter(ctx context.Context, rec arrow.RecordBatch, pred *Bound) (arrow.RecordBatch, error) {
	return filter(ctx, rec, pred, false)
}

// FilterNot keeps the rows of rec for which the predicate IS NOT TRUE
// (false or null): the rows a DELETE or a replaceWhere overwrite keeps.
// Filter and FilterNot split a batch into two disjoint parts.
func FilterNot(ctx context.Context, rec arrow.RecordBatch, pred *Bound) (arrow.RecordBatch, error) {
	return filter(ctx, rec, pred, true)
}

func filter(ctx context.Context, rec arrow.RecordBatch, pred *Bound, complement bool) (arrow.RecordBatch, error) {
	mask, err := Mask(ctx, rec, pred)
	if err != nil {
		return nil, err
	}
	defer mask.Release()
	mem := exec.GetAllocator(ctx)
	sel := truthMask(mem, mask, !complement)
	defer sel.Release()
	ctx = exec.WithAllocator(ctx, mem)
	out, err := compute.FilterRecordBatch(ctx, rec, sel, compute.DefaultFilterOptions())
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "", err, "filtering rows")
	}
	return out, nil
}

// value is an intermediate result: an array, or a scalar that stands for
// every row. It owns one reference.
type value struct {
	arr arrow.Array
	sc  scalar.Scalar
}

func (v value) release() {
	if v.arr != nil {
		v.arr.Release()
	}
	if r, ok := v.sc.(scalar.Releasable); ok {
		r.Release()
	}
}

func (v value) datum() compute.Datum {
	if v.arr != nil {
		return compute.NewDatumWithoutOwning(v.arr)
	}
	return compute.NewDatum(v.sc)
}

type evaluator struct {
	ctx    context.Context
	mem    memory.Allocator
	inputs map[string]arrow.RecordBatch
	n      int
	cols   map[string]arrow.Array
	loc    *time.Location // the session time zone
	// vars holds the values of the lambda variables bound, one per row.
	vars map[*lambdaVarN]arrow.Array
	// ownsInputs is set when close releases the input batches.
	ownsInputs bool
}

func newEvaluator(ctx context.Context, inputs map[string]arrow.RecordBatch, n int, loc *time.Location) *evaluator {
	mem := exec.GetAllocator(ctx)
	return &evaluator{ctx: exec.WithAllocator(ctx, mem), mem: mem, inputs: inputs, n: n, cols: map[string]arrow.Array{}, loc: loc}
}

func (ev *evaluator) close() {
	for _, a := range ev.cols {
		a.Release()
	}
	for _, a := range ev.vars {
		a.Release()
	}
	if ev.ownsInputs {
		for _, r := range ev.inputs {
			r.Release()
		}
	}
}

// array materialises v as an array of n rows; the caller releases it.
func (ev *evaluator) array(v value) (arrow.Array, error) {
	if v.arr != nil {
		v.arr.Retain()
		return v.arr, nil
	}
	if !v.sc.IsValid() {
		return array.MakeArrayOfNull(ev.mem, v.sc.DataType(), ev.n), nil
	}
	return scalar.MakeArrayFromScalar(v.sc, ev.n, ev.mem)
}

// fromDatum turns a compute result into a value, releasing the datum.
func fromDatum(d compute.Datum) value {
	switch d := d.(type) {
	case *compute.ArrayDatum:
		defer d.Release()
		return value{arr: d.MakeArray()}
	case *compute.ScalarDatum:
		return value{sc: d.Value} // the scalar's reference moves to the value
	}
	d.Release()
	return value{}
}

func (ev *evaluator) call(name string, opts compute.FunctionOptions, args ...value) (value, error) {
	ds := make([]compute.Datum, len(args))
	for i, a := range args {
		ds[i] = a.datum()
	}
	d, err := compute.CallFunction(ev.ctx, name, opts, ds...)
	if err != nil {
		return value{}, err
	}
	return fromDatum(d), nil
}

func (ev *evaluator) eval(n node) (value, error) {
	if err := ev.ctx.Err(); err != nil {
		return value{}, errs.Wrap(errs.Canceled, "", err, "evaluating an expression")
	}
	switch n := n.(type) {
	case *colRef:
		a, err := ev.column(n)
		if err != nil {
			return value{}, err
		}
		a.Retain()
		return value{arr: a}, nil
	case *lit:
		sc, err := litScalar(n)
		if err != nil {
			return value{}, err
		}
		return value{sc: sc}, nil
	case *castN:
		return ev.unaryOp(n.x, func(x value) (value, error) { return ev.cast(x, n.x.Type(), n.t) })
	case *notN:
		return ev.unaryOp(n.x, func(x value) (value, error) { return ev.call("not", nil, x) })
	case *logicN:
		return ev.logic(n)
	case *cmpN:
		if isNestedType(n.l.Type()) || isNestedType(n.r.Type()) {
			return ev.binaryOp(n.l, n.r, func(l, r value) (value, error) { return ev.nestedCompare(n, l, r) })
		}
		return ev.binaryOp(n.l, n.r, func(l, r value) (value, error) { return ev.compare(n.op, l, r, n.l.Type()) })
	case *arithN:
		return ev.binaryOp(n.l, n.r, func(l, r value) (value, error) { return ev.arith(n, l, r) })
	case *dateArithN:
		return ev.binaryOp(n.d, n.n, func(d, k value) (value, error) { return ev.dateArith(n.sub, d, k) })
	case *negN:
		return ev.unaryOp(n.x, func(x value) (value, error) { return ev.negate(x, n.x.Type()) })
	case *inN:
		return ev.in(n)
	case *betweenN:
		return ev.between(n)
	case *isNullN:
		return ev.unaryOp(n.x, func(x value) (value, error) { return ev.isNull(x, n.not), nil })
	case *isBoolN:
		return ev.unaryOp(n.x, func(x value) (value, error) { return ev.isBool(x, n.val, n.not) })
	case *likeN:
		return ev.like(n)
	case *callN:
		return ev.function(n)
	case *caseN:
		return ev.caseWhen(n)
	case *assignN:
		return ev.assign(n)
	case *lambdaVarN:
		return ev.lambdaVar(n)
	case *fieldN:
		return ev.field(n)
	case *lambdaN:
		return value{}, nil // the higher-order function that takes it applies it
	}
	return value{}, fmt.Errorf("cannot evaluate %T", n)
}

func (ev *evaluator) unaryOp(x node, f func(value) (value, error)) (value, error) {
	v, err := ev.eval(x)
	if err != nil {
		return value{}, err
	}
	defer v.release()
	return f(v)
}

func (ev *evaluator) binaryOp(l, r node, f func(l, r value) (value, error)) (value, error) {
	lv, err := ev.eval(l)
	if err != nil {
		return value{}, err
	}
	defer lv.release()
	rv, err := ev.eval(r)
	if err != nil {
		return value{}, err
	}
	defer rv.release()
	return f(lv, rv)
}

// column finds a column in its relation's batch, descends into struct
// fields, and brings it to the Arrow type of its Delta type.
func (ev *evaluator) column(c *colRef) (arrow.Array, error) {
	key := c.key()
	if a, ok := ev.cols[key]; ok {
		return a, nil
	}
	rec := ev.inputs[c.rel]
	idx := fieldIndex(rec.Schema().Fields(), c.path[0])
	if idx < 0 {
		return nil, errs.New(errs.InvalidArgument, "", "the input has no column %s (columns: %s)", quoteIdent(c.path[0]), arrowFieldList(rec.Schema().Fields()))
	}
	arr := rec.Column(idx)
	arr.Retain()
	for k := 1; k < len(c.path); k++ {
		st, ok := arr.(*array.Struct)
		if !ok {
			arr.Release()
			return nil, errs.New(errs.InvalidArgument, "", "input column %s is %s, not a struct", strings.Join(c.path[:k], "."), arr.DataType())
		}
		j := fieldIndex(st.DataType().(*arrow.StructType).Fields(), c.path[k])
		if j < 0 {
			arr.Release()
			return nil, errs.New(errs.InvalidArgument, "", "input struct %s has no field %s", strings.Join(c.path[:k], "."), quoteIdent(c.path[k]))
		}
		child := withParentNulls(ev.mem, st, st.Field(j))
		arr.Release()
		arr = child
	}
	want, err := arrowType(c.Type())
	if err != nil {
		arr.Release()
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "column %s", strings.Join(c.path, "."))
	}
	if !arrow.TypeEqual(arr.DataType(), want) {
		conv, err := compute.CastArray(ev.ctx, arr, compute.SafeCastOptions(want))
		arr.Release()
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "input column %s is not of type %s", strings.Join(c.path, "."), typeName(c.Type()))
		}
		arr = conv
	}
	ev.cols[key] = arr
	return arr, nil
}

func fieldIndex(fields []arrow.Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	for i, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func arrowFieldList(fields []arrow.Field) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = quoteIdent(f.Name)
	}
	return strings.Join(names, ", ")
}

// withParentNulls returns child with the struct's own nulls added: a field
// of a null struct is null.
func withParentNulls(mem memory.Allocator, parent *array.Struct, child arrow.Array) arrow.Array {
	if parent.NullN() == 0 || child.DataType().ID() == arrow.NULL {
		child.Retain()
		return child
	}
	n := child.Len()
	off := child.Data().Offset()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bits := buf.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	nulls := 0
	for i := 0; i < n; i++ {
		ok := parent.IsValid(i) && child.IsValid(i)
		bitutil.SetBitTo(bits, off+i, ok)
		if !ok {
			nulls++
		}
	}
	d := child.Data()
	bufs := append([]*memory.Buffer{buf}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), n, bufs, d.Children(), nulls, off)
	buf.Release()
	defer nd.Release()
	return array.MakeFromData(nd)
}

// constValue evaluates an expression without columns. A value of an
// array, map or struct type is no constant here (one holds atomic values
// only): it fails, and a caller keeps the expression.
func constValue(n node, loc *time.Location) (v any, err error) {
	if !isAtomic(n.Type()) {
		return nil, errs.New(errs.Internal, "", "a constant of type %s is computed with the rows", typeName(n.Type()))
	}
	ev := newEvaluator(context.Background(), nil, 1, loc)
	defer ev.close()
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, errs.Recovered(errs.Internal, "", "folding a constant", r)
		}
	}()
	val, err := ev.eval(n)
	if err != nil {
		return nil, err
	}
	defer val.release()
	arr, err := ev.array(val)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	return goValue(arr, 0), nil
}
