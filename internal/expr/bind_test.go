package expr

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

func TestBindErrors(t *testing.T) {
	sc, _ := allTypes(t)
	cases := []struct {
		pred string
		col  int
		want string
	}{
		{`dya = '2026-01-01'`, 1, "unknown column dya; did you mean "},
		{`i64 = 1 AND nope > 2`, 13, "unknown column nope"},
		{`st.z = 1`, 1, "struct column st has no field z (fields: x, y)"},
		{`i8.x = 1`, 1, "column i8 is of type TINYINT and has no field x"},
		{`i8 + 1`, 0, "is of type INT, not a predicate"},
		{`s`, 0, "is of type STRING, not a predicate"},
		{`d = 'yesterday'`, 5, `cannot compare DATE with 'yesterday': "yesterday" is not a valid date`},
		{`d = '2026-02-30'`, 5, "is not a valid date"},
		{`ts = '2026-01-01 25:00'`, 6, "is not a valid timestamp"},
		{`ntz = '2026-01-01 00:00:00+01:00'`, 7, "TIMESTAMP_NTZ cannot hold"},
		{`i32 = 'abc'`, 7, "'abc' is not a valid number"},
		{`b = 'maybe'`, 5, "'maybe' is not a valid boolean"},
		{`i32 = d`, 1, "cannot compare INT with d (DATE)"},
		{`b = 1`, 1, "cannot compare BOOLEAN with 1 (INT)"},
		{`st = 1`, 1, "st is of type STRUCT<x: INT, y: STRING>, which cannot be compared"},
		{`NOT i8`, 5, "i8 is of type TINYINT where a boolean is needed"},
		{`i8 AND b`, 1, "where a boolean is needed"},
		{`s + 1 = 2`, 1, "needs numbers, not STRING and INT"},
		{`b IS TRUE AND i8 IS FALSE`, 15, "where a boolean is needed"},
		{`frobnicate(s)`, 1, "unknown or unsupported function frobnicate"},
		{`lower(s, s) = 'a'`, 1, "lower takes 1 argument(s), got 2"},
		{`substring(s, 'x') = 'a'`, 14, "cannot cast 'x' to INT"},
		{`substring(s, d) = 'a'`, 14, "substring takes a number here (cast to INT), not d (DATE)"},
		{`year(i8) = 1`, 1, "year needs a date, timestamp or string"},
		{`CAST(d AS INT) = 1`, 1, "cannot cast d from DATE to INT"},
		{`s LIKE 'a\\b'`, 8, "the escape character may not precede 'b'"},
		{`s LIKE 'ab\\'`, 8, "ends with the escape character"},
		{`1/0 = 1`, 1, "division by zero"},
		{`CAST('x' AS INT) = 1`, 1, "cannot cast 'x' to INT"},
		{`i8 = 99999999999999999999999999999999999999999`, 6, "more than 38 digits"},
		{`i8 = 128Y`, 6, "128Y is not a valid TINYINT"},
		{`i8 DIV 1.5D = 1`, 1, "DIV needs integers or decimals"},
		{`abs(s) = 1`, 1, "abs needs a number"},
		{`DATE '2026-13-01' = d`, 1, "DATE literal"},
		// CASE and the functions it came with
		{`CASE WHEN i8 THEN 1 END = 1`, 11, "CASE WHEN needs a boolean condition, not i8 (TINYINT)"},
		{`CASE WHEN b THEN 1 ELSE true END = 1`, 25, "TRUE is of type BOOLEAN, which does not combine with INT"},
		{`CASE WHEN b THEN st ELSE s END IS NULL`, 26, "s is of type STRING, which does not combine with STRUCT"},
		{`CASE i8 WHEN 'abc' THEN 1 END = 1`, 14, "cannot compare TINYINT with 'abc'"},
		{`CASE WHEN FALSE THEN 1 ELSE 1 DIV 0 END = 1`, 1, "division by zero"},
		{`CASE WHEN b THEN 1 END`, 0, "is of type INT, not a predicate"},
		{`round(f64, i8) > 0`, 12, "round takes a constant integer number of digits"},
		{`round(f64, 1.5) > 0`, 12, "round takes a constant integer number of digits"},
		{`floor(s) > 0`, 7, "floor needs a number, not STRING"},
		{`greatest(st, st) IS NULL`, 10, "greatest needs values that can be ordered"},
		{`least(b, 1) IS NULL`, 10, "1 is of type INT, which does not combine with BOOLEAN"},
		{`greatest(i8) = 1`, 1, "greatest takes at least 2 argument(s), got 1"},
		{`lpad(s, 'x') = ''`, 9, "cannot cast 'x' to INT"},
		{`CASE WHEN NULL THEN 1 END = 1`, 11, "CASE WHEN needs a boolean condition, not NULL"},
		{`date_add(i8, 1) IS NULL`, 10, "date_add needs a date, timestamp or string, not i8 (TINYINT)"},
		{`datediff(d, 1) = 0`, 13, "datediff needs a date"},
		{`date_add(d, 1.5) IS NULL`, 13, "date_add takes an INT here, not 1.5 (DECIMAL(2,1))"},
		{`date_add(d, 1L) IS NULL`, 13, "date_add takes an INT here, not 1L (BIGINT)"},
		{`if(i8, 1, 2) = 1`, 4, "where a boolean is needed"},
		{`nullif(st, 1) IS NULL`, 8, "which cannot be compared"},
		{`current_date(1) IS NULL`, 1, "current_date takes 0 argument(s), got 1"},
	}
	for _, c := range cases {
		_, err := ParsePredicate(c.pred, sc)
		if err == nil {
			t.Errorf("%s: bound without error", c.pred)
			continue
		}
		if !errors.Is(err, errs.ErrInvalidArgument) {
			t.Errorf("%s: kind of %v", c.pred, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want %q", c.pred, err, c.want)
		}
		var se *SyntaxError
		if c.col > 0 && (!errors.As(err, &se) || se.Column != c.col) {
			t.Errorf("%s: error %q, want column %d", c.pred, err, c.col)
		}
	}
}

func TestBindWithoutSource(t *testing.T) {
	sc, _ := allTypes(t)
	e := mustParse(t, `nope = 1`)
	_, err := BindTable(e, sc)
	if err == nil || !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "unknown column nope") {
		t.Fatalf("BindTable: %v", err)
	}
	if _, err := Bind(e, nil); err == nil {
		t.Fatal("Bind without relations succeeded")
	}
	if _, err := Bind(nil, map[string]*schema.Struct{"": sc}); err == nil {
		t.Fatal("Bind of nil succeeded")
	}
}

// MERGE conditions bind two relations: qualifiers choose, unqualified names
// must be unambiguous, rendering keeps the qualifiers.
func TestBindTwoRelations(t *testing.T) {
	target := mustSchema(t, `{"type":"struct","fields":[
		{"name":"id","type":"long","nullable":false,"metadata":{}},
		{"name":"updated_at","type":"timestamp","nullable":true,"metadata":{}},
		{"name":"only_t","type":"string","nullable":true,"metadata":{}}]}`)
	source := mustSchema(t, `{"type":"struct","fields":[
		{"name":"ID","type":"integer","nullable":true,"metadata":{}},
		{"name":"updated_at","type":"timestamp","nullable":true,"metadata":{}},
		{"name":"nested","type":{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`)
	rels := map[string]*schema.Struct{"t": target, "s": source}
	ok := []struct{ in, want string }{
		{`s.id = t.id AND s.updated_at > t.updated_at`, `s.ID = t.id AND s.updated_at > t.updated_at`},
		{`S.Id = T.ID`, `s.ID = t.id`},
		{`only_t = 'x'`, `t.only_t = 'x'`},
		{`s.nested.id = t.id`, `s.nested.id = t.id`},
		{`nested.id > 0`, `s.nested.id > 0`},
	}
	for _, c := range ok {
		b, err := Compile(c.in, rels)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if b.String() != c.want {
			t.Errorf("%s renders %s, want %s", c.in, b, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{`id = 1`, "column reference id is ambiguous: it could be s.id or t.id"},
		{`x.id = 1`, "unknown column x.id"},
		{`t.nested.id = 1`, "unknown column t.nested.id"},
		{`s.zzz = 1`, "unknown column s.zzz; (columns: s.ID, s.updated_at, s.nested, t.id, t.updated_at, t.only_t)"},
	}
	for _, c := range bad {
		_, err := Compile(c.in, rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
	cols := mustCompile(t, `s.id = t.id AND t.id > 0 AND s.nested.id IS NULL`, rels).Columns()
	var names []string
	for _, c := range cols {
		names = append(names, c.String())
	}
	if got := strings.Join(names, " "); got != "s.ID t.id s.nested.id" {
		t.Errorf("Columns = %s", got)
	}
}

func mustCompile(t *testing.T, src string, rels map[string]*schema.Struct) *Bound {
	t.Helper()
	b, err := Compile(src, rels)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return b
}

// Evaluating a two-relation predicate on aligned batches, one per relation.
func TestEvalTwoRelations(t *testing.T) {
	tsc := mustSchema(t, `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"v","type":"string","nullable":true,"metadata":{}}]}`)
	ssc := mustSchema(t, `{"type":"struct","fields":[{"name":"id","type":"integer","nullable":true,"metadata":{}},{"name":"v","type":"string","nullable":true,"metadata":{}}]}`)
	tb := batch(t, memory.DefaultAllocator, tsc, `[{"id":1,"v":"a"},{"id":2,"v":"b"},{"id":null,"v":"c"},{"id":4,"v":null}]`)
	defer tb.Release()
	sb := batch(t, memory.DefaultAllocator, ssc, `[{"id":1,"v":"a"},{"id":3,"v":"x"},{"id":null,"v":"c"},{"id":4,"v":null}]`)
	defer sb.Release()
	rels := map[string]*schema.Struct{"target": tsc, "source": ssc}
	for _, c := range []struct{ pred, want string }{
		{`source.id = target.id`, "TFNT"},
		{`source.v <=> target.v`, "TFTT"},
		{`source.v != target.v OR source.id > 3`, "FTNT"},
		// CASE branches read either relation, only on the rows that take them
		{`CASE WHEN source.id IS NULL THEN target.v = 'c' ELSE source.v = target.v END`, "TFTN"},
		{`if(source.id > target.id, source.v, target.v) = 'x'`, "FTFN"},
		{`CASE WHEN source.id = target.id THEN 0 ELSE 10 DIV (source.id - target.id) END = 10`, "FTNF"},
	} {
		b := mustCompile(t, c.pred, rels)
		got, err := b.EvalInputs(context.Background(), map[string]arrowRecord{"target": tb, "source": sb})
		if err != nil {
			t.Errorf("%s: %v", c.pred, err)
			continue
		}
		if s := maskString(got); s != c.want {
			t.Errorf("%s = %s, want %s", c.pred, s, c.want)
		}
		got.Release()
	}
	b := mustCompile(t, `source.id = target.id`, rels)
	if _, err := b.EvalInputs(context.Background(), map[string]arrowRecord{"target": tb}); err == nil {
		t.Error("missing relation batch accepted")
	}
}

func TestOnlyPartitionColumns(t *testing.T) {
	sc, _ := allTypes(t)
	parts := []string{"d", "S"}
	for _, c := range []struct {
		pred string
		want bool
	}{
		{`d = '2026-01-01'`, true},
		{`d = '2026-01-01' AND s LIKE 'a%'`, true},
		{`d = '2026-01-01' OR i8 = 1`, false},
		{`st.x = 1`, false},
		{`1 = 1`, true},
	} {
		if got := OnlyPartitionColumns(mustCompile(t, c.pred, map[string]*schema.Struct{"": sc}), parts); got != c.want {
			t.Errorf("OnlyPartitionColumns(%s) = %v", c.pred, got)
		}
	}
}

type arrowRecord = arrow.RecordBatch
