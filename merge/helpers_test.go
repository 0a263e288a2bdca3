package merge

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
)

// The shared rig builds the tests' batches.
var batch = jsonrows.Batch

// cols builds a schema from "name type" pairs, every column nullable.
func cols(specs ...string) *schema.Struct {
	s := &schema.Struct{}
	for _, sp := range specs {
		name, typ, _ := strings.Cut(sp, " ")
		var t schema.Type = &schema.Primitive{Name: typ}
		var p, sc int
		if n, _ := fmt.Sscanf(typ, "decimal(%d,%d)", &p, &sc); n == 2 {
			t = &schema.Decimal{Precision: p, Scale: sc}
		}
		s.Fields = append(s.Fields, &schema.Field{Name: name, Type: t, Nullable: true})
	}
	return s
}

// merged runs the join core over the target rows (split into batches of
// per rows) and the source, and returns the table's rows afterwards in the
// out schema, rendered and sorted, and the counters.
func merged(t *testing.T, opt Options, target, source *schema.Struct, tRows, sRows string, per int) ([]string, Counts, *joiner, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	ctx := exec.WithAllocator(context.Background(), mem)
	p, err := resolve(opt, target, source)
	if err != nil {
		return nil, Counts{}, nil, err
	}
	sb := batch(t, mem, source, sRows)
	defer sb.Release()
	j, err := newJoiner(ctx, p, sb)
	if err != nil {
		return nil, Counts{}, nil, err
	}
	defer j.release()
	tb := batch(t, mem, target, tRows)
	defer tb.Release()
	var out []string
	var cnt Counts
	for off := int64(0); off < tb.NumRows(); off += int64(per) {
		part := tb.NewSlice(off, min(off+int64(per), tb.NumRows()))
		// Deciding on the probe columns alone agrees with applying.
		probe := project(part, p.probeColumns())
		fates, derr := j.decide(ctx, probe)
		probe.Release()
		res, err := j.apply(ctx, part)
		// (Only applying computes values, which may fail on their own.)
		if derr != nil && err == nil || err == nil && changes(fates) != res.changed() {
			t.Errorf("deciding on %v: %v, changes %t; applying: %v, changed %t", p.probeColumns(), derr, changes(fates), err, res.changed())
		}
		if err != nil {
			part.Release()
			return nil, cnt, j, err
		}
		cnt.add(res.Counts)
		rows := part
		if res.replace != nil {
			rows = res.replace
		}
		for i := 0; i < int(part.NumRows()); i++ {
			if res.keep == nil || res.keep[i] {
				out = append(out, renderRow(p.out, rows, i))
			}
		}
		if !res.changed() && res.keep != nil {
			t.Errorf("a batch that lost rows does not say it changed")
		}
		res.release()
		part.Release()
	}
	ins, ic, err := j.inserts(ctx)
	if err != nil {
		return nil, cnt, j, err
	}
	cnt.add(ic)
	for _, b := range ins {
		out = append(out, renderAll(p.out, b)...)
		b.Release()
	}
	slices.Sort(out)
	return out, cnt, j, nil
}

// renderRow renders row i of rec as the out schema's columns joined with
// "|"; a column rec lacks (one schema evolution adds) is null.
func renderRow(out *schema.Struct, rec arrow.RecordBatch, i int) string {
	vals := make([]string, len(out.Fields))
	for k, f := range out.Fields {
		c := columnIndex(rec, f.Name)
		switch {
		case c < 0 || rec.Column(c).IsNull(i):
			vals[k] = "NULL"
		default:
			vals[k] = rec.Column(c).ValueStr(i)
		}
	}
	return strings.Join(vals, "|")
}

func renderAll(out *schema.Struct, rec arrow.RecordBatch) []string {
	var rows []string
	for i := 0; i < int(rec.NumRows()); i++ {
		rows = append(rows, renderRow(out, rec, i))
	}
	return rows
}

func sorted(rows ...string) []string {
	slices.Sort(rows)
	return rows
}

// project keeps the named columns of rec.
func project(rec arrow.RecordBatch, names []string) arrow.RecordBatch {
	var fields []arrow.Field
	var cols []arrow.Array
	for _, n := range names {
		i := columnIndex(rec, n)
		fields = append(fields, rec.Schema().Field(i))
		cols = append(cols, rec.Column(i))
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}
