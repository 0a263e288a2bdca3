package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// datetimeRows are timestamps and dates both here and in Spark (UTC).
var datetimeRows = []struct{ ts, d string }{
	{"2024-03-01T10:04:05.123456Z", "2024-03-01"},
	{"2024-02-29T23:59:59.999999Z", "2024-02-29"},
	{"1969-12-31T23:00:00Z", "1969-12-31"},
	{"2023-01-01T00:00:00Z", "2023-01-01"}, // a Sunday
	{"2026-12-04T13:30:00.5Z", "2026-10-15"},
	{"2021-01-03T01:00:00Z", "2024-01-31"}, // ISO week 53 of 2020; a month's end
	{"2019-12-30T00:00:00Z", "2023-05-31"}, // ISO week 1 of 2020
	{"", ""},
}

// datetimeExprs are the generated-column functions of Spark's
// GeneratedColumn partition expressions (and their neighbours), evaluated
// here and by Spark.
var datetimeExprs = []string{
	`hour(ts)`, `minute(ts)`, `second(ts)`, `hour(d)`,
	`date_format(ts, 'yyyy-MM')`, `date_format(ts, 'yyyy-MM-dd')`, `date_format(ts, 'yyyy-MM-dd-HH')`,
	`date_format(ts, 'yyyy-MM-dd HH:mm:ss.SSS')`, `date_format(d, 'yyyyMMdd')`, `date_format(CAST(d AS TIMESTAMP), 'yyyy-MM')`,
	`date_format(ts, 'EEE, MMM d h:mm a')`, `date_format(ts, 'EEEE MMMM D yy')`, `date_format(ts, '''Q''yyyy')`,
	`date_trunc('HOUR', ts)`, `date_trunc('day', ts)`, `date_trunc('WEEK', ts)`, `date_trunc('QUARTER', ts)`,
	`date_trunc('YEAR', ts)`, `date_trunc('MONTH', d)`, `date_trunc('MINUTE', ts)`, `date_trunc('SECOND', ts)`,
	`date_trunc('MILLISECOND', ts)`, `date_trunc('bogus', ts)`,
	`trunc(d, 'MM')`, `trunc(ts, 'YEAR')`, `trunc(d, 'WEEK')`, `trunc(d, 'QUARTER')`, `trunc(d, 'DD')`,
	`CAST(ts AS DATE)`, `year(ts)`, `month(ts)`, `day(ts)`,
	`dayofyear(ts)`, `quarter(d)`, `dayofweek(ts)`, `weekday(d)`, `weekofyear(d)`, `weekofyear(ts)`,
	`last_day(d)`, `last_day(ts)`, `add_months(d, 1)`, `add_months(d, -13)`, `add_months(ts, 12)`,
	`concat(date_format(ts, 'yyyy'), '/', substring(CAST(d AS STRING), 6, 2))`,
}

func datetimeBatch(t *testing.T) (*schema.Struct, arrow.RecordBatch) {
	t.Helper()
	return datetimeBatchOf(t, datetimeRows)
}

// datetimeBatchOf is the batch of rows (n, ts, d).
func datetimeBatchOf(t *testing.T, datetimeRows []struct{ ts, d string }) (*schema.Struct, arrow.RecordBatch) {
	t.Helper()
	sc := &schema.Struct{Fields: []*schema.Field{
		{Name: "n", Type: &schema.Primitive{Name: schema.Integer}, Nullable: true},
		{Name: "ts", Type: &schema.Primitive{Name: schema.Timestamp}, Nullable: true},
		{Name: "d", Type: &schema.Primitive{Name: schema.Date}, Nullable: true},
	}}
	as := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	var rows []string
	for i, r := range datetimeRows {
		if r.ts == "" {
			rows = append(rows, fmt.Sprintf(`{"n":%d,"ts":null,"d":null}`, i))
			continue
		}
		rows = append(rows, fmt.Sprintf(`{"n":%d,"ts":%q,"d":%q}`, i, r.ts, r.d))
	}
	return sc, jsonBatch(t, as, rows)
}

// Spark computes the same values as this package for the datetime
// functions a generated column may use: one batched query over the same
// rows, each value compared as CAST(... AS STRING); then the same for the
// functions of timefuncs.go.
func TestDatetimeAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec := datetimeBatch(t)
	var vals []string
	for i, r := range datetimeRows {
		if r.ts == "" {
			vals = append(vals, fmt.Sprintf("(%d, CAST(NULL AS TIMESTAMP), CAST(NULL AS DATE))", i))
			continue
		}
		vals = append(vals, fmt.Sprintf("(%d, TIMESTAMP'%s', DATE'%s')", i, strings.TrimSuffix(strings.Replace(r.ts, "T", " ", 1), "Z"), r.d))
	}
	sparkAgrees(t, s, sc, rec, datetimeExprs, vals, "n, ts, d")
	sc, rec = timeBatch(t)
	sparkAgrees(t, s, sc, rec, timeExprs, timeValues(), "n, ts, ts2, d, s, s2, sec")
}

// A pattern or unit this engine cannot apply is refused when the
// expression is bound, naming it.
func TestDatetimeRefusals(t *testing.T) {
	sc, _ := datetimeBatch(t)
	for _, c := range []struct{ e, want string }{
		{`date_format(ts, 'yyyy-QQ')`, `pattern letter 'Q'`},
		{`date_format(ts, 'yyyy''x')`, `unterminated quote`},
		{`date_format(ts, CAST(n AS STRING))`, `string literal`},
		{`hour(n)`, `needs a timestamp`},
	} {
		_, err := BindValue(mustParse(t, c.e), map[string]*schema.Struct{"": sc})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
}
