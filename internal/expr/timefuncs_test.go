package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
)

// timeRows are the rows the functions of timefuncs.go are checked on,
// here and in Spark (UTC): two timestamps, a date, texts to parse and
// seconds since the epoch.
var timeRows = []struct{ ts, ts2, d, s, s2 string }{
	{"2024-03-01T10:04:05.123456", "2024-01-31T23:00:00", "2024-03-01", "2024-03-01 10:04:05", "01/03/2024"},
	{"2024-02-29T23:59:59.999999", "2023-02-28T00:00:00", "2024-02-29", "2024-02-29 23:59:59", "29/02/2024"},
	{"1969-12-31T23:00:00", "2024-03-31T12:00:00", "1969-12-31", "1969-12-31 23:00:00", "31/12/1969"},
	{"2023-01-31T08:00:00", "2023-04-30T09:00:00", "2023-01-01", "2023-01-01 00:00:00", "15/07/1815"},
	{"2026-12-04T13:30:00.5", "2025-06-30T13:30:00.5", "2026-10-15", "2026-12-04 13:30:00", "04/12/2026"},
	{"", "", "", "", ""},
}

var timeSeconds = []int64{1709287445, 0, -1, 4102444800, -62135596800, 0}

// timeExprs are the generation functions of timefuncs.go, evaluated here
// and by Spark.
var timeExprs = []string{
	`from_unixtime(sec)`, `from_unixtime(sec, 'yyyy-MM-dd')`, `from_unixtime(sec, 'EEE, d MMM yyyy HH:mm:ss')`, `from_unixtime(n)`,
	`unix_timestamp(s)`, `unix_timestamp(s2, 'dd/MM/yyyy')`, `unix_timestamp(ts)`, `unix_timestamp(d)`, `to_unix_timestamp(s)`,
	`to_unix_timestamp(ts2, 'yyyy')`,
	`to_timestamp(s)`, `to_timestamp(s2, 'dd/MM/yyyy')`, `to_timestamp(s, 'yyyy-MM-dd HH:mm:ss')`, `to_date(s2, 'dd/MM/yyyy')`,
	`to_date(s, 'yyyy-MM-dd HH:mm:ss')`, `to_date(s2, 'd/M/y')`, `to_timestamp(concat(s, '.5'), 'yyyy-MM-dd HH:mm:ss.SSS')`,
	`to_date(date_format(d, 'yyyyMMdd'), 'yyyyMMdd')`, `to_timestamp(date_format(ts, 'MMM d yyyy h:mm a'), 'MMM d yyyy h:mm a')`,
	`to_date(date_format(d, 'MMMM dd, yyyy'), 'MMMM dd, yyyy')`, `to_date(date_format(d, 'yyyy-DDD'), 'yyyy-DDD')`,
	`to_timestamp(d)`, `to_timestamp(ts2)`,
	`months_between(ts, ts2)`, `months_between(ts, ts2, false)`, `months_between(d, ts2)`, `months_between(ts2, ts)`,
	`months_between(d, d)`, `months_between(last_day(d), last_day(ts2))`,
	`timestampadd(HOUR, 5, ts)`, `timestampadd(MONTH, 1, ts2)`, `timestampadd(YEAR, -1, ts)`, `timestampadd(WEEK, 2, d)`,
	`timestampadd(MICROSECOND, n, ts)`, `timestampadd(QUARTER, n, ts2)`, `dateadd(DAY, 3, ts)`, `date_add(MILLISECOND, 1500, ts)`,
	`timestampadd(DAYOFYEAR, -40, ts2)`, `timestampadd(SECOND, -86401, ts)`, `timestampadd(minute, 61, ts)`,
	`timestampdiff(MONTH, ts2, ts)`, `timestampdiff(DAY, ts, ts2)`, `timestampdiff(YEAR, ts2, ts)`, `timestampdiff(QUARTER, ts2, ts)`,
	`timestampdiff(HOUR, ts2, ts)`, `timestampdiff(WEEK, ts, ts2)`, `timestampdiff(SECOND, ts, ts2)`, `datediff(MINUTE, ts, ts2)`,
	`date_diff(MICROSECOND, ts, ts2)`, `timestampdiff(DAY, d, ts)`, `timestampdiff(MILLISECOND, ts2, ts)`, `timestampdiff(MONTH, ts, ts2)`,
	`make_date(year(ts), month(ts2), 1)`, `make_date(2024, 2, 29)`, `make_date(n + 2000, 12, 31)`,
	`next_day(d, 'MO')`, `next_day(ts, 'sunday')`, `next_day(d, 'Fri')`, `next_day(d, 'th')`,
	`dateadd(d, 1)`, `date_diff(d, '2024-01-01')`,
	`make_timestamp(year(d), month(d), day(d), 2, 30, 0)`, `make_timestamp(year(d), month(d), day(d), 1, 30, 59.5)`,
	`make_timestamp(year(ts), month(ts), day(ts), hour(ts), minute(ts), second(ts))`, `make_timestamp(year(d), month(d), 1, n, 59, 60)`,
	`make_timestamp(2024, 2, 29, 23, 59, 59.9999999)`, `make_timestamp(year(d), month(d), day(d), 1, 30, n / 3)`,
	`make_timestamp(year(d), month(d), day(d), 2, 30, 0, 'America/New_York')`, `make_timestamp(year(d), 11, 3, 1, 30, 0, 'PST')`,
	`make_timestamp_ltz(year(d), month(d), day(d), 1, 30, 0, 'Europe/Paris')`, `make_timestamp_ltz(year(d), month(d), day(d), 2, 30, 0)`,
	`make_timestamp_ntz(year(d), month(d), day(d), 2, 30, 1.000001)`, `make_timestamp_ntz(1, 1, 1, 0, 0, CAST(n AS BIGINT))`,
}

func timeBatch(t *testing.T) (*schema.Struct, arrow.RecordBatch) {
	t.Helper()
	return timeBatchOf(t, timeRows)
}

// timeBatchOf is the batch of rows (n, ts, ts2, d, s, s2, sec).
func timeBatchOf(t *testing.T, timeRows []struct{ ts, ts2, d, s, s2 string }) (*schema.Struct, arrow.RecordBatch) {
	t.Helper()
	prim := func(n string) schema.Type { return &schema.Primitive{Name: n} }
	sc := &schema.Struct{Fields: []*schema.Field{
		{Name: "n", Type: prim(schema.Integer), Nullable: true},
		{Name: "ts", Type: prim(schema.Timestamp), Nullable: true},
		{Name: "ts2", Type: prim(schema.Timestamp), Nullable: true},
		{Name: "d", Type: prim(schema.Date), Nullable: true},
		{Name: "s", Type: prim(schema.String), Nullable: true},
		{Name: "s2", Type: prim(schema.String), Nullable: true},
		{Name: "sec", Type: prim(schema.Long), Nullable: true},
	}}
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for i, r := range timeRows {
		if r.ts == "" {
			rows = append(rows, fmt.Sprintf(`{"n":%d}`, i))
			continue
		}
		rows = append(rows, fmt.Sprintf(`{"n":%d,"ts":"%sZ","ts2":"%sZ","d":%q,"s":%q,"s2":%q,"sec":%d}`, i, r.ts, r.ts2, r.d, r.s, r.s2, timeSeconds[i%len(timeSeconds)]))
	}
	return sc, jsonBatch(t, as, rows)
}

// timeValues are timeRows as Spark's VALUES tuples (n, ts, ts2, d, s,
// s2, sec).
func timeValues() []string { return timeValuesOf(timeRows, "") }

// timeValuesOf are rows as Spark's VALUES tuples, zone after each
// timestamp's text.
func timeValuesOf(timeRows []struct{ ts, ts2, d, s, s2 string }, zone string) []string {
	var vals []string
	for i, r := range timeRows {
		if r.ts == "" {
			vals = append(vals, fmt.Sprintf("(%d, CAST(NULL AS TIMESTAMP), CAST(NULL AS TIMESTAMP), CAST(NULL AS DATE), CAST(NULL AS STRING), CAST(NULL AS STRING), CAST(NULL AS BIGINT))", i))
			continue
		}
		vals = append(vals, fmt.Sprintf("(%d, TIMESTAMP'%s%s', TIMESTAMP'%s%s', DATE'%s', '%s', '%s', CAST(%d AS BIGINT))", i,
			strings.Replace(r.ts, "T", " ", 1), zone, strings.Replace(r.ts2, "T", " ", 1), zone, r.d, r.s, r.s2, timeSeconds[i%len(timeSeconds)]))
	}
	return vals
}

// A unit, pattern or value Spark refuses is refused: at bind time when
// the expression says it, else on the row (ANSI mode's errors, never a
// silent NULL).
func TestTimeFunctionRefusals(t *testing.T) {
	sc, rec := timeBatch(t)
	for _, c := range []struct{ e, want string }{
		{`timestampadd(FORTNIGHT, 1, ts)`, `takes a unit first`},
		{`timestampdiff(DAYOFYEAR, ts, ts2)`, `takes a unit first`},
		{`timestampadd(HOUR, d, ts)`, `takes a number here (cast to BIGINT), not d (DATE)`},
		{`to_timestamp(s, 'EEE yyyy')`, `'E' only formats`},
		{`to_date(s, n)`, `string literal`},
		{`from_unixtime(ts)`, `takes seconds as an integer`},
		{`months_between(ts, ts2, 1)`, `roundOff as a boolean`},
		{`make_timestamp(2024, 1, 1, 0, 0, 0, 'Nowhere/X')`, `make_timestamp: unknown time zone "Nowhere/X"`},
		{`make_timestamp_ntz(2024, 1, 1, 0, 0, 0, 'UTC')`, `not a time zone`},
		{`make_timestamp(2024, 1, 1, 0, 0, d)`, `takes its seconds as a number or text`},
		{`make_timestamp(d, 1, 1, 0, 0, 0)`, `takes a number here (cast to INT), not d (DATE)`},
	} {
		_, err := BindValue(mustParse(t, c.e), map[string]*schema.Struct{"": sc})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	row := rec.NewSlice(0, 1)
	defer row.Release()
	for _, c := range []struct{ e, want string }{
		{`to_timestamp(s2, 'yyyy-MM-dd')`, `cannot parse '01/03/2024' with the pattern "yyyy-MM-dd"`},
		{`to_date(concat(s, 'x'), 'yyyy-MM-dd HH:mm:ss')`, `unparsed text "x"`},
		{`to_date('2023-02-29', 'yyyy-MM-dd')`, `2023-02-29 is not a date`},
		{`make_date(2023, 2, 29)`, `make_date(2023, 2, 29): not a valid date`},
		{`make_timestamp(2023, 2, 29, 0, 0, 0)`, `make_timestamp(2023, 2, 29, 0, 0, 0): invalid date 'FEBRUARY 29'`},
		{`make_timestamp(2024, 13, 1, 0, 0, 0)`, `invalid value for MonthOfYear (valid values 1 - 12): 13`},
		{`make_timestamp_ntz(2024, 1, 1, 24, 0, 0)`, `invalid value for HourOfDay (valid values 0 - 23): 24`},
		{`make_timestamp(2024, 1, 1, 0, 0, 60.5)`, `valid range for seconds is [0, 60]`},
		{`make_timestamp(2024, 1, 1, 0, 0, -1)`, `invalid value for SecondOfMinute (valid values 0 - 59): -1`},
		{`make_timestamp(2024, 1, 1, 0, 0, 12345678.5)`, `invalid value for SecondOfMinute (valid values 0 - 59): 1942`},
		{`make_timestamp(2024, 1, 1, 0, 0, 0, s)`, `make_timestamp: unknown time zone "2024-03-01 10:04:05"`},
		{`make_timestamp(999999, 1, 1, 0, 0, 0)`, `out of the range of a timestamp`},
		{`next_day(d, 'someday')`, `"someday" is not a day of the week`},
		{`timestampadd(YEAR, 2147483647, ts)`, `overflows a timestamp`},
		{`from_unixtime(sec * 100000000)`, `overflow`},
	} {
		b, err := BindValue(mustParse(t, c.e), map[string]*schema.Struct{"": sc})
		if err == nil {
			var arr arrow.Array
			if arr, err = b.Eval(t.Context(), row); err == nil {
				arr.Release()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
}
