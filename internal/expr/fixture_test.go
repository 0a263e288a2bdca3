package expr

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
)

// The shared rig builds the tests' schemas and batches.
var (
	mustSchema = jsonrows.Schema
	batch      = jsonrows.Batch
)

// allTypesSchema has a column of every primitive type, a decimal, a struct
// and a name that needs quoting.
const allTypesSchema = `{"type":"struct","fields":[
{"name":"b","type":"boolean","nullable":true,"metadata":{}},
{"name":"i8","type":"byte","nullable":true,"metadata":{}},
{"name":"i16","type":"short","nullable":true,"metadata":{}},
{"name":"i32","type":"integer","nullable":true,"metadata":{}},
{"name":"i64","type":"long","nullable":true,"metadata":{}},
{"name":"f32","type":"float","nullable":true,"metadata":{}},
{"name":"f64","type":"double","nullable":true,"metadata":{}},
{"name":"dec","type":"decimal(10,2)","nullable":true,"metadata":{}},
{"name":"s","type":"string","nullable":true,"metadata":{}},
{"name":"bin","type":"binary","nullable":true,"metadata":{}},
{"name":"d","type":"date","nullable":true,"metadata":{}},
{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},
{"name":"ntz","type":"timestamp_ntz","nullable":true,"metadata":{}},
{"name":"st","type":{"type":"struct","fields":[
  {"name":"x","type":"integer","nullable":true,"metadata":{}},
  {"name":"y","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},
{"name":"My Col","type":"string","nullable":true,"metadata":{}}]}`

// allTypesRows: five rows; row 2 is null in every column, and each column
// has other edge values (NaN, -0.0, maxima, pre-epoch instants).
const allTypesRows = `[
{"b":true,"i8":1,"i16":100,"i32":1000,"i64":10000000000,"f32":1.5,"f64":2.5,"dec":"12.34","s":"alpha","bin":"YWJj","d":"2026-01-01","ts":"2026-01-01T00:00:00Z","ntz":"2026-01-01T10:00:00","st":{"x":1,"y":"one"},"My Col":"A"},
{"b":false,"i8":-2,"i16":-200,"i32":-2000,"i64":-20,"f32":-0.5,"f64":"NaN","dec":"-0.50","s":"Beta","bin":"","d":"2026-01-02","ts":"2026-01-01T12:30:00.123456Z","ntz":"2025-12-31T23:59:59","st":{"x":null,"y":"two"},"My Col":"b"},
{"b":null,"i8":null,"i16":null,"i32":null,"i64":null,"f32":null,"f64":null,"dec":null,"s":null,"bin":null,"d":null,"ts":null,"ntz":null,"st":null,"My Col":null},
{"b":true,"i8":127,"i16":32767,"i32":2147483647,"i64":9223372036854775807,"f32":0.1,"f64":0.1,"dec":"99999999.99","s":"a%b_c","bin":"AP8=","d":"1969-12-31","ts":"1969-12-31T23:59:59.999999Z","ntz":"1970-01-01T00:00:00","st":{"x":3,"y":null},"My Col":"c"},
{"b":false,"i8":0,"i16":0,"i32":0,"i64":0,"f32":0,"f64":-0.0,"dec":"0.00","s":"","bin":"AA==","d":"2000-02-29","ts":"2000-02-29T00:00:00Z","ntz":"2000-02-29T00:00:00","st":{"x":null,"y":null},"My Col":""}
]`

func allTypes(t testing.TB) (*schema.Struct, arrow.RecordBatch) {
	t.Helper()
	sc := mustSchema(t, allTypesSchema)
	rec := batch(t, memory.DefaultAllocator, sc, allTypesRows)
	t.Cleanup(rec.Release)
	return sc, rec
}

// evalChecked evaluates b on rec with a checked allocator and returns the
// result rendered by render (nothing when render is nil or evaluation
// fails); everything the evaluation allocated must be released after.
func evalChecked(t *testing.T, b *Bound, rec arrow.RecordBatch, render func(arrow.Array) string) (string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	arr, err := b.Eval(exec.WithAllocator(context.Background(), mem), rec)
	if err != nil {
		return "", err
	}
	defer arr.Release()
	if render == nil {
		return "", nil
	}
	return render(arr), nil
}

// maskString renders a boolean array as T, F and N (null) per row.
func maskString(a arrow.Array) string {
	b := a.(*array.Boolean)
	var sb strings.Builder
	for i := 0; i < b.Len(); i++ {
		switch {
		case b.IsNull(i):
			sb.WriteByte('N')
		case b.Value(i):
			sb.WriteByte('T')
		default:
			sb.WriteByte('F')
		}
	}
	return sb.String()
}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func decimalOfInt(n int64) decimal128.Num { return decimal128.FromI64(n) }
