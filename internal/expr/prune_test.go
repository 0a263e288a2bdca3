package expr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

const partSchema = `{"type":"struct","fields":[
{"name":"day","type":"date","nullable":true,"metadata":{}},
{"name":"region","type":"string","nullable":true,"metadata":{}},
{"name":"n","type":"integer","nullable":true,"metadata":{}},
{"name":"id","type":"long","nullable":true,"metadata":{}},
{"name":"mapped","type":"string","nullable":true,"metadata":{"delta.columnMapping.physicalName":"col-123"}}]}`

func tri(t Tristate) string { return t.String()[:1] }

func TestEvalPartition(t *testing.T) {
	sc := mustSchema(t, partSchema)
	files := []map[string]string{
		{"day": "2026-01-01", "region": "eu", "n": "1", "col-123": "x"},
		{"day": "2026-01-02", "region": "", "n": "3", "col-123": ""},
		{"day": "", "region": "us", "n": "", "col-123": "y"},
		{"day": "2026-01-01", "region": "EU", "n": "abc"}, // n does not parse; mapped absent
	}
	cases := []struct{ pred, want string }{
		{`day = '2026-01-01'`, "tfft"},
		{`day = "2026-01-01" AND id > 5`, "uffu"},
		{`day = '2026-01-01' OR id > 5`, "tuut"},
		{`day >= '2026-01-02' OR day IS NULL`, "fttf"},
		{`region IS NULL`, "ftff"},
		{`NOT (region = 'eu')`, "fftt"},
		{`region != 'eu'`, "fftt"},
		{`region <=> NULL`, "ftff"},
		{`lower(region) = 'eu'`, "tfft"},
		{`region ILIKE 'e%'`, "tfft"},
		{`coalesce(region, 'none') = 'none'`, "ftff"},
		{`n IN (1, 2, NULL)`, "tffu"},
		{`n NOT IN (1, NULL)`, "ffff"},
		{`n IN (1, 2)`, "tffu"},
		{`n + 1 = 2`, "tffu"},
		{`n BETWEEN 1 AND 3 AND day IS NOT NULL`, "ttfu"},
		{`id > 5`, "uuuu"},
		{`day = '2026-01-01' AND NOT (id > 5 AND id <= 5)`, "uffu"},
		{`mapped = 'x'`, "tffu"},
		{`(day = '2026-01-01') IS NOT TRUE`, "fttf"},
		{`day = '2026-01-01' AND (id > 5) IS NULL`, "uffu"},
		{`1 = 1`, "tttt"},
		{`NULL`, "ffff"},
		{`day + 1 = '2026-01-02'`, "tfft"},
		{`year(day) = 2026 AND month(day) = 1 AND day(day) = 2`, "ftff"},
		// CASE and IF on partition columns decide; with a data column they stay unknown
		{`CASE WHEN region = 'eu' THEN n > 0 ELSE false END`, "tfff"},
		{`CASE region WHEN 'us' THEN 'west' WHEN 'eu' THEN 'east' END = 'east'`, "tfff"},
		{`if(day IS NULL, 'none', region) = 'none'`, "fftf"},
		{`CASE WHEN id > 5 THEN true ELSE true END`, "uuuu"},
		{`CASE WHEN day IS NULL THEN id > 5 ELSE false END`, "uuuu"},
		{`greatest(n, 2) = 3 AND date_add(day, 1) = '2026-01-03'`, "ftff"},
	}
	for _, c := range cases {
		p := mustCompile(t, c.pred, map[string]*schema.Struct{"": sc})
		var got string
		for _, pv := range files {
			got += strings.ToLower(tri(EvalPartition(p, pv)))
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.pred, got, c.want)
		}
	}
}

// statsFile parses add-action statistics for a schema without mapping.
func statsFile(sc *schema.Struct, js string) *stats.File {
	return stats.Parse(js, sc, schema.MappingNone)
}

func TestCanSkipStats(t *testing.T) {
	sc, _ := allTypes(t)
	full := `{"numRecords":10,"minValues":{"i8":-5,"i16":10,"i32":100,"i64":-100,"f32":1.0,"f64":-1.5,"dec":"1.50","s":"bar","d":"2026-01-01","ts":"2026-01-01T00:00:00.000Z","ntz":"2026-01-01T00:00:00.000","st":{"x":1},"b":false},
		"maxValues":{"i8":5,"i16":20,"i32":200,"i64":100,"f32":2.0,"f64":1.5,"dec":"9.99","s":"foo","d":"2026-01-31","ts":"2026-01-01T12:00:00.000Z","ntz":"2026-01-02T00:00:00.000","st":{"x":9},"b":false},
		"nullCount":{"i8":0,"i16":2,"i32":0,"i64":0,"f32":0,"f64":0,"dec":0,"s":0,"d":0,"ts":0,"ntz":0,"st":{"x":0},"b":0}}`
	allNull := `{"numRecords":3,"nullCount":{"i8":3,"s":3},"minValues":{},"maxValues":{}}`
	empty := `{"numRecords":0}`
	constant := `{"numRecords":4,"minValues":{"i8":7,"s":"k"},"maxValues":{"i8":7,"s":"k"},"nullCount":{"i8":0,"s":1}}`
	files := []*stats.File{statsFile(sc, full), statsFile(sc, allNull), statsFile(sc, empty), statsFile(sc, constant), nil, statsFile(sc, "not json")}
	cases := []struct{ pred, want string }{
		// full, allNull, empty, constant, none, malformed
		{`i8 = 1`, "ufffuu"},
		{`i8 = 6`, "ffffuu"},
		{`i8 = 7`, "ffftuu"},
		{`i8 > 5`, "ffftuu"},
		{`i8 >= 5`, "ufftuu"},
		{`i8 < -5`, "ffffuu"},
		{`i8 <= -5`, "ufffuu"},
		{`i8 != 7`, "tfffuu"},
		{`i8 IS NULL`, "ftffuu"},
		{`i8 IS NOT NULL`, "tfftuu"},
		{`i8 <=> NULL`, "ftffuu"},
		{`i8 <=> 7`, "ffftuu"},
		{`NOT i8 <=> 7`, "ttffuu"},
		{`i8 IN (6, 7)`, "ffftuu"},
		{`i8 IN (-9, 9)`, "ffffuu"},
		{`i8 IN (0, NULL)`, "ufffuu"},
		{`i8 NOT IN (0, NULL)`, "ffffff"},
		{`i8 NOT IN (6, 8)`, "tfftuu"},
		{`i8 BETWEEN 6 AND 10`, "ffftuu"},
		{`i8 NOT BETWEEN -5 AND 5`, "ffftuu"},
		{`i8 > 5 OR i8 < -5`, "ffftuu"},
		{`i8 > 5 AND s = 'k'`, "fffuuu"},
		{`NOT (i8 > 5)`, "tfffuu"},
		{`i16 > 0`, "uufuuu"},
		{`i16 IS NULL`, "uufuuu"},
		{`i32 > 3000000000`, "fufuuu"},
		{`i32 >= 100.5`, "uufuuu"},
		{`i32 < 99.5`, "fufuuu"},
		{`i64 > -1000`, "tufuuu"},
		// floats: a known upper bound rules a NaN out (Spark and our writer drop it
		// when a NaN is seen), a lower bound never does
		{`f32 < 1`, "fufuuu"},
		{`f32 > 2`, "fufuuu"},
		{`f64 = 2`, "fufuuu"},
		{`f64 != 0`, "uufuuu"},
		{`dec > 9.99`, "fufuuu"},
		{`dec > 9.985`, "uufuuu"},
		{`dec >= 1.5`, "tufuuu"},
		{`s = 'baz'`, "ufffuu"},
		{`s = 'zzz'`, "ffffuu"},
		{`s < 'bar'`, "ffffuu"},
		{`s LIKE 'c%'`, "ufffuu"},
		{`s LIKE 'fo%'`, "ufffuu"},
		{`s LIKE 'foo%'`, "ufffuu"},
		{`s LIKE 'fooa%'`, "ffffuu"},
		{`s LIKE 'b%'`, "ufffuu"},
		{`s LIKE 'a%'`, "ffffuu"},
		{`s LIKE '%z'`, "uffuuu"},
		{`s NOT LIKE 'a%'`, "tffuuu"},
		{`s LIKE 'k'`, "fffuuu"},
		{`s NOT LIKE 'x'`, "tffuuu"},
		{`s = 'k'`, "fffuuu"},
		{`d = '2025-12-31'`, "fufuuu"},
		{`d = TIMESTAMP '2026-02-01 00:00:00'`, "fufuuu"},
		{`d >= TIMESTAMP '2026-01-01 00:00:00'`, "tufuuu"},
		{`ts > '2026-01-01 12:00:00.999'`, "fufuuu"},
		{`ts > '2026-01-01 12:00:00.5'`, "fufuuu"},
		{`ts > '2026-01-01 12:00:00.0005'`, "uufuuu"},
		{`ntz < '2026-01-01'`, "fufuuu"},
		{`st.x > 9`, "fufuuu"},
		{`st.x IS NOT NULL`, "uufuuu"},
		{`b`, "fufuuu"},
		{`NOT b`, "tufuuu"},
		{`b IS FALSE`, "tufuuu"},
		{`CAST(i8 AS STRING) = '1'`, "uufuuu"},
		{`i8 + 1 > 100`, "uufuuu"},
	}
	for _, c := range cases {
		p := mustCompile(t, c.pred, map[string]*schema.Struct{"": sc})
		var got string
		for _, fs := range files {
			got += strings.ToLower(tri(Decide(p, File{Stats: fs})))
		}
		if got != strings.ToLower(c.want) {
			t.Errorf("%s: %s, want %s", c.pred, got, strings.ToLower(c.want))
		}
		for i, fs := range files {
			if CanSkip(p, fs, nil) != (got[i] == 'f') {
				t.Errorf("%s: CanSkip disagrees with Decide on file %d", c.pred, i)
			}
		}
	}
}

// Stats and partition values together decide a mixed predicate.
func TestDecideMixed(t *testing.T) {
	sc := mustSchema(t, partSchema)
	p := mustCompile(t, `day = '2026-01-01' OR id > 100`, map[string]*schema.Struct{"": sc})
	fs := statsFile(sc, `{"numRecords":5,"minValues":{"id":1},"maxValues":{"id":50},"nullCount":{"id":0}}`)
	if got := Decide(p, File{PartitionValues: map[string]string{"day": "2026-01-02"}, Stats: fs}); got != False {
		t.Errorf("other day, small ids: %v", got)
	}
	if got := Decide(p, File{PartitionValues: map[string]string{"day": "2026-01-01"}, Stats: fs}); got != True {
		t.Errorf("the day: %v", got)
	}
	p = mustCompile(t, `n = id`, map[string]*schema.Struct{"": sc})
	if got := Decide(p, File{PartitionValues: map[string]string{"n": "60"}, Stats: fs}); got != False {
		t.Errorf("partition value outside the ids: %v", got)
	}
	// A predicate of two relations decides a target file on target columns.
	rels := map[string]*schema.Struct{"t": sc, "s": sc}
	p = mustCompile(t, `t.day = '2026-01-01' AND s.id = t.id`, rels)
	if got := Decide(p, File{Relation: "t", PartitionValues: map[string]string{"day": "2026-01-02"}}); got != False {
		t.Errorf("merge target pruning: %v", got)
	}
	if got := Decide(p, File{Relation: "t", PartitionValues: map[string]string{"day": "2026-01-01"}}); got != Unknown {
		t.Errorf("merge target kept: %v", got)
	}
}

// table is a golden table's schema, mapping mode, partition columns and
// live add actions, read from its JSON commits.
type table struct {
	dir   string
	sc    *schema.Struct
	mode  schema.Mode
	parts []string
	adds  []*protocol.Add
}

func readTable(t *testing.T, rel string) *table {
	t.Helper()
	dir := filepath.Join(corpus.Path(t, rel), "delta")
	logs, err := filepath.Glob(filepath.Join(dir, "_delta_log", "*.json"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no commits in %s", dir)
	}
	tb := &table{dir: dir}
	live := map[string]*protocol.Add{}
	var order []string
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		acts, err := protocol.DecodeCommit(data)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		for _, a := range acts {
			switch {
			case a.Metadata != nil:
				if tb.sc, err = schema.Parse(a.Metadata.SchemaString); err != nil {
					t.Fatal(err)
				}
				tb.mode, _ = schema.ParseMode(a.Metadata.Configuration["delta.columnMapping.mode"])
				tb.parts = a.Metadata.PartitionColumns
			case a.Add != nil:
				if _, ok := live[a.Add.Path]; !ok {
					order = append(order, a.Add.Path)
				}
				live[a.Add.Path] = a.Add
			case a.Remove != nil:
				delete(live, a.Remove.Path)
			}
		}
	}
	for _, p := range order {
		if a, ok := live[p]; ok {
			tb.adds = append(tb.adds, a)
		}
	}
	return tb
}

// fileBatch reads one data file's rows as logical columns (physical names
// mapped back, partition columns filled from the add action).
func (tb *table) fileBatch(t *testing.T, add *protocol.Add) arrow.RecordBatch {
	t.Helper()
	key, err := protocol.DecodePath(add.Path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(tb.dir, filepath.FromSlash(key)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	n := int(tbl.NumRows())
	var fields []arrow.Field
	var cols []arrow.Array
	for _, fld := range tb.sc.Fields {
		if containsFold(tb.parts, fld.Name) {
			dt, _ := arrowType(fld.Type)
			raw := add.PartitionValues[fld.PhysicalName(tb.mode)]
			v, _, err := schema.ParsePartitionValue(fld.Type, raw)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := makeScalar(v, fld.Type)
			if err != nil {
				t.Fatal(err)
			}
			var a arrow.Array
			if v == nil {
				a = array.MakeArrayOfNull(memory.DefaultAllocator, dt, n)
			} else if a, err = scalar.MakeArrayFromScalar(sc, n, memory.DefaultAllocator); err != nil {
				t.Fatal(err)
			}
			fields = append(fields, arrow.Field{Name: fld.Name, Type: dt, Nullable: true})
			cols = append(cols, a)
			continue
		}
		idx := tbl.Schema().FieldIndices(fld.PhysicalName(tb.mode))
		if len(idx) == 0 {
			continue
		}
		col := tbl.Column(idx[0])
		if col.Data().Len() > 0 && len(col.Data().Chunks()) != 1 {
			t.Fatalf("%s: %d chunks", fld.Name, len(col.Data().Chunks()))
		}
		var a arrow.Array
		if len(col.Data().Chunks()) == 0 {
			a = array.MakeArrayOfNull(memory.DefaultAllocator, col.DataType(), 0)
		} else {
			a = col.Data().Chunk(0)
			a.Retain()
		}
		fields = append(fields, arrow.Field{Name: fld.Name, Type: a.DataType(), Nullable: true})
		cols = append(cols, a)
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// checkSound evaluates the predicate on every row of a file and checks the
// file-level decision: False means no row IS TRUE, True means every row is.
func (tb *table) checkSound(t *testing.T, p *Bound, add *protocol.Add, d Tristate) {
	t.Helper()
	rec := tb.fileBatch(t, add)
	defer rec.Release()
	m, err := p.Eval(context.Background(), rec)
	if err != nil {
		t.Fatalf("%s on %s: %v", p, add.Path, err)
	}
	defer m.Release()
	mask := maskString(m)
	switch {
	case d == False && strings.Contains(mask, "T"):
		t.Errorf("%s: file %s decided false, but its rows give %s", p, add.Path, mask)
	case d == True && strings.Trim(mask, "T") != "":
		t.Errorf("%s: file %s decided true, but its rows give %s", p, add.Path, mask)
	}
}

func TestPartitionGolden(t *testing.T) {
	tb := readTable(t, "golden/data-reader-partition-values")
	if len(tb.adds) != 3 {
		t.Fatalf("%d files", len(tb.adds))
	}
	// Files: all zeros/true; all null; all ones/false.
	cases := []struct{ pred, want string }{
		{`as_int = 0`, "tff"},
		{`as_int IS NULL`, "ftf"},
		{`as_long > 0`, "fft"},
		{`as_byte = 1 OR as_short = 0`, "tft"},
		{`as_boolean`, "tff"},
		{`NOT as_boolean`, "fft"},
		{`as_float = 1`, "fft"},
		{`as_double < 0.5`, "tff"},
		{`as_string = '1'`, "fft"},
		{`as_string_lit_null = 'null'`, "tft"},
		{`as_date = '2021-09-08'`, "tft"},
		{`as_timestamp = '2021-09-08 11:11:11'`, "tft"},
		{`as_timestamp > TIMESTAMP '2021-09-08 11:11:10'`, "tft"},
		{`as_big_decimal BETWEEN 0 AND 0.5`, "tff"},
		{`coalesce(as_int, -1) < 1`, "ttf"},
		{`as_int = 0 AND value = 'x'`, "uff"},
		{`as_int = 0 OR value = 'x'`, "tuu"},
		{`value IS NOT NULL`, "uuu"},
	}
	for _, c := range cases {
		p := mustCompile(t, c.pred, map[string]*schema.Struct{"": tb.sc})
		var got string
		for _, add := range tb.adds {
			d := EvalPartition(p, add.PartitionValues)
			got += strings.ToLower(tri(d))
			tb.checkSound(t, p, add, d)
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.pred, got, c.want)
		}
	}
}

func TestStatsGolden(t *testing.T) {
	allTypes := []string{
		"golden/data-skipping-basic-stats-all-types",
		"golden/data-skipping-basic-stats-all-types-checkpoint",
		"golden/data-skipping-basic-stats-all-types-columnmapping-name",
	}
	// One row: every column 0, '0', 2000-01-01, 2000-01-01T08:00:00Z.
	cases := []struct {
		pred string
		want Tristate
	}{
		{`as_int = 0`, True},
		{`as_int > 0`, False},
		{`as_int < 0`, False},
		{`as_long = 1`, False},
		{`as_byte != 0`, False},
		{`as_short IN (1, 2)`, False},
		{`as_short IN (0, 2)`, True},
		{`as_float < 0`, False},
		{`as_float > 0`, False},
		{`as_double = 1`, False},
		{`as_string = '1'`, False},
		{`as_string > '0'`, False},
		{`as_string LIKE '1%'`, False},
		{`as_string LIKE '0%'`, Unknown},
		{`as_date > '2000-01-01'`, False},
		{`as_date = '2000-01-01'`, True},
		{`as_timestamp < '2000-01-01 08:00:00'`, False},
		{`as_timestamp > '2000-01-01 08:00:01'`, False},
		{`as_timestamp >= '2000-01-01 08:00:00'`, True},
		{`as_big_decimal = 1`, False},
		{`as_big_decimal = 0`, True},
		{`as_int IS NULL`, False},
		{`as_int IS NOT NULL AND as_string = '0'`, True},
		{`as_int = 1 OR as_long = 1`, False},
		{`as_int = 1 OR as_long = 0`, True},
	}
	for _, rel := range allTypes {
		tb := readTable(t, rel)
		if len(tb.adds) != 1 {
			t.Fatalf("%s: %d files", rel, len(tb.adds))
		}
		add := tb.adds[0]
		fs := stats.Parse(add.Stats, tb.sc, tb.mode)
		for _, c := range cases {
			p := mustCompile(t, c.pred, map[string]*schema.Struct{"": tb.sc})
			d := Decide(p, File{PartitionValues: add.PartitionValues, Stats: fs})
			if d != c.want {
				t.Errorf("%s: %s = %v, want %v", rel, c.pred, d, c.want)
			}
			if tb.mode == schema.MappingNone {
				tb.checkSound(t, p, add, d)
			}
		}
	}

	tb := readTable(t, "golden/data-skipping-partition-and-data-column")
	if len(tb.adds) != 4 {
		t.Fatalf("%d files", len(tb.adds))
	}
	// Files, in log order: (part 1, id 0), (1, 1), (0, 1), (0, 0).
	for _, c := range []struct{ pred, want string }{
		{`part = 0`, "fftt"},
		{`part = 0 AND id = 0`, "ffft"},
		{`part = 1 OR id = 0`, "ttft"},
		{`id > 0`, "fttf"},
		{`part + id = 1`, "uuuu"},
		{`id IN (5, 6)`, "ffff"},
	} {
		p := mustCompile(t, c.pred, map[string]*schema.Struct{"": tb.sc})
		var got string
		for _, add := range tb.adds {
			fs := stats.Parse(add.Stats, tb.sc, tb.mode)
			d := Decide(p, File{PartitionValues: add.PartitionValues, Stats: fs})
			got += strings.ToLower(tri(d))
			tb.checkSound(t, p, add, d)
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.pred, got, c.want)
		}
	}
}

func ExampleDecide() {
	sc, _ := schema.Parse(`{"type":"struct","fields":[
		{"name":"day","type":"date","nullable":true,"metadata":{}},
		{"name":"id","type":"long","nullable":true,"metadata":{}}]}`)
	p, _ := ParsePredicate(`day = "2026-01-01" AND id > 100`, sc)
	fs := stats.Parse(`{"numRecords":3,"minValues":{"id":1},"maxValues":{"id":20},"nullCount":{"id":0}}`, sc, schema.MappingNone)
	fmt.Println(p)
	fmt.Println(EvalPartition(p, map[string]string{"day": "2026-01-02"}))
	fmt.Println(EvalPartition(p, map[string]string{"day": "2026-01-01"}))
	fmt.Println(CanSkip(p, fs, map[string]string{"day": "2026-01-01"}))
	// Output:
	// day = DATE '2026-01-01' AND id > 100
	// false
	// unknown
	// true
}
