package stats

import (
	"math"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
)

func TestParseValueAndCompare(t *testing.T) {
	typ := func(s string) schema.Type {
		sc, err := schema.Parse(`{"type":"struct","fields":[{"name":"x","type":"` + s + `","nullable":true,"metadata":{}}]}`)
		if err != nil {
			t.Fatal(err)
		}
		return sc.Fields[0].Type
	}
	cases := []struct {
		typ, a, b string
		want      int
	}{
		{"long", "9", "10", -1},
		{"integer", "-5", "-5", 0},
		{"double", "1.5", "1.25", 1},
		{"string", "b", "ab", 1},
		{"string", "", "a", -1},
		{"date", "2021-01-02", "2020-12-31", 1},
		{"timestamp", "2021-09-08 11:11:11", "2021-09-08T11:11:11.000001Z", -1},
		{"decimal(10,2)", "1.5", "1.50", 0},
		{"decimal(10,2)", "-3", "2.99", -1},
		{"boolean", "false", "true", -1},
	}
	for _, c := range cases {
		a, err := ParseValue(typ(c.typ), c.a)
		if err != nil {
			t.Fatalf("%s %q: %v", c.typ, c.a, err)
		}
		b, err := ParseValue(typ(c.typ), c.b)
		if err != nil {
			t.Fatalf("%s %q: %v", c.typ, c.b, err)
		}
		got, ok := Compare(a, b)
		if !ok || got != c.want {
			t.Errorf("%s: compare(%q, %q) = %d, %v; want %d", c.typ, c.a, c.b, got, ok, c.want)
		}
	}
	for _, bad := range [][2]string{{"long", ""}, {"long", "x"}, {"integer", "3000000000"}, {"date", "2021-13-01"}, {"decimal(3,1)", "1.25"}} {
		if _, err := ParseValue(typ(bad[0]), bad[1]); err == nil {
			t.Errorf("%s %q parsed", bad[0], bad[1])
		}
	}
	if _, ok := Compare(Value{Kind: Float, Float: math.NaN()}, Value{Kind: Float}); ok {
		t.Error("NaN ordered")
	}
	if _, ok := Compare(Value{Kind: Int}, Value{Kind: Float}); ok {
		t.Error("mixed kinds ordered")
	}
	if _, ok := Compare(Value{}, Value{}); ok {
		t.Error("unknown ordered")
	}
}
