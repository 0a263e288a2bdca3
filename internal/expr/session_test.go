package expr

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sessionZones are the zones the session tests run in: one with daylight
// saving time, one a fixed offset of half an hour.
var sessionZones = []string{"America/Los_Angeles", "+05:30"}

// Rows around Los Angeles's daylight-saving transitions of 2024: the gap
// of March 10 (02:00 PST to 03:00 PDT at 10:00Z) and the overlap of
// November 3 (02:00 PDT back to 01:00 PST at 09:00Z), and a new year in
// +05:30 that is still the old one in UTC.
var zoneDatetimeRows = append([]struct{ ts, d string }{
	{"2024-03-10T09:59:59Z", "2024-03-10"},
	{"2024-03-10T10:00:00Z", "2024-03-09"},
	{"2024-11-03T07:00:00Z", "2024-11-03"},
	{"2024-11-03T08:30:00Z", "2024-11-02"},
	{"2024-11-03T09:30:00Z", "2024-11-03"},
	{"2024-12-31T20:00:00Z", "2024-12-31"},
}, datetimeRows...)

var zoneTimeRows = append([]struct{ ts, ts2, d, s, s2 string }{
	{"2024-03-10T10:30:00", "2024-03-09T10:30:00", "2024-03-10", "2024-03-10 02:30:00", "10/03/2024"},
	{"2024-11-03T09:30:00", "2024-10-03T08:30:00", "2024-11-03", "2024-11-03 01:30:00", "03/11/2024"},
	{"2024-11-02T08:30:00", "2024-11-04T09:30:00", "2024-11-02", "2024-11-03 00:59:59", "02/11/2024"},
	{"2024-11-04T09:30:00", "2024-11-03T08:59:59.5", "2024-11-04", "2024-11-03 02:00:00", "04/11/2024"},
	{"2024-12-31T20:00:00", "2025-01-31T18:29:00", "2024-12-31", "2024-12-31 23:30:00", "31/12/2024"},
}, timeRows...)

// zoneExprs are further expressions whose value depends on the session
// time zone: casts between TIMESTAMP and text, DATE or TIMESTAMP_NTZ,
// timestamp literals and text compared with a TIMESTAMP, and the units of
// timestampadd that move along the local time-line into an overlap.
var zoneExprs = []string{
	`CAST(s AS TIMESTAMP)`, `CAST(d AS TIMESTAMP)`, `CAST(ts AS TIMESTAMP_NTZ)`, `CAST(CAST(s AS TIMESTAMP_NTZ) AS TIMESTAMP)`,
	`hour(CAST(ts AS TIMESTAMP_NTZ))`, `ts >= CAST(s AS TIMESTAMP)`, `ts = TIMESTAMP '2024-11-03 01:30:00'`,
	`ts < '2024-11-03 01:30:00'`, `ts > d`, `date(ts)`, `to_date(ts)`, `CAST(ts AS STRING)`,
	`timestampadd(DAY, 1, ts)`, `timestampadd(DAY, -1, ts)`, `timestampadd(MONTH, 1, ts2)`, `timestampadd(HOUR, 24, ts)`,
	`timestampdiff(DAY, ts2, ts)`, `timestampdiff(HOUR, ts2, ts)`, `date_trunc('DAY', ts)`, `date_trunc('HOUR', ts2)`,
	`from_unixtime(sec, 'yyyy-MM-dd HH:mm')`, `unix_timestamp(s)`, `to_timestamp(s)`, `TIMESTAMP '2024-03-10 02:30:00'`,
	`to_utc_timestamp(ts, 'Asia/Tokyo')`, `CAST(TIMESTAMP_NTZ '2024-11-03 01:30:00' AS TIMESTAMP)`,
	`from_utc_timestamp(ts, 'PST')`, `from_utc_timestamp(ts, 'IST')`, `to_utc_timestamp(ts, 'EST')`, `from_utc_timestamp(ts, 'Japan')`,
	`from_utc_timestamp(ts, 'Etc/GMT+8')`, `to_utc_timestamp(ts, 'CNT')`,
}

// Spark computes the same values as this package for every datetime
// function, cast and literal in a session whose time zone is not UTC, on
// rows around daylight-saving transitions.
func TestDatetimeAgreesWithSparkInZones(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	t.Cleanup(func() { s.Run(t, peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=UTC"}) })
	for _, zone := range sessionZones {
		t.Run(zone, func(t *testing.T) {
			sess, err := NewSession(zone)
			if err != nil {
				t.Fatal(err)
			}
			s.Run(t, peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=" + zone})
			sc, rec := datetimeBatchOf(t, zoneDatetimeRows)
			var vals []string
			for i, r := range zoneDatetimeRows {
				if r.ts == "" {
					vals = append(vals, fmt.Sprintf("(%d, CAST(NULL AS TIMESTAMP), CAST(NULL AS DATE))", i))
					continue
				}
				vals = append(vals, fmt.Sprintf("(%d, TIMESTAMP'%s', DATE'%s')", i, strings.Replace(r.ts, "T", " ", 1), r.d))
			}
			sparkAgreesIn(t, s, sess, sc, rec, datetimeExprs, vals, "n, ts, d")
			sc, rec = timeBatchOf(t, zoneTimeRows)
			sparkAgreesIn(t, s, sess, sc, rec, append(append([]string{}, timeExprs...), zoneExprs...), timeValuesOf(zoneTimeRows, "Z"), "n, ts, ts2, d, s, s2, sec")
		})
	}
}

// A zone is read as Spark reads spark.sql.session.timeZone; another is
// refused, naming it.
func TestNewSession(t *testing.T) {
	for _, z := range []string{"", "UTC", "Z", "America/New_York", "+05:30", "-08:00", "GMT+8", "Asia/Kolkata", "PST", "EST", "Japan", "Etc/GMT+8"} {
		if _, err := NewSession(z); err != nil {
			t.Errorf("%q: %v", z, err)
		}
	}
	for _, z := range []string{"Mars/Olympus", "+25:00", "EST5EDT!", "local"} {
		_, err := NewSession(z)
		if err == nil || !strings.Contains(err.Error(), z) {
			t.Errorf("%q: %v, want an error naming it", z, err)
		}
	}
	sc := &schema.Struct{Fields: []*schema.Field{{Name: "ts", Type: tTimestamp, Nullable: true}}}
	la, _ := NewSession("America/Los_Angeles")
	b, err := la.ParsePredicate(`ts >= TIMESTAMP '2024-11-03 01:30:00' AND ts < '2024-11-04'`, sc)
	if err != nil {
		t.Fatal(err)
	}
	// The rendered predicate reads as the same instants again in the
	// same session.
	again, err := la.ParsePredicate(b.String(), sc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(again.Expr()), fmt.Sprint(b.Expr()); got != want {
		t.Errorf("rebound %s, want %s", got, want)
	}
}

// A range on a TIMESTAMP rules out no partition of a generated column that
// holds a matching row, in zones whose clocks go back: by an hour (Los
// Angeles; São Paulo in 2018, from midnight to 23:00), across midnight
// (St. John's in 2010, from 00:01 back to 23:01 of the day before: the
// local date goes back a day) and by half an hour (Lord Howe Island);
// every row the predicate selects satisfies the partition filter derived
// from it.
func TestGeneratedPartitionFilterInZones(t *testing.T) {
	gens := []struct{ name, typ, form string }{
		{"d", schema.Date, "CAST(ts AS DATE)"},
		{"h", schema.String, "date_format(ts, 'yyyy-MM-dd-HH')"},
		{"tr", schema.Timestamp, "date_trunc('HOUR', ts)"},
		{"dt", schema.Timestamp, "date_trunc('DAY', ts)"},
		{"y", schema.Integer, "year(ts)"},
		{"m", schema.Integer, "month(ts)"},
		{"dd", schema.Integer, "day(ts)"},
		{"hh", schema.Integer, "hour(ts)"},
	}
	sc := &schema.Struct{Fields: []*schema.Field{{Name: "ts", Type: tTimestamp, Nullable: true}}}
	var parts []string
	for _, g := range gens {
		f := &schema.Field{Name: g.name, Type: &schema.Primitive{Name: g.typ}, Nullable: true,
			Metadata: map[string]any{schema.GenerationExpressionKey: g.form}}
		sc.Fields = append(sc.Fields, f)
		parts = append(parts, g.name)
	}
	for _, c := range []struct {
		zone   string
		change string // an instant the clocks go back at
	}{
		{"America/Los_Angeles", "2024-11-03T09:00:00Z"},
		{"America/Sao_Paulo", "2018-02-18T02:00:00Z"},
		{"America/St_Johns", "2010-11-07T02:31:00Z"},
		{"Australia/Lord_Howe", "2024-04-06T15:00:00Z"},
		{"+05:30", "2024-12-31T18:30:00Z"},
	} {
		t.Run(c.zone, func(t *testing.T) {
			sess, err := NewSession(c.zone)
			if err != nil {
				t.Fatal(err)
			}
			at, err := time.Parse(time.RFC3339, c.change)
			if err != nil {
				t.Fatal(err)
			}
			// Every 10 minutes from 26 hours before the change to 26 after.
			var rows []string
			var texts []string
			for i := -26 * 6; i <= 26*6; i++ {
				tm := at.Add(time.Duration(i) * 10 * time.Minute)
				rows = append(rows, fmt.Sprintf(`{"ts":%q}`, tm.Format(time.RFC3339)))
				if i%3 == 0 {
					texts = append(texts, tm.In(sess.Zone()).Format("2006-01-02 15:04:05"), tm.Format("2006-01-02 15:04:05Z"))
				}
			}
			// And the last second before the change.
			last := at.Add(-time.Second)
			texts = append(texts, last.In(sess.Zone()).Format("2006-01-02 15:04:05"), last.Format("2006-01-02 15:04:05Z"))
			as := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true}}, nil)
			src := jsonBatch(t, as, rows)
			// The generated columns, computed in the session.
			cols, fields := []arrow.Array{src.Column(0)}, []arrow.Field{as.Field(0)}
			for _, g := range gens {
				b, err := sess.BindValue(mustParse(t, g.form), map[string]*schema.Struct{"": {Fields: sc.Fields[:1]}})
				if err != nil {
					t.Fatal(err)
				}
				arr, err := b.Eval(context.Background(), src)
				if err != nil {
					t.Fatal(err)
				}
				defer arr.Release()
				cols, fields = append(cols, arr), append(fields, arrow.Field{Name: g.name, Type: arr.DataType(), Nullable: true})
			}
			rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, src.NumRows())
			defer rec.Release()
			derived := 0
			for _, text := range texts {
				for _, op := range []string{">=", ">", "<=", "<", "="} {
					src := fmt.Sprintf("ts %s '%s'", op, text)
					pred, err := sess.ParsePredicate(src, sc)
					if err != nil {
						t.Fatal(err)
					}
					g := sess.GeneratedPartitionFilter(pred.Expr(), sc, parts)
					if g == nil {
						t.Fatalf("%s: no partition filter", src)
					}
					derived++
					gb, err := sess.BindTable(g, sc)
					if err != nil {
						t.Fatalf("%s: %s: %v", src, g, err)
					}
					want, got := evalBools(t, pred, rec), evalBools(t, gb, rec)
					for i := range want {
						if want[i] && !got[i] {
							t.Fatalf("%s selects row %s, whose partition %s rules out", src, rows[i], g)
						}
					}
				}
			}
		})
	}
}

// evalBools is predicate b on every row of rec, NULL as false.
func evalBools(t *testing.T, b *Bound, rec arrow.RecordBatch) []bool {
	t.Helper()
	arr, err := b.Eval(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	bs := arr.(*array.Boolean)
	out := make([]bool, bs.Len())
	for i := range out {
		out[i] = bs.IsValid(i) && bs.Value(i)
	}
	return out
}

// A DATE column's statistics compared with a TIMESTAMP read the date as
// its local midnight in the session's zone: in Los Angeles 2024-01-01 is
// 08:00Z, after 03:00Z, so the file may match (in UTC it may not).
func TestDateStatisticsAsLocalMidnight(t *testing.T) {
	sc := &schema.Struct{Fields: []*schema.Field{{Name: "d", Type: tDate, Nullable: true}}}
	fs := statsFile(sc, `{"numRecords":1,"minValues":{"d":"2024-01-01"},"maxValues":{"d":"2024-01-01"},"nullCount":{"d":0}}`)
	const pred = `d >= TIMESTAMP '2024-01-01 03:00:00Z'`
	la, _ := NewSession("America/Los_Angeles")
	for _, c := range []struct {
		sess Session
		want Tristate
	}{{la, True}, {Session{}, False}} {
		b, err := c.sess.ParsePredicate(pred, sc)
		if err != nil {
			t.Fatal(err)
		}
		if got := Decide(b, File{Stats: fs}); got != c.want {
			t.Errorf("%s in %v: %v, want %v", pred, c.sess.Zone(), got, c.want)
		}
	}
}
