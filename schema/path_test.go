package schema

import (
	"slices"
	"strings"
	"testing"
)

func TestColumnPaths(t *testing.T) {
	for text, want := range map[string][]string{
		"a":           {"a"},
		" s.a ":       {"s", "a"},
		"`a.b`.c":     {"a.b", "c"},
		"`x``y`.`z`":  {"x`y", "z"},
		"`my col`.id": {"my col", "id"},
	} {
		got, err := ParseColumnPath(text)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseColumnPath(%q) = %q, %v; want %q", text, got, err, want)
			continue
		}
		if back, err := ParseColumnPath(QuoteColumnPath(got)); err != nil || !slices.Equal(back, want) {
			t.Errorf("%q quoted as %q reads back as %q, %v", want, QuoteColumnPath(got), back, err)
		}
	}
	for _, bad := range []string{"", "a,b", "s.", "`a", "`a`b"} {
		if _, err := ParseColumnPath(bad); err == nil {
			t.Errorf("ParseColumnPath(%q) accepted", bad)
		}
	}
	sc, err := Parse(`{"type":"struct","fields":[
		{"name":"id","type":"long","nullable":true,"metadata":{}},
		{"name":"a.b","type":"long","nullable":true,"metadata":{}},
		{"name":"s","type":{"type":"struct","fields":[{"name":"A","type":"long","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.b": "a.b", "s.a": "s/A", "`s`.`A`": "s/A", "id": "id",
		"s.x": `struct s has no field "x"`, "id.x": "id is not a struct", "t.x": `no such column "t"`} {
		fields, err := sc.ColumnPath(name)
		var got string
		if err != nil {
			got = err.Error()
		} else {
			for _, f := range fields {
				got += "/" + f.Name
			}
			got = got[1:]
		}
		if !strings.Contains(got, want) {
			t.Errorf("ColumnPath(%q) = %s, want %s", name, got, want)
		}
	}
}
