package datafile

import (
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

func TestHasMinMax(t *testing.T) {
	sc, err := schema.Parse(`{"type":"struct","fields":[
		{"name":"p","type":"string","nullable":true,"metadata":{}},
		{"name":"a","type":"long","nullable":true,"metadata":{}},
		{"name":"b","type":"string","nullable":true,"metadata":{}},
		{"name":"c","type":"binary","nullable":true,"metadata":{}},
		{"name":"d","type":"date","nullable":true,"metadata":{}},
		{"name":"s","type":{"type":"struct","fields":[
			{"name":"x","type":"integer","nullable":true,"metadata":{}},
			{"name":"y","type":"binary","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		props protocol.Properties
		want  map[string]bool
	}{
		// p is a partition column: not in files, not counted.
		{protocol.Properties{protocol.PropDataSkippingNumIndexedCols: "2"}, map[string]bool{"p": false, "a": true, "B": true, "c": false, "d": false}},
		{protocol.Properties{}, map[string]bool{"a": true, "b": true, "c": false, "d": true, "nope": false,
			"s.x": true, "S.X": true, "s.y": false, "s": false, "s.nope": false, "a.x": false}},
		// Nested leaves count towards the indexed columns: s.x is the fifth.
		{protocol.Properties{protocol.PropDataSkippingNumIndexedCols: "4"}, map[string]bool{"d": true, "s.x": false}},
		{protocol.Properties{protocol.PropDataSkippingNumIndexedCols: "5"}, map[string]bool{"s.x": true}},
		{protocol.Properties{protocol.PropDataSkippingStatsColumns: "d,c"}, map[string]bool{"a": false, "c": false, "d": true, "s.x": false}},
		{protocol.Properties{protocol.PropDataSkippingStatsColumns: "s"}, map[string]bool{"a": false, "s.x": true}},
		{protocol.Properties{protocol.PropStringPrefixLength: "0"}, map[string]bool{"a": true, "b": false}},
	} {
		for col, want := range tc.want {
			path, err := schema.ParseColumnPath(col)
			if err != nil {
				t.Fatal(err)
			}
			got, err := HasMinMax(sc, []string{"P"}, schema.MappingNone, tc.props, path)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%v: column %s has min/max = %v, want %v", tc.props, col, got, want)
			}
		}
	}
	if _, err := HasMinMax(sc, nil, schema.MappingNone, protocol.Properties{protocol.PropDataSkippingNumIndexedCols: "x"}, []string{"a"}); err == nil {
		t.Error("a bad property accepted")
	}
}
