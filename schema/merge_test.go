package schema

import (
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	table := mustParse(t, `{"type":"struct","fields":[
		{"name":"id","type":"long","nullable":false,"metadata":{}},
		{"name":"s","type":{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`)
	source := mustParse(t, `{"type":"struct","fields":[
		{"name":"ID","type":"integer","nullable":true,"metadata":{}},
		{"name":"s","type":{"type":"struct","fields":[{"name":"b","type":"string","nullable":false,"metadata":{}}]},"nullable":true,"metadata":{}},
		{"name":"extra","type":"date","nullable":false,"metadata":{}}]}`)
	got, changed, err := Merge(table, source, MergeOptions{})
	if err != nil || !changed {
		t.Fatalf("Merge: %v, changed=%v", err, changed)
	}
	if want := "struct<id:long,s:struct<a:integer,b:string>,extra:date>"; got.String() != want {
		t.Errorf("merged %s, want %s", got, want)
	}
	if !got.Field("id").Nullable || !got.Field("extra").Nullable {
		t.Errorf("nullability not relaxed: %s", got.JSON())
	}
	if table.Field("id").Nullable || len(table.Fields) != 2 {
		t.Errorf("Merge modified its input")
	}
	if _, changed, err := Merge(table, table, MergeOptions{}); err != nil || changed {
		t.Errorf("merge with itself: changed=%v err=%v", changed, err)
	}
	wider := mustParse(t, `{"type":"struct","fields":[{"name":"s","type":"string","nullable":true,"metadata":{}}]}`)
	if _, _, err := Merge(table, wider, MergeOptions{}); err == nil || !strings.Contains(err.Error(), `column "s"`) {
		t.Errorf("struct vs string: %v", err)
	}
}

func mustParse(t *testing.T, s string) *Struct {
	t.Helper()
	sc, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
