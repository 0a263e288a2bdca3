package expr

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// evalCases: predicate on the allTypes rows -> T/F/N per row, computed by
// hand from the fixture.
var evalCases = []struct{ pred, want string }{
	// booleans and three-valued logic
	{`b`, "TFNTF"},
	{`NOT b`, "FTNFT"},
	{`b IS TRUE`, "TFFTF"},
	{`b IS NOT TRUE`, "FTTFT"},
	{`b IS FALSE`, "FTFFT"},
	{`b IS NOT FALSE`, "TFTTF"},
	{`b IS NULL`, "FFTFF"},
	{`b IS UNKNOWN`, "FFTFF"},
	{`b AND i8 > 0`, "TFNTF"},
	{`b OR i8 IS NULL`, "TFTTF"},
	{`b AND NULL`, "NFNNF"},
	{`b OR NULL`, "TNNTN"},
	{`NOT b AND i8 IS NULL`, "FFNFF"},
	{`NULL`, "NNNNN"},
	{`TRUE`, "TTTTT"},
	{`1 = 1 AND i8 IS NOT NULL`, "TTFTT"},
	{`trim('  x ') = 'x' AND b`, "TFNTF"},
	// integers, with literal coercion and widening
	{`i8 = 1`, "TFNFF"},
	{`i8 = '1'`, "TFNFF"},
	{`i8 = 1.0`, "TFNFF"},
	{`i8 = 1.5`, "FFNFF"},
	{`i8 > 300`, "FFNFF"},
	{`i8 < -1`, "FTNFF"},
	{`i16 >= 100`, "TFNTF"},
	{`i32 <> 1000`, "FTNTT"},
	{`i32 != '1000'`, "FTNTT"},
	{`i64 > 2147483647`, "TFNTF"},
	{`i64 = 9223372036854775807`, "FFNTF"},
	{`i64 < 0`, "FTNFF"},
	{`i64 < 1e3`, "FTNFT"},
	{`i16 > i8`, "TFNTF"},
	// floats: NaN equals NaN and sorts above everything; -0.0 = 0.0
	{`f32 = 0.1`, "FFNFF"},
	{`f32 = 1.5`, "TFNFF"},
	{`f32 = 0.1F`, "FFNTF"},
	{`f64 = 0.1`, "FFNTF"},
	{`f64 > 1000`, "FTNFF"},
	{`f64 = 0`, "FFNFT"},
	{`f64 = CAST('NaN' AS DOUBLE)`, "FTNFF"},
	{`f64 < 3`, "TFNTT"},
	{`f32 < f64`, "TTNFF"},
	{`f64 * 2 = 5`, "TFNFF"},
	// decimals
	{`dec = 12.34`, "TFNFF"},
	{`dec IS NULL`, "FFTFF"},
	{`dec IS NOT NULL AND st IS NOT NULL`, "TTFTT"},
	{`dec = '12.340'`, "TFNFF"},
	{`dec > 0`, "TFNTF"},
	{`dec = -0.5`, "FTNFF"},
	{`dec = 0`, "FFNFT"},
	{`dec BETWEEN -1 AND 1`, "FTNFT"},
	{`dec > 99999999.98`, "FFNTF"},
	{`dec * 2 = 24.68`, "TFNFF"},
	{`dec + 0.005 > 12.34`, "TFNTF"},
	{`dec / 3 > 4.11`, "TFNTF"},
	{`dec % 5 = 2.34`, "TFNFF"},
	// strings and LIKE
	{`s = 'alpha'`, "TFNFF"},
	{`s > 'a'`, "TFNTF"},
	{`s LIKE 'a%'`, "TFNTF"},
	{`s LIKE 'a\\%b%'`, "FFNTF"},
	{`s LIKE 'a!%b%' ESCAPE '!'`, "FFNTF"},
	{`s LIKE '_eta'`, "FTNFF"},
	{`s LIKE ''`, "FFNFT"},
	{`s LIKE '%'`, "TTNTT"},
	{`s LIKE '%p%a'`, "TFNFF"},
	{`s NOT LIKE '%a%'`, "FFNFT"},
	{`s ILIKE 'BETA'`, "FTNFF"},
	{`s ILIKE 'A%'`, "TFNTF"},
	{`s ILIKE 'aX%bX_c' ESCAPE 'X'`, "FFNTF"},
	{`s LIKE s`, "TTNTT"},
	{`lower(s) = 'beta'`, "FTNFF"},
	{`upper(s) = 'ALPHA'`, "TFNFF"},
	{`length(s) = 5`, "TFNTF"},
	{`s IN ('alpha', 'Beta')`, "TTNFF"},
	{`s IN ('alpha', NULL)`, "TNNNN"},
	{`s NOT IN ('alpha', NULL)`, "FNNNN"},
	{`startswith(s, 'a')`, "TFNTF"},
	{`contains(s, 'et')`, "FTNFF"},
	{`substring(s, 2, 3) = 'lph'`, "TFNFF"},
	{`substring(s, -2) = 'ta'`, "FTNFF"},
	{`substr(s, 0, 2) = 'al'`, "TFNFF"},
	{`concat(s, '!') = 'alpha!'`, "TFNFF"},
	{`s || 'x' = 'x'`, "FFNFT"},
	{"`My Col` = 'A'", "TFNFF"},
	{"`my col` = 'b'", "FTNFF"},
	// binary
	{`bin = X'616263'`, "TFNFF"},
	{`bin = ''`, "FTNFF"},
	{`length(bin) = 1`, "FFNFT"},
	// dates
	{`d = '2026-01-01'`, "TFNFF"},
	{`d = "2026-01-01"`, "TFNFF"},
	{`d > DATE '2000-01-01'`, "TTNFT"},
	{`d < '1970-01-01'`, "FFNTF"},
	{`year(d) = 2026`, "TTNFF"},
	{`month(d) = 2`, "FFNFT"},
	{`day(d) = 29`, "FFNFT"},
	{`d = TIMESTAMP '2026-01-01 00:00:00'`, "TFNFF"},
	{`d + 1 = DATE '2026-01-02'`, "TFNFF"},
	{`d - 1 = '1969-12-30'`, "FFNTF"},
	{`ts < DATE '9999-12-31' + 1`, "TTNTT"},
	{`d BETWEEN '2026-01-01' AND '2026-12-31'`, "TTNFF"},
	// timestamps, UTC session
	{`ts = '2026-01-01'`, "TFNFF"},
	{`ts > '2026-01-01 12:00:00'`, "FTNFF"},
	{`ts < '1970-01-01'`, "FFNTF"},
	{`date(ts) = '2026-01-01'`, "TTNFF"},
	{`to_date(ts) = '1969-12-31'`, "FFNTF"},
	{`ts = TIMESTAMP '2026-01-01 01:00:00+01:00'`, "TFNFF"},
	{`ts = '2026-01-01T12:30:00.123456Z'`, "FTNFF"},
	{`ntz = TIMESTAMP_NTZ '1970-01-01 00:00:00'`, "FFNTF"},
	{`ntz < '2026-01-01'`, "FTNTT"},
	{`ntz > ts`, "TFNTF"},
	// nested fields: a field of a null struct is null
	{`st.x = 1`, "TNNFN"},
	{`st.x IS NULL`, "FTTFT"},
	{`st IS NULL`, "FFTFF"},
	{`st.y = 'two'`, "FTNNN"},
	{`ST.X > 0`, "TNNTN"},
	// arithmetic
	{`i16 + 1 > 100`, "TFNTF"},
	{`i8 * 2 = 2`, "TFNFF"},
	{`i32 % 7 = 6`, "TFNFF"},
	{`i32 / 0.5 = 2000`, "TFNFF"},
	{`i32 / 2 = 500.0`, "TFNFF"},
	{`i32 DIV 3 = 333`, "TFNFF"},
	{`-i8 = -1`, "TFNFF"},
	{`abs(i8) = 2`, "FTNFF"},
	// functions on nulls
	{`coalesce(i8, 99) = 99`, "FFTFF"},
	{`coalesce(s, 'x') = 'x'`, "FFTFF"},
	{`ifnull(b, true)`, "TFTTF"},
	{`nvl(d, DATE '2000-01-01') < '2000-01-02'`, "FFTTF"},
	{`isnull(s)`, "FFTFF"},
	// casts
	{`CAST(i32 AS STRING) = '1000'`, "TFNFF"},
	{`CAST(dec AS INT) = 0`, "FTNFT"},
	{`CAST(f32 AS DECIMAL(5,2)) = 0.10`, "FFNTF"},
	{`CAST(ts AS DATE) = '1969-12-31'`, "FFNTF"},
	{`CAST(d AS TIMESTAMP) < ts`, "FFNTF"},
	{`CAST(b AS INT) = 1`, "TFNTF"},
	{`CAST(i8 AS BOOLEAN)`, "TTNTF"},
	{`CAST(f64 AS STRING) = 'NaN'`, "FTNFF"},
	{`CAST(f64 AS STRING) = '-0.0'`, "FFNFT"},
	{`CAST(ts AS STRING) = '2026-01-01 12:30:00.123456'`, "FTNFF"},
	{`CAST(d AS STRING) LIKE '2026%'`, "TTNFF"},
	{`i8::string = '127'`, "FFNTF"},
	// null-safe equality and IN
	{`i8 <=> NULL`, "FFTFF"},
	{`i8 <=> 1`, "TFFFF"},
	{`NOT (i8 <=> 1)`, "FTTTT"},
	{`s IS DISTINCT FROM 'alpha'`, "FTTTT"},
	{`i8 <=> i16 - 99`, "TFTFF"},
	{`i8 IN (1, 127)`, "TFNTF"},
	{`i8 IN (1, 300)`, "TFNFF"},
	{`i8 NOT IN (1, 127)`, "FTNFT"},
	{`f64 IN (0.1, CAST('NaN' AS DOUBLE))`, "FTNTF"},
	{`i32 IN (i16, 0)`, "FFNFT"},
	{`i8 IN (NULL)`, "NNNNN"},
	{`i8 BETWEEN 0 AND 1`, "TFNFT"},
	{`i8 NOT BETWEEN 0 AND 1`, "FTNTF"},
}

func TestEval(t *testing.T) {
	sc, rec := allTypes(t)
	for _, c := range evalCases {
		p, err := ParsePredicate(c.pred, sc)
		if err != nil {
			t.Errorf("%s: %v", c.pred, err)
			continue
		}
		s, err := evalChecked(t, p, rec, maskString)
		if err != nil {
			t.Errorf("%s: %v", c.pred, err)
			continue
		}
		if s != c.want {
			t.Errorf("%s (bound %s) = %s, want %s", c.pred, p, s, c.want)
		}
	}
}

// The rendered text of a bound predicate binds back to the same results.
func TestEvalRenderedRoundTrip(t *testing.T) {
	sc, rec := allTypes(t)
	for _, c := range evalCases {
		p, err := ParsePredicate(c.pred, sc)
		if err != nil {
			continue
		}
		text := p.String()
		p2, err := ParsePredicate(text, sc)
		if err != nil {
			t.Errorf("%s rendered as %s, which does not bind: %v", c.pred, text, err)
			continue
		}
		if p2.String() != text {
			t.Errorf("%s: rendering is not stable: %s then %s", c.pred, text, p2)
		}
		s, err := evalChecked(t, p2, rec, maskString)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if s != c.want {
			t.Errorf("%s rendered as %s gives %s, want %s", c.pred, text, s, c.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	sc, rec := allTypes(t)
	cases := []struct{ pred, want string }{
		{`i32 + 1 > 0`, "overflow"},
		{`i64 * 2 > 0`, "overflow"},
		{`i8 / 0 > 1`, "division by zero"},
		{`i32 % 0 = 1`, "division by zero"},
		{`dec / (i8 - i8) > 0`, "division by zero"},
		{`CAST(s AS INT) = 1`, "cannot cast 'alpha' to INT"},
		{`CAST(i16 AS TINYINT) = 1`, "out of range"},
		{`CAST(f64 AS INT) = 1`, "cannot cast DOUBLE NaN to INT"},
		{`CAST(dec AS DECIMAL(3,1)) = 1`, "cannot cast"},
		{`s LIKE concat(s, '\\')`, "ends with the escape character"},
	}
	for _, c := range cases {
		p, err := ParsePredicate(c.pred, sc)
		if err != nil {
			t.Errorf("%s: %v", c.pred, err)
			continue
		}
		s, err := evalChecked(t, p, rec, maskString)
		if err == nil {
			t.Errorf("%s = %s, want an error", c.pred, s)
		} else if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want InvalidArgument with %q", c.pred, err, c.want)
		}
	}
}

// Filter and FilterNot split a batch: every row lands in exactly one, and
// rows where the predicate is null go to FilterNot.
func TestFilterComplement(t *testing.T) {
	sc, rec := allTypes(t)
	all := arrowrows.Rows(rec)
	for _, c := range evalCases {
		p, err := ParsePredicate(c.pred, sc)
		if err != nil {
			continue
		}
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		ctx := exec.WithAllocator(context.Background(), mem)
		kept, err := Filter(ctx, rec, p)
		if err != nil {
			t.Fatalf("%s: %v", c.pred, err)
		}
		rest, err := FilterNot(ctx, rec, p)
		if err != nil {
			t.Fatalf("%s: %v", c.pred, err)
		}
		wantKept := strings.Count(c.want, "T")
		if int(kept.NumRows()) != wantKept || int(rest.NumRows()) != len(c.want)-wantKept {
			t.Errorf("%s: Filter kept %d, FilterNot %d; want %d and %d", c.pred, kept.NumRows(), rest.NumRows(), wantKept, len(c.want)-wantKept)
		}
		union := append(arrowrows.Rows(kept), arrowrows.Rows(rest)...)
		if got := strings.Join(sortStrings(union), "\n"); got != strings.Join(all, "\n") {
			t.Errorf("%s: Filter and FilterNot do not partition the batch", c.pred)
		}
		kept.Release()
		rest.Release()
		mem.AssertSize(t, 0)
	}
}
