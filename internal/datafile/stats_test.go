package datafile

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// statsOf writes rows in one file and returns its stats string.
func statsOf(t *testing.T, sc *schema.Struct, props protocol.Properties, rows string) string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := batch(t, mem, sc, rows)
	defer rec.Release()
	adds := writeAll(t, storage.NewMemory(), Options{Schema: sc, Properties: props, Allocator: mem}, rec)
	if len(adds) != 1 {
		t.Fatalf("%d files, want 1", len(adds))
	}
	if !json.Valid([]byte(adds[0].Stats)) {
		t.Fatalf("stats are not JSON: %s", adds[0].Stats)
	}
	return adds[0].Stats
}

func TestStatsHandComputed(t *testing.T) {
	sc := mustSchema(t, fields("id long not null", "name string", "score double", "day date", "ts timestamp",
		"ntz timestamp_ntz", "dec decimal(5,2)", "flag boolean", "bin binary",
		`tags {"type":"array","elementType":"string","containsNull":true}`,
		`s {"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}}]}`))
	got := statsOf(t, sc, nil, `[
	{"id":3,"name":"banana","score":2.5,"day":"2024-01-02","ts":"2024-01-02T03:04:05.123456Z","ntz":"2024-01-02T03:04:05.1239","dec":"1.50","flag":true,"bin":"AA==","tags":["x"],"s":{"a":5,"b":"q"}},
	{"id":-7,"name":"apple","score":-0.5,"day":"1999-12-31","ts":"1969-12-31T23:59:59.9995Z","ntz":"2024-01-02T03:04:05","dec":"-3.25","flag":true,"bin":null,"tags":null,"s":null},
	{"id":10,"name":null,"score":null,"day":null,"ts":null,"ntz":null,"dec":null,"flag":null,"bin":"AQ==","tags":[],"s":{"a":null,"b":"r"}}
	]`)
	want := `{"numRecords":3,` +
		`"minValues":{"id":-7,"name":"apple","score":-0.5,"day":"1999-12-31","ts":"1969-12-31T23:59:59.999Z","ntz":"2024-01-02T03:04:05.000","dec":-3.25,"flag":true,"s":{"a":5,"b":"q"}},` +
		`"maxValues":{"id":10,"name":"banana","score":2.5,"day":"2024-01-02","ts":"2024-01-02T03:04:05.124Z","ntz":"2024-01-02T03:04:05.124","dec":1.50,"flag":true,"s":{"a":5,"b":"r"}},` +
		`"nullCount":{"id":0,"name":1,"score":1,"day":1,"ts":1,"ntz":1,"dec":1,"flag":1,"bin":1,"tags":1,"s":{"a":2,"b":1}}}`
	if got != want {
		t.Fatalf("stats\n got  %s\n want %s", got, want)
	}
	// The stats package reads back what was written.
	f := stats.Parse(got, sc, schema.MappingNone)
	if f.NumRecords != 3 || !f.TightBounds {
		t.Fatalf("parsed %+v", f)
	}
	checks := []struct {
		col      []string
		min, max stats.Value
		nulls    int64
	}{
		{[]string{"id"}, stats.Value{Kind: stats.Int, Int: -7}, stats.Value{Kind: stats.Int, Int: 10}, 0},
		{[]string{"name"}, stats.Value{Kind: stats.Bytes, Bytes: "apple"}, stats.Value{Kind: stats.Bytes, Bytes: "banana"}, 1},
		{[]string{"score"}, stats.Value{Kind: stats.Float, Float: -0.5}, stats.Value{Kind: stats.Float, Float: 2.5}, 1},
		{[]string{"day"}, stats.Value{Kind: stats.Int, Int: 10956}, stats.Value{Kind: stats.Int, Int: 19724}, 1},
		// The reader widens a maximum by 999 µs of truncation slack.
		{[]string{"ts"}, stats.Value{Kind: stats.Int, Int: -1000}, stats.Value{Kind: stats.Int, Int: 1704164645124000 + 999}, 1},
		{[]string{"s", "a"}, stats.Value{Kind: stats.Int, Int: 5}, stats.Value{Kind: stats.Int, Int: 5}, 2},
		{[]string{"bin"}, stats.Value{}, stats.Value{}, 1},
	}
	for _, c := range checks {
		col := f.Column(c.col...)
		if col.Min != c.min || col.Max != c.max || col.NullCount != c.nulls {
			t.Errorf("%v: got %v %v %d, want %v %v %d", c.col, col.Min, col.Max, col.NullCount, c.min, c.max, c.nulls)
		}
	}
	if d := f.Column("dec"); d.Min.Decimal.ToString(2) != "-3.25" || d.Max.Decimal.ToString(2) != "1.50" {
		t.Errorf("dec: %v %v", d.Min, d.Max)
	}
}

func TestStatsStringTruncation(t *testing.T) {
	sc := mustSchema(t, fields("s string"))
	props := protocol.Properties{protocol.PropStringPrefixLength: "3"}
	cases := []struct {
		name     string
		values   []string
		min, max string // "" when absent
	}{
		{"short values exact", []string{"abd", "ab", "abcdef"}, "ab", "abd"},
		{"cut max bumped", []string{"zzzz", "a"}, "a", "zz{"},
		{"cut max shared prefix", []string{"abc", "abcd"}, "abc", "abd"},
		{"runes not bytes", []string{"😀😀😀😀", "😀😀😀"}, "😀😀😀", "😀😀😁"},
		{"max rune carries", []string{"a\U0010FFFF\U0010FFFFx"}, "a\U0010FFFF\U0010FFFF", "b"},
		{"all max runes", []string{"\U0010FFFF\U0010FFFF\U0010FFFF\U0010FFFF"}, "\U0010FFFF\U0010FFFF\U0010FFFF", ""},
		{"surrogates skipped", []string{"\uD7FF\uD7FF\uD7FF\uD7FF"}, "\uD7FF\uD7FF\uD7FF", "\uD7FF\uD7FF\uE000"},
		{"invalid utf8 omitted", []string{"\xff\xfe"}, "", ""},
		{"empty string", []string{""}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewGoAllocator()
			b := array.NewStringBuilder(mem)
			b.AppendValues(c.values, nil)
			arr := b.NewArray()
			as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
			rec := array.NewRecordBatch(as, []arrow.Array{arr}, int64(arr.Len()))
			adds := writeAll(t, storage.NewMemory(), Options{Schema: sc, Properties: props}, rec)
			var got struct {
				MinValues map[string]*string
				MaxValues map[string]*string
			}
			if err := json.Unmarshal([]byte(adds[0].Stats), &got); err != nil {
				t.Fatal(err)
			}
			check := func(what string, v *string, want string) {
				if c.name == "empty string" {
					if v == nil || *v != "" {
						t.Errorf("%s: %v, want empty string", what, v)
					}
					return
				}
				switch {
				case want == "" && v != nil:
					t.Errorf("%s = %q, want none", what, *v)
				case want != "" && (v == nil || *v != want):
					t.Errorf("%s = %v, want %q (stats %s)", what, v, want, adds[0].Stats)
				}
			}
			check("min", got.MinValues["s"], c.min)
			check("max", got.MaxValues["s"], c.max)
			// Every value lies within the bounds written.
			for _, v := range c.values {
				if m := got.MinValues["s"]; m != nil && v < *m {
					t.Errorf("value %q below min %q", v, *m)
				}
				if m := got.MaxValues["s"]; m != nil && v > *m {
					t.Errorf("value %q above max %q", v, *m)
				}
			}
		})
	}
}

func TestStatsFloatsAndTimestampsEdges(t *testing.T) {
	sc := mustSchema(t, fields("f float", "d double", "ts timestamp", "ntz timestamp_ntz", "day date"))
	mem := memory.NewGoAllocator()
	as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
	mk := func(f []float32, d []float64, ts, ntz []int64, days []int32) arrow.RecordBatch {
		fb := array.NewFloat32Builder(mem)
		fb.AppendValues(f, nil)
		db := array.NewFloat64Builder(mem)
		db.AppendValues(d, nil)
		tb := array.NewTimestampBuilder(mem, as.Field(2).Type.(*arrow.TimestampType))
		nb := array.NewTimestampBuilder(mem, as.Field(3).Type.(*arrow.TimestampType))
		for i := range ts {
			tb.Append(arrow.Timestamp(ts[i]))
			nb.Append(arrow.Timestamp(ntz[i]))
		}
		yb := array.NewDate32Builder(mem)
		for _, v := range days {
			yb.Append(arrow.Date32(v))
		}
		return array.NewRecordBatch(as, []arrow.Array{fb.NewArray(), db.NewArray(), tb.NewArray(), nb.NewArray(), yb.NewArray()}, int64(len(f)))
	}
	nan32 := float32(math.NaN())
	inf := math.Inf(1)
	cases := []struct {
		name     string
		rec      arrow.RecordBatch
		min, max map[string]any // absent keys: no bound
	}{
		{"nan drops the max", mk([]float32{nan32, 1, -3}, []float64{math.NaN(), 2, -4}, []int64{1, 2, 3}, []int64{1, 2, 3}, []int32{0, 1, 2}),
			map[string]any{"f": -3.0, "d": -4.0, "ts": "1970-01-01T00:00:00.000Z", "ntz": "1970-01-01T00:00:00.000", "day": "1970-01-01"},
			map[string]any{"ts": "1970-01-01T00:00:00.001Z", "ntz": "1970-01-01T00:00:00.001", "day": "1970-01-03"}},
		{"infinities left out, zeros widened", mk([]float32{0, float32(inf)}, []float64{math.Inf(-1), 0}, []int64{-1, -1}, []int64{-1000, -1000}, []int32{-1, -1}),
			map[string]any{"f": math.Copysign(0, -1), "ts": "1969-12-31T23:59:59.999Z", "ntz": "1969-12-31T23:59:59.999", "day": "1969-12-31"},
			map[string]any{"d": 0.0, "ts": "1970-01-01T00:00:00.000Z", "ntz": "1969-12-31T23:59:59.999", "day": "1969-12-31"}},
		{"years past 9999 left out", mk([]float32{1}, []float64{1}, []int64{253402300800000000}, []int64{-62135596800000001}, []int32{2932897}),
			map[string]any{"f": 1.0, "d": 1.0},
			// The maximum rounds up into year 1, which has a form.
			map[string]any{"f": 1.0, "d": 1.0, "ntz": "0001-01-01T00:00:00.000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			adds := writeAll(t, storage.NewMemory(), Options{Schema: sc}, c.rec)
			var got struct{ MinValues, MaxValues map[string]any }
			if err := json.Unmarshal([]byte(adds[0].Stats), &got); err != nil {
				t.Fatal(err)
			}
			for what, pair := range map[string][2]map[string]any{"min": {got.MinValues, c.min}, "max": {got.MaxValues, c.max}} {
				g, w := pair[0], pair[1]
				if len(g) != len(w) {
					t.Errorf("%s: got %v, want %v", what, g, w)
				}
				for k, wv := range w {
					gv, ok := g[k]
					if !ok || gv != wv {
						t.Errorf("%s %s: got %v, want %v", what, k, gv, wv)
					}
					if f, ok := wv.(float64); ok && f == 0 && math.Signbit(f) != math.Signbit(gv.(float64)) {
						t.Errorf("%s %s: sign of zero: got %v, want %v", what, k, gv, wv)
					}
				}
			}
		})
	}
}

func TestStatsColumnSelection(t *testing.T) {
	sc := mustSchema(t, fields("a long", `s {"type":"struct","fields":[{"name":"x","type":"long","nullable":true,"metadata":{}},{"name":"y.z","type":"long","nullable":true,"metadata":{}}]}`,
		"b long", "p string"))
	rows := `[{"a":1,"s":{"x":2,"y.z":3},"b":4,"p":"k"}]`
	cases := []struct {
		props protocol.Properties
		want  string
	}{
		{nil, `{"numRecords":1,"minValues":{"a":1,"s":{"x":2,"y.z":3},"b":4},"maxValues":{"a":1,"s":{"x":2,"y.z":3},"b":4},"nullCount":{"a":0,"s":{"x":0,"y.z":0},"b":0}}`},
		{protocol.Properties{protocol.PropDataSkippingNumIndexedCols: "2"},
			`{"numRecords":1,"minValues":{"a":1,"s":{"x":2}},"maxValues":{"a":1,"s":{"x":2}},"nullCount":{"a":0,"s":{"x":0}}}`},
		{protocol.Properties{protocol.PropDataSkippingNumIndexedCols: "0"}, `{"numRecords":1}`},
		{protocol.Properties{protocol.PropDataSkippingNumIndexedCols: "-1"},
			`{"numRecords":1,"minValues":{"a":1,"s":{"x":2,"y.z":3},"b":4},"maxValues":{"a":1,"s":{"x":2,"y.z":3},"b":4},"nullCount":{"a":0,"s":{"x":0,"y.z":0},"b":0}}`},
		// Named columns win over the count; backticks quote a dotted name;
		// names match case-insensitively; unknown names are ignored.
		{protocol.Properties{protocol.PropDataSkippingStatsColumns: "B, S.`y.z`, nope", protocol.PropDataSkippingNumIndexedCols: "0"},
			`{"numRecords":1,"minValues":{"s":{"y.z":3},"b":4},"maxValues":{"s":{"y.z":3},"b":4},"nullCount":{"s":{"y.z":0},"b":0}}`},
		{protocol.Properties{protocol.PropDataSkippingStatsColumns: "s"},
			`{"numRecords":1,"minValues":{"s":{"x":2,"y.z":3}},"maxValues":{"s":{"x":2,"y.z":3}},"nullCount":{"s":{"x":0,"y.z":0}}}`},
	}
	for _, c := range cases {
		mem := memory.NewGoAllocator()
		rec := batch(t, mem, sc, rows)
		adds := writeAll(t, storage.NewMemory(), Options{Schema: sc, Properties: c.props, PartitionColumns: []string{"p"}}, rec)
		if adds[0].Stats != c.want {
			t.Errorf("%v:\n got  %s\n want %s", c.props, adds[0].Stats, c.want)
		}
	}
	for _, bad := range []protocol.Properties{
		{protocol.PropDataSkippingNumIndexedCols: "-2"},
		{protocol.PropDataSkippingNumIndexedCols: "x"},
		{protocol.PropDataSkippingStatsColumns: "`a"},
		{protocol.PropDataSkippingStatsColumns: "a,,b"},
		{protocol.PropStringPrefixLength: "-1"},
	} {
		if _, err := NewWriter(t.Context(), storage.NewMemory(), Options{Schema: sc, Properties: bad}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
