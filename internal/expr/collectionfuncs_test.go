package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// collectionExprs are evaluated here and by Spark over collRows (columns
// n, a ARRAY<INT>, ad ARRAY<DOUBLE>, m MAP<STRING, DOUBLE>, st STRUCT<f:
// STRING, g: INT>); values compare as Spark's CAST(... AS STRING) writes
// them, and types as typeof names them.
var collectionExprs = []string{
	// constructors
	`array(n, 1)`, `array(n, '2')`, `array(n, 2.5)`, `array(n, 2.5D, NULL)`, `array(st.f, 'x')`, `array(a, array(1L))`,
	`array(st, named_struct('f', 'y', 'g', n))`, `array(d, ts)`, `array()`, `array(NULL)`, `array(n, NULL)`,
	`map(n, a, 7, array(1))`, `map(CAST(n AS DOUBLE) * -0.0D, 1)`,
	`named_struct('a', n, 'b', st.f, 'c', a)`, `named_struct('x', m)`, `element_at(array(n, n + 1), 2)`,
	// arrays
	`array_join(a, ',')`, `array_join(a, '-', 'N')`, `array_join(ad, '|')`, `array_join(array(st.f, 'x'), NULL)`,
	`array_join(a, ',', st.f)`, `array_position(a, 3)`, `array_position(ad, CAST('NaN' AS DOUBLE))`, `array_position(ad, 0.0D)`,
	`array_position(a, NULL)`, `array_position(a, 6L)`, `array_remove(a, 3)`, `array_remove(ad, 0.0D)`, `array_remove(a, st.g)`,
	`array_distinct(array(n, 1, n, NULL, NULL, 1))`, `array_distinct(concat(ad, ad, array(0.0D, -0.0D)))`, `array_distinct(a)`,
	`array_union(a, array(1, 2, NULL))`, `array_union(ad, array(0.0D, -0.0D))`, `array_union(a, array(5L))`,
	`array_intersect(a, array(1, 3, NULL, 6))`, `array_intersect(ad, array(CAST('NaN' AS DOUBLE), 0.0D))`,
	`array_except(a, array(1))`, `array_except(ad, array(0.0D))`, `arrays_overlap(a, array(3))`, `arrays_overlap(a, array(9))`,
	`arrays_overlap(a, array(NULL))`, `arrays_overlap(ad, array(0.0D))`, `arrays_overlap(a, array())`,
	`array_max(a)`, `array_min(a)`, `array_max(ad)`, `array_min(ad)`, `array_max(array(st.f, 'b'))`, `array_min(array(a, array(2, 1)))`,
	`array_repeat(n, 2)`, `array_repeat(st.f, n - 1)`, `array_repeat(a, st.g)`, `slice(a, 2, 2)`, `slice(a, -2, 5)`, `slice(a, n + 1, 1)`,
	`slice(a, -9, 2)`, `slice(ad, 1, 0)`, `sort_array(a)`, `sort_array(a, false)`, `sort_array(ad)`, `sort_array(array(0.0D, -0.0D, n))`,
	`array_sort(a)`, `array_sort(concat(ad, array(NULL, -1.0D)))`, `array_sort(array(st.f, 'B', 'a'))`, `sort_array(array(st, st))`,
	`flatten(array(a, array(9)))`, `flatten(array(a, NULL))`, `flatten(array(array(ad), array(array(1.0D))))`,
	`sequence(1, n)`, `sequence(n, 1)`, `sequence(n, 10, 3)`, `sequence(CAST(n AS TINYINT), 3Y)`, `sequence(d, DATE'2026-01-02')`,
	`sequence(-5L, n, 4)`, `array_size(a)`, `array_size(ad)`, `array_compact(a)`, `array_compact(array(NULL, st.f))`,
	`array_append(a, n)`, `array_append(a, NULL)`, `array_append(ad, 1)`, `array_prepend(a, 7L)`, `array_prepend(a, NULL)`,
	`array_insert(a, 1, 0)`, `array_insert(a, -1, n)`, `array_insert(a, 6, 9)`, `array_insert(a, -6, 9)`, `array_insert(a, n + 2, 4L)`, `array_insert(a, CAST(n AS SMALLINT) + 1S, 4)`,
	`array_insert(ad, -2, NULL)`, `arrays_zip(a, ad)`, `arrays_zip(a, array(st.f))`, `arrays_zip(a)`,
	`reverse(a)`, `reverse(ad)`, `reverse(st.f)`, `concat(a, array(9))`, `concat(a, ad)`, `concat(a, a, array(NULL))`, `concat(st.f, 'z')`,
	`a || array(n)`, `size(concat(a, array(1)))`, `array_contains(array_union(a, array(4)), 4)`,
	`array_distinct(array(CAST(n AS FLOAT) * -0.0F, 0.0F, CAST('NaN' AS FLOAT), CAST('NaN' AS FLOAT)))`,
	`array_union(array(X'41', CAST(st.f AS BINARY)), array(X'41', X'42'))`, `array_except(array(a, array(1)), array(array(1)))`,
	`array_intersect(array(st, st, NULL), array(named_struct('f', 'x', 'g', 1), NULL))`,
	`concat_ws(',', array(st.f, NULL, 'c'), st.f, NULL, array())`, `concat_ws(st.f, a)`, `concat_ws('/', a, ad, n, array(d))`,
	`size(sequence(ts, TIMESTAMP'2026-01-03 09:00:00'))`, `sequence(TIMESTAMP'2026-01-03 10:00:00', greatest(ts, TIMESTAMP'2025-12-30 00:00:00'))`,
	`sequence(CAST(greatest(ts, TIMESTAMP'2026-01-01 00:00:00') AS TIMESTAMP_NTZ), TIMESTAMP_NTZ'2026-01-02 12:00:00')`,
	`array_sort(array('é', 'z', st.f, '😀', 'Z', ''))`, `array_max(array('é', '😀', st.f))`, `array_distinct(array('ß', 'ss', st.f, 'ß'))`,
	`sequence(9223372036854775806L, 9223372036854775807L)`, `sequence(-9223372036854775807L, -9223372036854775807L - 1L, -1L)`,
	`slice(a, CAST(n AS BIGINT) + 1, 1L)`, `slice(a, 2, 2147483647)`, `slice(a, -2147483647, 2)`, `array_position(array(9223372036854775807L, n), n)`,
	`element_at(array(a, array(n)), 2)`, `array_contains(array(a, array(1)), array(1))`,
	`array_contains(array(st, NULL), named_struct('f', 'x', 'g', 1))`, `element_at(map(n, a), n)`, `element_at(map(array(n), n), array(n))`,
	`element_at(array(st), -1).f`, `named_struct('a', n, 'b', a).b`, `map_entries(map_concat(map('a', 0.5D), m))[0].value`, `arrays_zip(a, ad)[0].ad`,
	`(st).G`, `array(st)[0].g + 1`,
	`coalesce(a, array())`, `size(coalesce(a, array(1L)))`, `nvl(m, map('z', 1))`, `ifnull(st, named_struct('f', 'q', 'g', 0))`,
	`coalesce(CAST(NULL AS STRING), NULL, st.f)`,
	// subscripts
	`a[0]`, `m['k']`, `m['zz']`, `ad[CAST(n AS BIGINT) - n]`, `array(st, st)[1]`, `map(n, a)[n]`, `sort_array(a, false)[0]`,
	`(a)[0] + 1`, `array(array(n))[0][0]`, `map_from_arrays(array(1.5D), array(n))[1.5]`,
	// comparisons
	`a = array(1, NULL, 3)`, `a <=> array(1, NULL, 3)`, `a <=> NULL`, `a != array(2L)`, `a < array(2)`, `a >= array(5, 6, 7)`,
	`st = named_struct('f', 'x', 'g', 1)`, `st <=> named_struct('f', CAST(NULL AS STRING), 'g', n + 1)`,
	`ad = array(1.5D, CAST('NaN' AS DOUBLE))`, `array(-0.0D) = array(CAST(n AS DOUBLE) * 0.0D)`, `array(st) > array(st, st)`,
	// maps
	`map_concat(m, map('q', 1.0D))`, `map_concat(m, map('n', n))`,
	`map_entries(m)`, `map_from_arrays(array(n), array(st.f))`, `map_from_entries(array(named_struct('k', n, 'v', st.f)))`,
	`map_from_entries(map_entries(m))`, `map_from_entries(array(named_struct('k', n, 'v', 1), NULL))`, `element_at(map_concat(m, map('q', 2)), 'q')`,
}

// collectionErrors are rows Spark's ANSI mode fails: the same rows fail here.
var collectionErrors = []string{
	`map(st.f, n, 'x', 1)`, `map(st.f, n)`, `map(n, 1, 0, 2)`, `slice(a, n - n, 1)`, `slice(a, 1, n - 2)`, `array_insert(a, n - n, 1)`,
	`sequence(1, n, 0)`, `sequence(n, 5, -1)`, `map_concat(m, map('k', n))`, `map_from_arrays(a, array(1.0D))`,
	`map_from_arrays(a, ad)`, `map_from_arrays(array(st.f), array(n))`, `array(n, st.f)`, `a[n]`, `a[-1]`, `ad[n - 3]`,
	`array_repeat(n, 2147483647)`, `sequence(0, 2147483647)`, `array_insert(a, 2147483647, 1)`, `array_insert(a, -2147483647, 1)`, `map_from_entries(array(named_struct('k', st.f, 'v', 1)))`,
}

// Spark 4 computes the same values and types as this package for the
// array, map and struct functions.
func TestCollectionFunctionsAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec, vals := collectionBatch(t)
	sparkNestedAgrees(t, s, sc, rec, collectionExprs, vals, false)
	sparkNestedAgrees(t, s, sc, rec, collectionErrors, vals, true)
}

// collectionSchema adds a date and a timestamp to collSchema's columns.
func collectionBatch(t *testing.T) (*schema.Struct, arrow.RecordBatch, []string) {
	t.Helper()
	sc := mustSchema(t, strings.TrimSuffix(collSchema, "]}")+`,
{"name":"d","type":"date","nullable":true,"metadata":{}},{"name":"ts","type":"timestamp","nullable":true,"metadata":{}}]}`)
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	extra := []struct{ json, spark string }{
		{`,"d":"2026-01-01","ts":"2026-01-01T10:00:00Z"}`, `, DATE'2026-01-01', TIMESTAMP'2026-01-01 10:00:00')`},
		{`,"d":"1969-12-31","ts":"1969-12-31T23:59:59.5Z"}`, `, DATE'1969-12-31', TIMESTAMP'1969-12-31 23:59:59.5')`},
		{`}`, `, CAST(NULL AS DATE), CAST(NULL AS TIMESTAMP))`},
		{`,"d":"2026-01-05","ts":"2000-02-29T00:00:00Z"}`, `, DATE'2026-01-05', TIMESTAMP'2000-02-29 00:00:00')`},
	}
	var rows, vals []string
	for i, r := range collRows {
		rows = append(rows, strings.TrimSuffix(r.json, "}")+extra[i].json)
		vals = append(vals, strings.TrimSuffix(r.spark, ")")+extra[i].spark)
	}
	return sc, jsonBatch(t, as, rows), vals
}

// sparkNestedAgrees checks exprs here against Spark over rec (Spark's rows
// vals, columns n, a, ad, m, st, d, ts): each row's value as CAST(... AS
// STRING) writes it and the type; with perRow, a query per row, and ERR
// for a row that fails.
func sparkNestedAgrees(t *testing.T, s *peers.SparkSession, sc *schema.Struct, rec arrow.RecordBatch, exprs, vals []string, perRow bool) {
	t.Helper()
	cols := "n, a, ad, m, st, d, ts"
	theirs := map[string][]string{}
	types := map[string]string{}
	if !perRow {
		var sel []string
		for i, e := range exprs {
			sel = append(sel, fmt.Sprintf("CAST(%s AS STRING) AS v%d, typeof(%s) AS t%d", e, i, e, i))
		}
		rows := sparkRows(t, s, "SELECT n, "+strings.Join(sel, ", ")+" FROM VALUES "+strings.Join(vals, ", ")+" AS t("+cols+")", len(vals))
		for i, e := range exprs {
			theirs[e] = sparkValues(rows, i)
			types[e], _ = rows[0][fmt.Sprintf("t%d", i)].(string)
		}
	}
	for _, e := range exprs {
		if !perRow {
			break
		}
		// One query per row: a row that fails fails its query.
		for n := range vals {
			q := fmt.Sprintf("SELECT n, CAST(%s AS STRING) AS v0 FROM VALUES %s AS t(%s)", e, vals[n], cols)
			res := s.Try(t, peers.Op{"op": "sql", "sql": q})[0]
			if !res.OK {
				theirs[e] = append(theirs[e], "ERR")
				continue
			}
			row := res.Table(t).Rows[0]
			v, _ := row["v0"].(string)
			if row["v0"] == nil {
				v = "NULL"
			}
			theirs[e] = append(theirs[e], v)
		}
	}
	for _, e := range exprs {
		b, err := BindValue(mustParse(t, e), map[string]*schema.Struct{"": sc})
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		ours := evalNested(t, b, rec)
		if strings.Join(ours, "|") != strings.Join(theirs[e], "|") {
			t.Errorf("%s:\n here  %s\n Spark %s", e, strings.Join(ours, "|"), strings.Join(theirs[e], "|"))
		}
		if typ := types[e]; typ != "" && normType(typ) != normType(typeName(b.Type())) {
			t.Errorf("%s is of type %s here, %s in Spark", e, typeName(b.Type()), typ)
		}
	}
}

func normType(s string) string {
	return strings.NewReplacer(" ", "", "`", "").Replace(strings.ToLower(s))
}

// evalNested evaluates b on each row of rec alone, as Spark's CAST(... AS
// STRING) writes the value; ERR for a row that fails.
func evalNested(t *testing.T, b *Bound, rec arrow.RecordBatch) []string {
	t.Helper()
	return evalRows(t, b, rec, func(arr arrow.Array, i int, typ schema.Type) string {
		if arr.IsNull(i) {
			return "NULL"
		}
		return sparkText(nestedGo(arr, i), typ)
	})
}

// sparkText is a value as Spark 4's CAST(... AS STRING) writes it.
func sparkText(v any, t schema.Type) string {
	if v == nil {
		return "null"
	}
	switch t := t.(type) {
	case *schema.Array:
		var parts []string
		for _, x := range v.([]any) {
			parts = append(parts, sparkText(x, t.Element))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *schema.Map:
		m := v.(*strMap)
		var parts []string
		for i := range m.keys {
			parts = append(parts, sparkText(m.keys[i], t.Key)+" -> "+sparkText(m.vals[i], t.Value))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *schema.Struct:
		var parts []string
		for i, f := range t.Fields {
			parts = append(parts, sparkText(v.(*structVal).vals[i], f.Type))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return formatValue(v, t)
}

// Arguments Spark's analysis refuses, and forms this engine does not
// compute, are refused when bound, naming the function and the argument.
func TestCollectionRefusals(t *testing.T) {
	sc, _, _ := collectionBatch(t)
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`array(n, true)`, `array needs elements of one type, but TRUE is of BOOLEAN`},
		{`array(n, a)`, `array needs elements of one type`},
		{`map(n, 'x', 10L, ad)`, `map needs values of one type`},
		{`map(n)`, `map takes keys and values in pairs`},
		{`map(m, 1)`, `keys are maps`},
		{`named_struct(st.f, 1)`, `field names must be constant strings`},
		{`named_struct('a', 1, 'A', 2)`, `gives the field 'A' twice`},
		{`array_union(a, array(TRUE))`, `array_union needs arrays of one type`},
		{`array_union(a, m)`, `array_union needs an array, not m`},
		{`array_distinct(array(m))`, `does not order maps`},
		{`flatten(a)`, `flatten needs an array of arrays`},
		{`sequence(ts, ts, 1)`, `an interval step is not supported`},
		{`sequence(1.5, 3)`, `sequence needs integers or dates`},
		{`sequence(1, 3, 1.5)`, `steps by an integer`},
		{`sort_array(a, n > 0)`, `must be TRUE or FALSE`},
		{`array_sort(a, a)`, `comparator`},
		{`array_join(array(m), ',')`, `array_join needs an array of atomic values`},
		{`map_from_entries(a)`, `two-field structs`},
		{`concat(n, a)`, `where a string is needed`},
		{`array_insert(a, CAST(n AS BIGINT), 1)`, `array_insert takes an INT here`},
		{`array_repeat(n, CAST(n AS SMALLINT))`, `count is an INT, not CAST(n AS SMALLINT) (SMALLINT); CAST it AS INT`},
		{`a['x']`, `an array's index is an integer`},
		{`n[0]`, `which has no elements to subscript`},
		{`named_struct('a', 1).b`, "has no field b (fields: a)"},
		{`a[0].f`, "which has no field f"},
		{`m[1]`, `cannot be used as STRING`},
	} {
		_, err := BindValue(mustParse(t, c.e), rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
}

// A bound collection expression renders as text that binds again to the
// same values, constants included (they are not folded to one value).
func TestCollectionRendersBack(t *testing.T) {
	sc, rec, _ := collectionBatch(t)
	rels := map[string]*schema.Struct{"": sc}
	for _, e := range []string{`array(1, '2', n)`, `map('k', array(1.5D, -0.0D))`, `size(array(1, 2))`,
		`named_struct('a', 1, 'b', array())`, `named_struct('a', n + 1).a`, `array(st)[0].f`, `(st).f`, `(a)[0]`, `(-a[0])`, `array(1)[n - n]`, `map('k', 1)['k'] + 1`, `m['k']`, `element_at(map_concat(map('x', 1), map('y', n)), 'y')`,
		`sort_array(array(3, 1, 2), false)`, `a || array(1)`} {
		b, err := BindValue(mustParse(t, e), rels)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		again, err := BindValue(mustParse(t, b.String()), rels)
		if err != nil {
			t.Fatalf("%s rendered as %s: %v", e, b, err)
		}
		x, y := evalNested(t, b, rec), evalNested(t, again, rec)
		if strings.Join(x, "|") != strings.Join(y, "|") || typeName(b.Type()) != typeName(again.Type()) {
			t.Errorf("%s = %v (%s), rendered as %s = %v (%s)", e, x, typeName(b.Type()), b, y, typeName(again.Type()))
		}
		if x[0] == "NULL" {
			t.Errorf("%s is NULL", e)
		}
	}
}

// Spark's sequence of timestamps steps a day on the local time-line of
// its session time zone, across daylight-saving changes.
func TestCollectionSequenceInZones(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	t.Cleanup(func() { s.Run(t, peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=UTC"}) })
	sc := mustSchema(t, `{"type":"struct","fields":[{"name":"n","type":"integer","nullable":true,"metadata":{}},
{"name":"ts","type":"timestamp","nullable":true,"metadata":{}}]}`)
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	instants := []string{"2026-03-07T07:30:00Z", "2026-10-31T06:30:00Z", "2026-11-01T05:30:00Z", "2026-03-08T12:00:00Z"}
	var rows []string
	for i, ts := range instants {
		rows = append(rows, fmt.Sprintf(`{"n":%d,"ts":%q}`, i, ts))
	}
	rec := jsonBatch(t, as, rows)
	var exprs []string
	for _, stop := range []string{"2026-03-10 04:00:00", "2026-11-03 01:30:00", "2026-03-05 02:30:00"} {
		exprs = append(exprs, fmt.Sprintf("array_join(sequence(ts, TIMESTAMP'%s'), ',')", stop),
			fmt.Sprintf("array_join(sequence(CAST(ts AS TIMESTAMP_NTZ), TIMESTAMP_NTZ'%s'), ',')", stop))
	}
	for _, zone := range []string{"America/New_York", "Europe/Berlin"} {
		t.Run(zone, func(t *testing.T) {
			sess, err := NewSession(zone)
			if err != nil {
				t.Fatal(err)
			}
			s.Run(t, peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=" + zone})
			var vals []string
			for i, ts := range instants {
				vals = append(vals, fmt.Sprintf("(%d, CAST(TIMESTAMP_LTZ'%s' AS TIMESTAMP))", i, strings.Replace(strings.TrimSuffix(ts, "Z"), "T", " ", 1)+" UTC"))
			}
			sparkAgreesIn(t, s, sess, sc, rec, exprs, vals, "n, ts")
		})
	}
}

// A constant array, map or struct is no NULL to file pruning: a file is
// skipped only when its statistics decide (never for an array column).
func TestCollectionPredicatesDoNotPrune(t *testing.T) {
	sc, _, _ := collectionBatch(t)
	fs := statsFile(sc, `{"numRecords":4,"minValues":{"n":0},"maxValues":{"n":3},"nullCount":{"n":0,"a":1}}`)
	for _, pred := range []string{`a = array(1, NULL, 3)`, `a <=> array(1)`, `st = named_struct('f', 'x', 'g', 1)`,
		`array(n) = array(1)`, `array_contains(array(1, 2), n)`, `size(array(n, n)) = 2`, `a IS NULL`, `map('k', 1.5D)['k'] = n`} {
		p := mustCompile(t, pred, map[string]*schema.Struct{"": sc})
		if d := Decide(p, File{Stats: fs}); d == False {
			t.Errorf("%s skips a file its statistics do not decide", pred)
		}
	}
}
