package stats

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// commits returns the last schema and column mapping mode, and all adds, of
// a conformance table's JSON commits.
func commits(t *testing.T, table string) (*schema.Struct, schema.Mode, []*protocol.Add) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(corpus.Path(t, table), "_delta_log", "0*.json"))
	if len(files) == 0 {
		t.Fatalf("conformance table %s has no commits", table)
	}
	var actions []protocol.Action
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		as, err := protocol.DecodeCommit(data)
		if err != nil {
			t.Fatal(err)
		}
		actions = append(actions, as...)
	}
	var err error
	var sc *schema.Struct
	mode := schema.MappingNone
	var adds []*protocol.Add
	for _, a := range actions {
		if a.Metadata != nil {
			if sc, err = schema.Parse(a.Metadata.SchemaString); err != nil {
				t.Fatal(err)
			}
			if mode, err = schema.ParseMode(a.Metadata.Configuration["delta.columnMapping.mode"]); err != nil {
				t.Fatal(err)
			}
		}
		if a.Add != nil {
			adds = append(adds, a.Add)
		}
	}
	if sc == nil || len(adds) == 0 {
		t.Fatalf("%s: no metadata or no adds", table)
	}
	return sc, mode, adds
}

func TestParseAllPrimitiveTypes(t *testing.T) {
	sc, mode, adds := commits(t, "dat/all_primitive_types/delta")
	f := Parse(adds[0].Stats, sc, mode)
	if f.NumRecords != 5 || !f.TightBounds {
		t.Fatalf("numRecords=%d tight=%v, want 5 true", f.NumRecords, f.TightBounds)
	}
	intv := func(n int64) Value { return Value{Kind: Int, Int: n} }
	cases := []struct {
		col      string
		min, max Value
		nulls    int64
	}{
		{"utf8", Value{Kind: Bytes, Bytes: "0"}, Value{Kind: Bytes, Bytes: "4"}, 0},
		{"int64", intv(0), intv(4), 0},
		{"int8", intv(0), intv(4), 0},
		{"float32", Value{Kind: Float, Float: 0}, Value{Kind: Float, Float: 4}, 0},
		{"date32", intv(0), intv(4), 0},
		// 04:00 is 14_400_000_000 µs; the max gains 999 µs of slack.
		{"timestamp", intv(0), intv(14_400_000_000 + 999), 0},
		// binary and boolean have a null count but no bounds.
		{"binary", Value{}, Value{}, 0},
		{"bool", Value{}, Value{}, 0},
	}
	for _, c := range cases {
		got := f.Column(c.col)
		if got.Min != c.min || got.Max != c.max || got.NullCount != c.nulls {
			t.Errorf("%s: got min=%v max=%v nulls=%d, want %v %v %d", c.col, got.Min, got.Max, got.NullCount, c.min, c.max, c.nulls)
		}
	}
	dec := f.Column("decimal")
	if dec.Min.Kind != Decimal || dec.Min.Decimal.ToString(3) != "10.000" || dec.Max.Decimal.ToString(3) != "14.000" {
		t.Errorf("decimal bounds %v %v", dec.Min, dec.Max)
	}
}

func TestParseColumnMappingUsesPhysicalNames(t *testing.T) {
	sc, mode, adds := commits(t, "dat/column_mapping/delta")
	if mode != schema.MappingName {
		t.Fatalf("mode %q", mode)
	}
	f := Parse(adds[0].Stats, sc, mode)
	found := 0
	for _, fld := range sc.Fields {
		c := f.Column(fld.Name)
		if c.NullCount != 0 || !c.Min.Known() || !c.Max.Known() {
			t.Errorf("column %q (physical %q): %+v", fld.Name, fld.PhysicalName(mode), c)
			continue
		}
		found++
	}
	if found != len(sc.Fields) {
		t.Fatalf("found stats for %d of %d columns", found, len(sc.Fields))
	}
}

func TestParseNestedStruct(t *testing.T) {
	sc, mode, adds := commits(t, "dat/nested_types/delta")
	f := Parse(adds[0].Stats, sc, mode)
	c := f.Column("struct", "float64")
	if c.Min != (Value{Kind: Float, Float: 0}) || c.Max != (Value{Kind: Float, Float: 4}) || c.NullCount != 0 {
		t.Fatalf("struct.float64: %+v", c)
	}
	if c := f.Column("struct", "bool"); c.NullCount != 0 || c.Min.Known() {
		t.Fatalf("struct.bool: %+v", c)
	}
	if c := f.Column("pk"); c.Max != (Value{Kind: Int, Int: 4}) {
		t.Fatalf("pk: %+v", c)
	}
}

func TestParseLenient(t *testing.T) {
	sc, err := schema.Parse(`{"type":"struct","fields":[
		{"name":"a","type":"long","nullable":true,"metadata":{}},
		{"name":"f","type":"float","nullable":true,"metadata":{}},
		{"name":"d","type":"decimal(5,2)","nullable":true,"metadata":{}},
		{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},
		{"name":"ntz","type":"timestamp_ntz","nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"", "not json", `{"numRecords":"x"}`, `[]`} {
		f := Parse(raw, sc, schema.MappingNone)
		if f.NumRecords != -1 || f.Column("a") != unknownColumn {
			t.Errorf("%q: %+v", raw, f)
		}
	}
	f := Parse(`{"numRecords":3.0,"tightBounds":false,
		"minValues":{"a":"seven","f":0.1,"d":1.234,"ts":"2021-01-01T00:00:00.000+01:00","ntz":"2021-01-01T00:00:00.5"},
		"maxValues":{"a":{"x":1},"f":"NaN","d":"9.5","ts":"nope","ntz":"2021-01-01T00:00:01.000"},
		"nullCount":{"a":-1,"f":1}}`, sc, schema.MappingNone)
	if f.NumRecords != 3 || f.TightBounds {
		t.Fatalf("numRecords=%d tight=%v", f.NumRecords, f.TightBounds)
	}
	if c := f.Column("a"); c != unknownColumn {
		t.Errorf("a: %+v", c)
	}
	if c := f.Column("f"); c.Min.Float != float64(float32(0.1)) || c.Max.Known() || c.NullCount != 1 {
		t.Errorf("f: %+v", c)
	}
	if c := f.Column("d"); c.Min.Known() || c.Max.Decimal.ToString(2) != "9.50" {
		t.Errorf("d (too many digits is unknown): %+v", c)
	}
	if c := f.Column("ts"); c.Min.Int != 1609455600_000_000 || c.Max.Known() {
		t.Errorf("ts: %+v", c)
	}
	if c := f.Column("ntz"); c.Min.Int != 1609459200_500_000 || c.Max.Int != 1609459201_000_999 {
		t.Errorf("ntz: %+v", c)
	}
	var nilFile *File
	if nilFile.Column("a") != unknownColumn {
		t.Error("nil File knows something")
	}
}

func TestTimestampSlackSaturates(t *testing.T) {
	sc, _ := schema.Parse(`{"type":"struct","fields":[{"name":"ts","type":"timestamp","nullable":true,"metadata":{}}]}`)
	// The edge-timestamps table of delta-rs writes year 9999 bounds.
	f := Parse(`{"numRecords":1,"maxValues":{"ts":"9999-12-31T23:59:59.999Z"}}`, sc, schema.MappingNone)
	if got := f.Column("ts").Max.Int; got != 253402300799_999_000+999 {
		t.Fatalf("max %d", got)
	}
	if math.MaxInt64-timestampSlackMicros < 0 {
		t.Fatal("unreachable")
	}
}

func TestLoosened(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"numRecords":3,"minValues":{"a":1}}`, `{"minValues":{"a":1},"numRecords":3,"tightBounds":false}`},
		{``, `{"numRecords":7,"tightBounds":false}`},
		{`not json`, `{"numRecords":7,"tightBounds":false}`},
		{`{"tightBounds":true,"numRecords":9}`, `{"numRecords":9,"tightBounds":false}`},
	} {
		if got := Loosened(c.raw, 7); got != c.want {
			t.Errorf("Loosened(%q) = %s, want %s", c.raw, got, c.want)
		}
	}
}
