package colrules

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// table is a Spark-shaped table: id identity, ts, d = CAST(ts AS DATE),
// v with CHECK (v > 0).
func table(t *testing.T, always bool, hwm string) (*protocol.Metadata, *schema.Struct) {
	t.Helper()
	h := ""
	if hwm != "" {
		h = `,"delta.identity.highWaterMark":` + hwm
	}
	allow := "false"
	if !always {
		allow = "true"
	}
	js := `{"type":"struct","fields":[
{"name":"id","type":"long","nullable":false,"metadata":{"delta.identity.start":1,"delta.identity.step":2,"delta.identity.allowExplicitInsert":` + allow + h + `}},
{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},
{"name":"d","type":"date","nullable":true,"metadata":{"delta.generationExpression":"CAST(ts AS DATE)"}},
{"name":"v","type":"integer","nullable":true,"metadata":{}}]}`
	sc, err := schema.Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	return &protocol.Metadata{SchemaString: sc.JSON(), Configuration: map[string]string{"delta.constraints.positive": "v > 0"}}, sc
}

func batch(t *testing.T, sc *schema.Struct, rows string) arrow.RecordBatch {
	t.Helper()
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, as, strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func only(names ...string) func(string) bool {
	return func(n string) bool {
		for _, x := range names {
			if strings.EqualFold(x, n) {
				return true
			}
		}
		return false
	}
}

func TestInsertNumbersComputesAndChecks(t *testing.T) {
	ctx := context.Background()
	md, sc := table(t, true, "5")
	r, err := For(md, sc, expr.Session{})
	if err != nil {
		t.Fatal(err)
	}
	rec := batch(t, r.Relaxed(sc), `[{"ts":"2024-03-01T23:30:00Z","v":1},{"ts":"2024-03-02T00:10:00Z","v":2}]`)
	defer rec.Release()
	out, err := r.Insert(ctx, rec, only("ts", "v"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	got := arrowrows.Rows(out)
	want := []string{
		"d=2024-03-01, id=7, ts=2024-03-01T23:30:00.000000Z, v=1",
		"d=2024-03-02, id=9, ts=2024-03-02T00:10:00.000000Z, v=2",
	}
	arrowrows.Diff(t, got, want)
	// A second batch continues after the first; the metadata records the last value.
	rec2 := batch(t, r.Relaxed(sc), `[{"v":3}]`)
	defer rec2.Release()
	out2, err := r.Insert(ctx, rec2, only("v"))
	if err != nil {
		t.Fatal(err)
	}
	defer out2.Release()
	if v := out2.Column(0).(*array.Int64).Value(0); v != 11 {
		t.Fatalf("second batch's id = %d, want 11", v)
	}
	next, err := r.Metadata(md, schema.MappingNone)
	if err != nil {
		t.Fatal(err)
	}
	nsc, _ := schema.Parse(next.SchemaString)
	if hwm := nsc.Field("id").Metadata[schema.IdentityHighWaterMarkKey]; hwm != float64(11) {
		t.Fatalf("high watermark = %v, want 11", hwm)
	}
	if next.Configuration["delta.constraints.positive"] != "v > 0" {
		t.Fatalf("configuration lost: %v", next.Configuration)
	}
}

func TestInsertRefusals(t *testing.T) {
	ctx := context.Background()
	md, sc := table(t, true, "")
	cases := []struct {
		name, rows string
		given      []string
		want       string
	}{
		{"always given", `[{"id":1,"v":1}]`, []string{"id", "v"}, "identity column id is GENERATED ALWAYS"},
		{"generated mismatch", `[{"ts":"2024-03-01T10:00:00Z","d":"2024-03-05","v":1}]`, []string{"ts", "d", "v"},
			"generated column d = CAST(ts AS DATE): a row gives a value other than its expression's: ts => 2024-03-01T10:00:00Z, d => 2024-03-05"},
		{"check false", `[{"v":-4}]`, []string{"v"}, "CHECK constraint positive (v > 0) violated by row with values: v => -4"},
		{"check null", `[{"v":null}]`, []string{"v"}, "CHECK constraint positive (v > 0) violated by row with values: v => NULL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := For(md, sc, expr.Session{})
			if err != nil {
				t.Fatal(err)
			}
			rec := batch(t, r.Relaxed(sc), c.rows)
			defer rec.Release()
			out, err := r.Insert(ctx, rec, only(c.given...))
			if err == nil {
				out.Release()
				t.Fatal("no error")
			}
			if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want InvalidArgument containing %q", err, c.want)
			}
		})
	}
}

func TestByDefaultTakesGivenValues(t *testing.T) {
	ctx := context.Background()
	md, sc := table(t, false, "")
	r, err := For(md, sc, expr.Session{})
	if err != nil {
		t.Fatal(err)
	}
	rec := batch(t, sc, `[{"id":100,"v":1}]`)
	defer rec.Release()
	out, err := r.Insert(ctx, rec, only("id", "v"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if v := out.Column(0).(*array.Int64).Value(0); v != 100 {
		t.Fatalf("id = %d, want the given 100", v)
	}
	// Spark tracks the high watermark of generated values only.
	if next, _ := r.Metadata(md, schema.MappingNone); next != md {
		t.Fatal("explicit values moved the high watermark")
	}
}

func TestUpdateRecomputesAndRefusesIdentity(t *testing.T) {
	ctx := context.Background()
	md, sc := table(t, false, "")
	r, err := For(md, sc, expr.Session{})
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 updated (ts moved to the next day), row 1 not (its d is stale on
	// purpose: an update leaves rows it does not change as they are).
	rec := batch(t, sc, `[{"id":1,"ts":"2024-03-02T01:00:00Z","d":"2024-03-01","v":1},{"id":2,"ts":"2024-03-02T01:00:00Z","d":"2024-01-01","v":1}]`)
	defer rec.Release()
	out, err := r.Update(ctx, rec, []bool{true, false}, only("ts"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	d := out.Column(2).(*array.Date32)
	if d.Value(0).ToTime().Format("2006-01-02") != "2024-03-02" || d.Value(1).ToTime().Format("2006-01-02") != "2024-01-01" {
		t.Fatalf("d = %v, want 2024-03-02 recomputed and 2024-01-01 kept", d)
	}
	if _, err := r.Update(ctx, rec, nil, only("id")); err == nil || !strings.Contains(err.Error(), "identity column id cannot be updated") {
		t.Fatalf("updating the identity column: %v", err)
	}
	// An update of v re-checks the constraint on the updated rows only.
	bad := batch(t, sc, `[{"id":1,"v":-1},{"id":2,"v":-2}]`)
	defer bad.Release()
	if _, err := r.Update(ctx, bad, []bool{false, true}, only("v")); err == nil || !strings.Contains(err.Error(), "v => -2") {
		t.Fatalf("constraint on updated rows: %v", err)
	}
}

func TestUnsupportedExpressionRefusesTable(t *testing.T) {
	sc, _ := schema.Parse(`{"type":"struct","fields":[{"name":"s","type":"string","nullable":true,"metadata":{}},
{"name":"h","type":"string","nullable":true,"metadata":{"delta.generationExpression":"sin(s)"}}]}`)
	_, err := For(&protocol.Metadata{SchemaString: sc.JSON()}, sc, expr.Session{})
	if !errors.Is(err, errs.ErrUnsupportedTable) || !strings.Contains(err.Error(), "generated column h (GENERATED ALWAYS AS (sin(s)))") {
		t.Fatalf("error %v", err)
	}
}

// TestReaders names the rules that read a column, which a type change of
// that column must not break.
func TestReaders(t *testing.T) {
	md, sc := table(t, true, "")
	r, err := For(md, sc, expr.Session{})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"v":  "CHECK constraint positive (v > 0)",
		"V":  "CHECK constraint positive (v > 0)",
		"ts": "generated column d (GENERATED ALWAYS AS (CAST(ts AS DATE)))",
		"id": "",
		"d":  "",
	} {
		if got := strings.Join(r.Readers([]string{path}), "; "); got != want {
			t.Errorf("Readers(%s) = %q, want %q", path, got, want)
		}
	}
}

// Generated columns and CHECK constraints of regular expressions: values
// computed, a violating row refused naming the constraint, a group index
// Spark's ANSI mode refuses failing the write naming the column and the
// text, and a pattern RE2 cannot mean refusing the table, naming the
// pattern and the construct.
func TestRegexColumnRules(t *testing.T) {
	ctx := context.Background()
	js := `{"type":"struct","fields":[
{"name":"s","type":"string","nullable":true,"metadata":{}},
{"name":"num","type":"string","nullable":true,"metadata":{"delta.generationExpression":"regexp_extract(s, '([a-z]+)(\\\\d+)', 2)"}},
{"name":"bad","type":"string","nullable":true,"metadata":{"delta.generationExpression":"regexp_extract(s, 'z', 1)"}}]}`
	sc, err := schema.Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	md := &protocol.Metadata{SchemaString: sc.JSON(), Configuration: map[string]string{"delta.constraints.word": "s RLIKE '^[a-z0-9 ]*$'"}}
	r, err := For(md, sc, expr.Session{})
	if err != nil {
		t.Fatal(err)
	}
	insert := func(rows string) (string, error) {
		rec := batch(t, r.Relaxed(sc), rows)
		defer rec.Release()
		out, err := r.Insert(ctx, rec, only("s"))
		if err != nil {
			return "", err
		}
		defer out.Release()
		var got []string
		for i := 0; i < int(out.NumRows()); i++ {
			got = append(got, out.Column(1).ValueStr(i)+"/"+out.Column(2).ValueStr(i))
		}
		return strings.Join(got, " "), nil
	}
	if got, err := insert(`[{"s":"ab12 x"},{"s":"none"}]`); err != nil || got != "12/ /" {
		t.Errorf("computed %q, %v; want 12/ /", got, err)
	}
	if _, err := insert(`[{"s":"Ab1"}]`); err == nil || !strings.Contains(err.Error(), `CHECK constraint word (s RLIKE '^[a-z0-9 ]*$') violated by row with values: s => Ab1`) {
		t.Errorf("a violating row: %v", err)
	}
	if _, err := insert(`[{"s":"xyz"}]`); err == nil || !strings.Contains(err.Error(), "bad") || !strings.Contains(err.Error(), `regexp_extract("xyz", "z", 1): expects group index between 0 and 0, but got 1`) {
		t.Errorf("a group index Spark refuses: %v", err)
	}
	js = strings.Replace(js, `regexp_extract(s, 'z', 1)`, `regexp_extract(s, '(a)\\\\1', 1)`, 1)
	sc2, err := schema.Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := For(&protocol.Metadata{SchemaString: sc2.JSON()}, sc2, expr.Session{}); err == nil || !strings.Contains(err.Error(), "bad") || !strings.Contains(err.Error(), `the backreference \1`) {
		t.Errorf("a backreference: %v", err)
	}
}
