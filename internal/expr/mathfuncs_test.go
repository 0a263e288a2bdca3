package expr

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// mathExprs are checked bit for bit against Spark over mathSample.
var mathExprs = []string{`exp(x)`, `ln(x)`, `log(x)`, `log(y, x)`, `log2(x)`, `log10(x)`, `log10(y)`, `cbrt(x)`, `cbrt(y)`, `expm1(x)`, `log1p(x)`, `atanh(x / 10)`,
	`degrees(x)`, `radians(x)`, `rint(x)`, `exp(y)`, `log2(y)`,
	`pow(x, y)`, `power(y, x)`, `pow(x, 2)`, `pow(x, 0.5)`, `pow(x, -1)`, `pow(x, 3)`, `pow(-x, y)`, `pow(x, x)`, `pow(2, y)`,
	`pow(1 + x / 1e8, 1e9 * y)`, `pow(x, rint(y))`, `pow(x, rint(y) + 0.5)`, `pow(10, rint(x))`, `pow(x, 1e20)`, `pow(x, -1e20)`}

// mathSample is thousands of doubles: edges (zeros, NaN, infinities,
// subnormals, the overflow and underflow thresholds of exp) and random
// values of every magnitude; y pairs each with a base.
func mathSample() (xs, ys []float64) {
	xs = []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1, -1, 0.5, 2, 10, 1e-300, 5e-324,
		1e300, math.MaxFloat64, math.Pi, math.Pi / 2, math.E, 709.78, 709.79, -745.1, -745.2, 710, 1e-8, 0.1, 0.7, 100,
		1e10, 0.34657359027997264, 1.0397207708399179, 3.725290298461914e-09, 1 + 1e-7, 1 - 1e-7, 2.5, 1e-310}
	r := rand.New(rand.NewSource(7))
	for range 700 {
		xs = append(xs, r.Float64()*20-10)
	}
	for range 400 {
		xs = append(xs, r.Float64())
	}
	for range 500 {
		xs = append(xs, math.Ldexp(0.5+r.Float64()/2, r.Intn(2094)-1070)*float64(1-2*r.Intn(2)))
	}
	for range 200 {
		xs = append(xs, r.Float64()*2000-1000)
	}
	bases := []float64{0.5, 2, 3, -1, 0, 10, 1.5, math.NaN(), math.Inf(1), 1, -0.5, math.Inf(-1), -2, -3, 1e300, 4, math.Copysign(0, -1), 1e-310, 1075, -1074}
	for i := range xs {
		if i%3 == 0 {
			ys = append(ys, bases[i%len(bases)])
		} else {
			ys = append(ys, r.Float64()*40-20)
		}
	}
	return xs, ys
}

// Spark 4 computes the same doubles, to the last bit, as this package
// for exp, ln / log, log2, log10, cbrt, expm1, log1p, atanh, degrees, radians, rint
// and pow (integers, halves, negatives, subnormals, overflow, NaN and the infinities).
func TestMathAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	xs, ys := mathSample()
	sc := &schema.Struct{Fields: []*schema.Field{
		{Name: "n", Type: tInt, Nullable: true}, {Name: "x", Type: tDouble, Nullable: true}, {Name: "y", Type: tDouble, Nullable: true}}}
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer rb.Release()
	lit := func(v float64) string {
		switch {
		case math.IsNaN(v):
			return "CAST('NaN' AS DOUBLE)"
		case math.IsInf(v, 0):
			return fmt.Sprintf("CAST('%s' AS DOUBLE)", map[bool]string{true: "Infinity", false: "-Infinity"}[v > 0])
		}
		return strconv.FormatFloat(v, 'e', -1, 64) + "D"
	}
	var vals []string
	for i := range xs {
		rb.Field(0).(*array.Int32Builder).Append(int32(i))
		rb.Field(1).(*array.Float64Builder).Append(xs[i])
		rb.Field(2).(*array.Float64Builder).Append(ys[i])
		vals = append(vals, fmt.Sprintf("(%d, %s, %s)", i, lit(xs[i]), lit(ys[i])))
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	var sel []string
	for i, e := range mathExprs {
		sel = append(sel, fmt.Sprintf("%s AS v%d", e, i))
	}
	q := "SELECT n, " + strings.Join(sel, ", ") + " FROM VALUES " + strings.Join(vals, ", ") + " AS t(n, x, y)"
	rows := sparkRows(t, s, q, len(xs))
	for i, e := range mathExprs {
		b, err := BindValue(mustParse(t, e), map[string]*schema.Struct{"": sc})
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		arr, err := b.Eval(context.Background(), rec)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		ours := arr.(*array.Float64)
		bad := 0
		for n, row := range rows {
			theirs, null := sparkDouble(t, row[fmt.Sprintf("v%d", i)])
			same := null == ours.IsNull(n)
			if same && !null {
				o := ours.Value(n)
				same = math.Float64bits(o) == math.Float64bits(theirs) || math.IsNaN(o) && math.IsNaN(theirs)
			}
			if !same && bad < 3 {
				t.Errorf("%s at x=%v y=%v: here %v (null %v), Spark %v (null %v)", e, xs[n], ys[n], ours.Value(n), ours.IsNull(n), theirs, null)
			}
			if !same {
				bad++
			}
		}
		arr.Release()
		if bad > 0 {
			t.Errorf("%s: %d of %d values differ", e, bad, len(xs))
		}
	}
}

// sparkDouble reads a double of a Spark row: a JSON number, or NaN and
// the infinities as text; null for NULL.
func sparkDouble(t *testing.T, v any) (float64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, true
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			t.Fatal(err)
		}
		return f, false
	case float64:
		return x, false
	case string:
		switch x {
		case "NaN":
			return math.NaN(), false
		case "Infinity":
			return math.Inf(1), false
		case "-Infinity":
			return math.Inf(-1), false
		}
	}
	t.Fatalf("not a double: %T %v", v, v)
	return 0, false
}

// The functions whose last bit this engine does not reproduce are
// refused by name.
func TestMathRefusals(t *testing.T) {
	sc := &schema.Struct{Fields: []*schema.Field{{Name: "x", Type: tDouble, Nullable: true}}}
	for _, e := range []string{`sin(x)`, `cos(x)`, `hypot(x, 1)`, `atan2(x, 1)`, `tanh(x)`} {
		_, err := BindValue(mustParse(t, e), map[string]*schema.Struct{"": sc})
		if err == nil || !strings.Contains(err.Error(), "whose last bit this engine does not reproduce") {
			t.Errorf("%s: %v", e, err)
		}
	}
}
