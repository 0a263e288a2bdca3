package expr

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// valueCases: a value expression on the allTypes rows -> its type and
// each row's value as CAST(... AS STRING) gives it, computed by hand from
// the fixture (row 2 is null everywhere).
var valueCases = []struct{ expr, typ, want string }{
	// searched CASE: the first true branch; no ELSE is NULL; a null test is not true
	{`CASE WHEN i8 > 0 THEN 'pos' WHEN i8 < 0 THEN 'neg' ELSE 'zero or null' END`, "STRING", "pos|neg|zero or null|pos|zero or null"},
	{`CASE WHEN i8 > 0 THEN 'pos' WHEN i8 < 0 THEN 'neg' END`, "STRING", "pos|neg|NULL|pos|NULL"},
	{`CASE WHEN b THEN 'b' WHEN i8 >= 0 THEN 'i8' END`, "STRING", "b|NULL|NULL|b|i8"},
	{`CASE WHEN CAST(NULL AS BOOLEAN) THEN 1 ELSE 2 END`, "INT", "2|2|2|2|2"},
	{`if(NULL, 1, 2)`, "INT", "2|2|2|2|2"},
	// simple CASE: = with the comparison's coercion; NULL never matches
	{`CASE i8 WHEN 1 THEN 'one' WHEN 127 THEN 'max' WHEN NULL THEN 'null' ELSE 'other' END`, "STRING", "one|other|other|max|other"},
	{`CASE s WHEN 'alpha' THEN 1 WHEN 'Beta' THEN 2 END`, "INT", "1|2|NULL|NULL|NULL"},
	{`CASE d WHEN '2026-01-02' THEN 'second' ELSE 'no' END`, "STRING", "no|second|no|no|no"},
	// the result type is the branches' wider type
	{`CASE WHEN b THEN i8 ELSE i64 END`, "BIGINT", "1|-20|NULL|127|0"},
	{`CASE WHEN b THEN dec ELSE 1.5 END`, "DECIMAL(10,2)", "12.34|1.50|1.50|99999999.99|1.50"},
	{`CASE WHEN i8 = 1 THEN '42' ELSE i8 END`, "BIGINT", "42|-2|NULL|127|0"},
	{`CASE WHEN b THEN f32 ELSE i32 END`, "FLOAT", "1.5|-2000.0|NULL|0.1|0.0"},
	{`CASE WHEN b THEN d ELSE ts END`, "TIMESTAMP", "2026-01-01 00:00:00|2026-01-01 12:30:00.123456|NULL|1969-12-31 00:00:00|2000-02-29 00:00:00"},
	{`CASE WHEN b THEN st END`, "STRUCT<x: INT, y: STRING>", `{"x":1,"y":"one"}|NULL|NULL|{"x":3,"y":null}|NULL`},
	// branches are evaluated only on the rows that take them
	{`CASE WHEN i8 = 0 OR i8 IS NULL THEN -1 ELSE 100 DIV i8 END`, "BIGINT", "100|-50|-1|0|-1"},
	{`if(i8 > 100, CAST(s AS INT), 0)`, "INT", "0|0|0|ERR|0"},
	{`CASE WHEN i8 < 100 THEN 0 ELSE CAST(s AS INT) END`, "INT", "0|0|NULL|ERR|0"},
	{`CASE WHEN i8 > 200 THEN CAST(s AS INT) WHEN i16 > 200 THEN 1 DIV 0 ELSE 7 END`, "BIGINT", "7|7|7|ERR|7"},
	{`CASE WHEN TRUE THEN 1 ELSE 1 DIV 0 END`, "BIGINT", "1|1|1|1|1"},
	{`CASE WHEN i8 IS NULL THEN 'null' WHEN 1 / i8 > 0 THEN 'pos' ELSE 'other' END`, "STRING", "pos|other|null|pos|ERR"},
	// IF, NULLIF
	{`if(b, 'yes', 'no')`, "STRING", "yes|no|no|yes|no"},
	{`if(i8 IS NULL OR i8 = 0, NULL, i16 DIV i8)`, "BIGINT", "100|100|NULL|258|NULL"},
	{`nullif(i8, 0)`, "TINYINT", "1|-2|NULL|127|NULL"},
	{`nullif(i32, 1000.0)`, "INT", "NULL|-2000|NULL|2147483647|0"},
	{`nullif(s, '')`, "STRING", "alpha|Beta|NULL|a%b_c|NULL"},
	// GREATEST, LEAST skip nulls; NaN is the largest double
	{`greatest(i8, i16, -1000)`, "INT", "100|-2|-1000|32767|0"},
	{`least(f64, f32)`, "DOUBLE", "1.5|-0.5|NULL|0.1|-0.0"},
	{`greatest(f64, f32)`, "DOUBLE", "2.5|NaN|NULL|0.10000000149011612|-0.0"},
	{`greatest(s, 'B')`, "STRING", "alpha|Beta|B|a%b_c|B"},
	{`least(d, '2026-01-01')`, "DATE", "2026-01-01|2026-01-01|2026-01-01|1969-12-31|2000-02-29"},
	{`greatest(i8, NULL)`, "TINYINT", "1|-2|NULL|127|0"},
	// ROUND (half up), FLOOR, CEIL
	{`round(dec, 1)`, "DECIMAL(10,1)", "12.3|-0.5|NULL|100000000.0|0.0"},
	{`round(dec)`, "DECIMAL(9,0)", "12|-1|NULL|100000000|0"},
	{`round(dec, -1)`, "DECIMAL(9,0)", "10|0|NULL|100000000|0"},
	{`round(dec, 5)`, "DECIMAL(11,2)", "12.34|-0.50|NULL|99999999.99|0.00"},
	{`round(f64, 1)`, "DOUBLE", "2.5|NaN|NULL|0.1|0.0"},
	{`round(f64)`, "DOUBLE", "3.0|NaN|NULL|0.0|0.0"},
	{`round(f32 * 3, 1)`, "FLOAT", "4.5|-1.5|NULL|0.3|0.0"},
	{`round(2.675D, 2)`, "DOUBLE", "2.68|2.68|2.68|2.68|2.68"},
	{`round(-2.5)`, "DECIMAL(2,0)", "-3|-3|-3|-3|-3"},
	{`round(CAST(i16 AS INT), -2)`, "INT", "100|-200|NULL|32800|0"},
	{`round(i8, 2)`, "TINYINT", "1|-2|NULL|127|0"},
	{`floor(dec)`, "DECIMAL(9,0)", "12|-1|NULL|99999999|0"},
	{`ceil(dec)`, "DECIMAL(9,0)", "13|0|NULL|100000000|0"},
	{`floor(f64)`, "BIGINT", "2|0|NULL|0|0"},
	{`ceiling(f32)`, "BIGINT", "2|0|NULL|1|0"},
	{`floor(i8)`, "BIGINT", "1|-2|NULL|127|0"},
	// strings
	{`concat_ws('-', s, NULL, 'x')`, "STRING", "alpha-x|Beta-x|x|a%b_c-x|-x"},
	{`concat_ws(s, 'a', 'b')`, "STRING", "aalphab|aBetab|NULL|aa%b_cb|ab"},
	{`concat_ws('/', i8, d)`, "STRING", "1/2026-01-01|-2/2026-01-02||127/1969-12-31|0/2000-02-29"},
	{`replace(s, 'a', 'AA')`, "STRING", "AAlphAA|BetAA|NULL|AA%b_c|"},
	{`replace(s, 'l')`, "STRING", "apha|Beta|NULL|a%b_c|"},
	{`replace(s, '', 'x')`, "STRING", "alpha|Beta|NULL|a%b_c|"},
	{`lpad(s, 7, 'xy')`, "STRING", "xyalpha|xyxBeta|NULL|xya%b_c|xyxyxyx"},
	{`rpad(s, 7, 'xy')`, "STRING", "alphaxy|Betaxyx|NULL|a%b_cxy|xyxyxyx"},
	{`rpad(s, 3)`, "STRING", "alp|Bet|NULL|a%b|   "},
	{`lpad(s, 2, '')`, "STRING", "al|Be|NULL|a%|"},
	{`lpad(s, CAST(i64 AS INT))`, "STRING", "ERR||NULL|ERR|"},
	{`rpad(s, i8 % 10 + 2, '.')`, "STRING", "alp||NULL|a%b_c....|.."},
	{`lpad('é', 3, 'ü')`, "STRING", "üüé|üüé|üüé|üüé|üüé"},
	// dates
	{`date_add(d, 1)`, "DATE", "2026-01-02|2026-01-03|NULL|1970-01-01|2000-03-01"},
	{`date_sub(d, i8)`, "DATE", "2025-12-31|2026-01-04|NULL|1969-08-26|2000-02-29"},
	{`date_add(ts, 1)`, "DATE", "2026-01-02|2026-01-02|NULL|1970-01-01|2000-03-01"},
	{`date_sub('2026-03-01', 1)`, "DATE", "2026-02-28|2026-02-28|2026-02-28|2026-02-28|2026-02-28"},
	{`datediff(d, '2026-01-01')`, "INT", "0|1|NULL|-20455|-9438"},
	{`datediff(ts, d)`, "INT", "0|-1|NULL|0|0"},
}

// evalValue evaluates an expression on each row of rec on its own (a
// slice of one row): each row's value as rowText, ERR where evaluating the
// row fails.
func evalValue(t *testing.T, b *Bound, rec arrow.RecordBatch) []string {
	t.Helper()
	return evalRows(t, b, rec, rowText)
}

// evalRows evaluates b on each row of rec alone, each value as format
// writes it; ERR for a row refused.
func evalRows(t *testing.T, b *Bound, rec arrow.RecordBatch, format func(arrow.Array, int, schema.Type) string) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	ctx := exec.WithAllocator(context.Background(), mem)
	out := make([]string, rec.NumRows())
	for i := range out {
		row := rec.NewSlice(int64(i), int64(i+1))
		arr, err := b.Eval(ctx, row)
		row.Release()
		switch {
		case err != nil && errors.Is(err, errs.ErrInvalidArgument):
			out[i] = "ERR"
		case err != nil:
			t.Fatalf("%s: %v", b, err)
		default:
			out[i] = format(arr, 0, b.Type())
			arr.Release()
		}
	}
	return out
}

// rowText is row i of arr as text: NULL, JSON for nested values, else as
// CAST(... AS STRING) gives it.
func rowText(arr arrow.Array, i int, t schema.Type) string {
	switch {
	case arr.IsNull(i):
		return "NULL"
	case !isAtomic(t):
		return arr.ValueStr(i)
	}
	return formatValue(goValue(arr, i), t)
}

// evalBatch evaluates on the whole batch at once, each row as rowText.
func evalBatch(t *testing.T, b *Bound, rec arrow.RecordBatch) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	arr, err := b.Eval(exec.WithAllocator(context.Background(), mem), rec)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	defer arr.Release()
	out := make([]string, arr.Len())
	for i := range out {
		out[i] = rowText(arr, i, b.Type())
	}
	return out
}

func TestEvalValues(t *testing.T) {
	sc, rec := allTypes(t)
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range valueCases {
		e, err := Parse(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		b, err := BindValue(e, rels)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := typeName(b.Type()); got != c.typ {
			t.Errorf("%s: type %s, want %s", c.expr, got, c.typ)
		}
		if got := strings.Join(evalValue(t, b, rec), "|"); got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
		// The whole batch agrees with the rows; it fails when a row does.
		if !strings.Contains(c.want, "ERR") {
			if got := strings.Join(evalBatch(t, b, rec), "|"); got != c.want {
				t.Errorf("%s on the batch = %s, want %s", c.expr, got, c.want)
			}
		} else if arr, err := b.Eval(context.Background(), rec); err == nil {
			arr.Release()
			t.Errorf("%s on the batch: no error", c.expr)
		}
		// The rendering binds again to the same values.
		text := b.String()
		b2, err := BindValue(mustParse(t, text), rels)
		if err != nil {
			t.Errorf("%s renders as %s, which does not bind: %v", c.expr, text, err)
			continue
		}
		if b2.String() != text || typeName(b2.Type()) != c.typ {
			t.Errorf("%s: %s rebinds as %s of type %s", c.expr, text, b2, typeName(b2.Type()))
		}
		if got := strings.Join(evalValue(t, b2, rec), "|"); got != c.want {
			t.Errorf("%s rendered as %s = %s, want %s", c.expr, text, got, c.want)
		}
	}
}

func TestEvalValueErrors(t *testing.T) {
	sc, rec := allTypes(t)
	cases := []struct{ expr, want string }{
		{`round(i16, -2)`, "round(32767) overflows SMALLINT"},
		{`if(i8 > 100, CAST(s AS INT), 0)`, "cannot cast 'a%b_c' to INT"},
		{`CASE WHEN i8 IS NULL THEN 0 ELSE 1 DIV 0 END`, "division by zero"},
		{`lpad(s, CAST(i64 AS INT))`, "cannot cast BIGINT to INT: a value is out of range"},
	}
	for _, c := range cases {
		b, err := BindValue(mustParse(t, c.expr), map[string]*schema.Struct{"": sc})
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if _, err := evalChecked(t, b, rec, nil); err == nil {
			t.Errorf("%s: no error", c.expr)
		} else if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want InvalidArgument with %q", c.expr, err, c.want)
		}
	}
}

// CURRENT_DATE() and CURRENT_TIMESTAMP() are fixed when the expression is
// bound: every row and every occurrence sees the same instant (UTC).
func TestCurrentDateTime(t *testing.T) {
	sc, rec := allTypes(t)
	rels := map[string]*schema.Struct{"": sc}
	before := time.Now().UTC()
	b, err := BindValue(mustParse(t, `concat_ws('|', current_date(), current_timestamp(), now())`), rels)
	after := time.Now().UTC()
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != `concat_ws('|', current_date(), current_timestamp(), now())` {
		t.Errorf("rendered %s", got)
	}
	rows := evalValue(t, b, rec)
	for _, r := range rows[1:] {
		if r != rows[0] {
			t.Fatalf("rows differ: %q", rows)
		}
	}
	parts := strings.Split(rows[0], "|")
	if len(parts) != 3 || parts[1] != parts[2] {
		t.Fatalf("current_timestamp() and now() differ: %q", rows[0])
	}
	ts, err := time.Parse("2006-01-02 15:04:05.999999", parts[1])
	if err != nil {
		t.Fatal(err)
	}
	if ts.Before(before.Truncate(time.Microsecond)) || ts.After(after) {
		t.Errorf("current_timestamp() = %s, not within [%s, %s]", ts, before, after)
	}
	if parts[0] != ts.Format("2006-01-02") {
		t.Errorf("current_date() = %s for the instant %s", parts[0], ts)
	}
	p, err := ParsePredicate(`d < current_date AND current_timestamp() > TIMESTAMP '2026-01-01 00:00:00'`, sc)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Eval(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	if got := maskString(m); got != "TTNTT" {
		t.Errorf("mask %s", got)
	}
}

// AND and OR evaluate their right side only on the rows the left does
// not decide, as Spark does: a division by zero there fails no row the
// left already decided (checked with Spark 4: both of these pass there).
func TestLogicShortCircuits(t *testing.T) {
	sc := mustSchema(t, `{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}}]}`)
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := jsonBatch(t, as, []string{`{"x":0}`, `{"x":5}`, `{"x":null}`, `{"x":20}`})
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`x = 0 OR 10 / x > 1`, `true|true|NULL|false`},
		{`x <> 0 AND 10 / x > 1`, `false|true|NULL|false`},
		{`x IS NULL OR x = 0 OR 100 DIV x = 5`, `true|false|true|true`},
		{`NOT (x = 0 OR 10 / x < 1)`, `false|true|NULL|false`},
	} {
		b, err := BindValue(mustParse(t, c.e), rels)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		if got := strings.Join(evalValue(t, b, rec), "|"); got != c.want {
			t.Errorf("%s = %s, want %s", c.e, got, c.want)
		}
	}
	b, err := BindValue(mustParse(t, `x = 5 OR 10 / x > 1`), rels)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Eval(t.Context(), rec); err == nil {
		t.Fatal("x = 5 OR 10 / x > 1: the row with x = 0 did not fail")
	}
}
