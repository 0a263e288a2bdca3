package keyset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// column generators draw values from small domains so that keys repeat.
var genTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64,
	arrow.FixedWidthTypes.Boolean, dec, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.Binary,
}

var floats = []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1.5, -2.25}

func genValue(r *rand.Rand, dt arrow.DataType) any {
	if r.IntN(10) == 0 {
		return nil
	}
	switch dt.ID() {
	case arrow.INT64, arrow.INT32:
		return r.IntN(7) - 3
	case arrow.STRING, arrow.BINARY:
		return strings.Repeat("ab", r.IntN(3)) + string(rune('a'+r.IntN(3)))
	case arrow.FLOAT64:
		return floats[r.IntN(len(floats))]
	case arrow.BOOL:
		return r.IntN(2) == 0
	case arrow.DECIMAL128:
		return r.IntN(5) - 2
	}
	panic(dt)
}

// refKey is the reference identity of a tuple: delta-rs MERGE's equality
// spelled out independently of the set's encoding.
func refKey(vals []any) (string, bool) {
	var b strings.Builder
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			return "", false
		case float64:
			switch {
			case math.IsNaN(x):
				b.WriteString("NaN")
			case x == 0:
				b.WriteString("0") // -0.0 is 0.0
			default:
				fmt.Fprintf(&b, "%v", x)
			}
		default:
			fmt.Fprintf(&b, "%T:%q", v, fmt.Sprint(v))
		}
		b.WriteByte('|')
	}
	return b.String(), true
}

// checkAgainstMap inserts random tuples into a Set and a map and probes
// both with more random tuples; they must agree on every answer.
func checkAgainstMap(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ncols := r.IntN(4)
	types := make([]arrow.DataType, ncols)
	for i := range types {
		types[i] = genTypes[r.IntN(len(genTypes))]
	}
	rows := 1 + r.IntN(300)
	gen := func() ([]arrow.Array, [][]any) {
		tuples := make([][]any, rows)
		cols := make([]arrow.Array, ncols)
		for j, dt := range types {
			vals := make([]any, rows)
			for i := range vals {
				vals[i] = genValue(r, dt)
			}
			cols[j] = build(t, dt, vals...)
			for i := range tuples {
				tuples[i] = append(tuples[i], vals[i])
			}
		}
		return cols, tuples
	}
	s, err := New(types, r.IntN(50))
	if err != nil {
		t.Fatal(err)
	}
	ref := map[string]int{}
	cols, tuples := gen()
	b, err := s.Bind(cols)
	if err != nil {
		t.Fatal(err)
	}
	for i, tup := range tuples {
		if ncols == 0 {
			tup = nil
		}
		e, added, err := b.Insert(i)
		if err != nil {
			t.Fatal(err)
		}
		k, ok := refKey(tup)
		if !ok {
			if e != -1 || added {
				t.Fatalf("seed %d: null tuple %v inserted as %d", seed, tup, e)
			}
			continue
		}
		want, seen := ref[k]
		if !seen {
			want = len(ref)
			ref[k] = want
		}
		if e != want || added == seen {
			t.Fatalf("seed %d types %v: insert %v = %d,%v; want %d,%v", seed, types, tup, e, added, want, !seen)
		}
	}
	if s.Len() != len(ref) {
		t.Fatalf("seed %d: Len %d, map %d", seed, s.Len(), len(ref))
	}
	probe, ptuples := gen()
	pb, err := s.Bind(probe)
	if err != nil {
		t.Fatal(err)
	}
	for i, tup := range ptuples {
		if ncols == 0 {
			tup = nil
		}
		want := -1
		if k, ok := refKey(tup); ok {
			if e, seen := ref[k]; seen {
				want = e
			}
		}
		if got := pb.Find(i); got != want {
			t.Fatalf("seed %d types %v: find %v = %d, want %d", seed, types, tup, got, want)
		}
	}
	for _, c := range append(cols, probe...) {
		c.Release()
	}
}

func TestAgainstMap(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		checkAgainstMap(t, seed)
	}
}

func FuzzAgainstMap(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkAgainstMap(t, seed) })
}
