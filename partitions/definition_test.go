package partitions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func window(t *testing.T, d Definition, key string) (time.Time, time.Time) {
	t.Helper()
	s, e, err := d.(*TimeWindow).Window(key)
	if err != nil {
		t.Fatalf("Window(%q): %v", key, err)
	}
	return s, e
}

func TestDailyAcrossDST(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	d := Daily(day("2024-01-01"), WithLocation(ny))
	for key, hours := range map[string]float64{"2024-03-09": 24, "2024-03-10": 23, "2024-11-03": 25, "2024-11-04": 24} {
		s, e := window(t, d, key)
		if got := e.Sub(s).Hours(); got != hours {
			t.Errorf("%s lasts %v hours, want %v", key, got, hours)
		}
		if s.Location() != ny || s.Hour() != 0 || e.Hour() != 0 {
			t.Errorf("%s: [%s, %s) not midnight to midnight in New York", key, s, e)
		}
	}
	s, _ := window(t, d, "2024-03-10")
	if want := time.Date(2024, 3, 10, 5, 0, 0, 0, time.UTC); !s.Equal(want) {
		t.Errorf("2024-03-10 starts at %s UTC, want %s", s.UTC(), want)
	}
	keys, err := d.(*TimeWindow).KeysBetween(day("2024-03-09"), day("2024-03-12"))
	if err != nil || strings.Join(keys, " ") != "2024-03-09 2024-03-10 2024-03-11" {
		t.Errorf("KeysBetween across DST: %v %v", keys, err)
	}
	// Typed bounds: the window's instants with New York's offset of each.
	sc := tableSchema(t, "ts", "timestamp")
	p, err := Predicate(d, Expr{Column: "ts"}, []string{"2024-03-10"}, sc)
	if want := "ts >= TIMESTAMP '2024-03-10 00:00:00-05:00' AND ts < TIMESTAMP '2024-03-11 00:00:00-04:00'"; err != nil || p != want {
		t.Errorf("typed DST predicate:\n got %s (%v)\nwant %s", p, err, want)
	}
}

func TestHourlyAcrossDST(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	h := Hourly(day("2024-03-10"), WithLocation(ny)).(*TimeWindow)
	keys, err := h.KeysBetween(time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 10, 4, 0, 0, 0, time.UTC))
	// 02:00 does not exist on 2024-03-10 in New York.
	if err != nil || strings.Join(keys, " ") != "2024-03-10T00:00 2024-03-10T01:00 2024-03-10T03:00" {
		t.Errorf("spring forward: %v %v", keys, err)
	}
	if err := h.Validate("2024-03-10T02:00"); err == nil || !strings.Contains(err.Error(), "skips") {
		t.Errorf("a skipped hour: %v", err)
	}
	s, e := window(t, h, "2024-03-10T01:00")
	if e.Sub(s) != time.Hour {
		t.Errorf("01:00 before the change lasts %s", e.Sub(s))
	}
	// Fall back: 01:00 happens twice and is one window of two hours, keyed once.
	s, e = window(t, h, "2024-11-03T01:00")
	if e.Sub(s) != 2*time.Hour || e.In(ny).Hour() != 2 {
		t.Errorf("01:00 on the fall back day: [%s, %s)", s, e)
	}
	keys, _ = h.KeysBetween(time.Date(2024, 11, 3, 0, 0, 0, 0, time.UTC), time.Date(2024, 11, 3, 3, 0, 0, 0, time.UTC))
	if strings.Join(keys, " ") != "2024-11-03T00:00 2024-11-03T01:00 2024-11-03T02:00" {
		t.Errorf("fall back keys: %v", keys)
	}
}

func TestWeeklyMonthlyBoundaries(t *testing.T) {
	w := Weekly(day("2024-01-03")).(*TimeWindow) // a Wednesday: the first week starts Monday the 8th
	keys, err := w.KeysBetween(day("2024-01-01"), day("2024-02-01"))
	if err != nil || strings.Join(keys, " ") != "2024-01-08 2024-01-15 2024-01-22 2024-01-29" {
		t.Errorf("weekly keys: %v %v", keys, err)
	}
	if err := w.Validate("2024-01-01"); err == nil || !strings.Contains(err.Error(), "before the first partition \"2024-01-08\"") {
		t.Errorf("a week before the start: %v", err)
	}
	if s, e := window(t, w, "2024-12-30"); e.Sub(s) != 7*24*time.Hour || e.Format(time.DateOnly) != "2025-01-06" {
		t.Errorf("week across the year: [%s, %s)", s, e)
	}
	m := Monthly(day("2024-01-01")).(*TimeWindow)
	for key, end := range map[string]string{"2024-01-01": "2024-02-01", "2024-02-01": "2024-03-01", "2024-12-01": "2025-01-01"} {
		if _, e := window(t, m, key); e.Format(time.DateOnly) != end {
			t.Errorf("month %s ends %s, want %s", key, e, end)
		}
	}
	if err := m.Validate("2024-02-15"); err == nil || !strings.Contains(err.Error(), "first of the month") {
		t.Errorf("mid-month key: %v", err)
	}
	if err := m.Validate("2024-02-30"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("February 30: %v", err)
	}
	ym := Monthly(day("2024-01-01"), WithFormat("%Y-%m")).(*TimeWindow)
	keys, err = ym.KeysInRange("2024-11", "2025-02")
	if err != nil || strings.Join(keys, " ") != "2024-11 2024-12 2025-01 2025-02" {
		t.Errorf("KeysInRange: %v %v", keys, err)
	}
	end := Daily(day("2024-01-01"), WithEnd(day("2024-01-04"))).(*TimeWindow)
	keys, _ = end.KeysBetween(day("2023-01-01"), day("2030-01-01"))
	if strings.Join(keys, " ") != "2024-01-01 2024-01-02 2024-01-03" {
		t.Errorf("clipped to [start, end): %v", keys)
	}
}

func TestCronWindows(t *testing.T) {
	cases := []struct {
		cron, start, key, end string
	}{
		{"0 0 * * 1", "2024-01-01", "2024-01-08T00:00:00", "2024-01-15T00:00:00"},
		{"*/15 9-17 * * 1-5", "2024-01-01", "2024-01-05T17:45:00", "2024-01-08T09:00:00"}, // Friday's last to Monday's first
		{"30 6,18 * * *", "2024-01-01", "2024-01-01T18:30:00", "2024-01-02T06:30:00"},     // a list
		{"0 0 1,15 * *", "2024-01-01", "2024-02-15T00:00:00", "2024-03-01T00:00:00"},      // days of the month
		{"0 0 13 * 5", "2024-01-01", "2024-09-06T00:00:00", "2024-09-13T00:00:00"},        // dom OR dow: Fridays and the 13th
		{"0 12 * 2 0,7", "2024-01-01", "2024-02-25T12:00:00", "2025-02-02T12:00:00"},      // Sundays in February; 7 is Sunday
		{"0 0 29 2 *", "2024-01-01", "2024-02-29T00:00:00", "2028-02-29T00:00:00"},        // leap days
		{"5/20 0 * * *", "2024-01-01", "2024-01-01T00:45:00", "2024-01-02T00:05:00"},      // a step from a value
		{"0 0 1 */3 *", "2024-01-01", "2024-04-01T00:00:00", "2024-07-01T00:00:00"},       // quarters
	}
	for _, c := range cases {
		d, err := Cron(c.cron, day(c.start))
		if err != nil {
			t.Errorf("%s: %v", c.cron, err)
			continue
		}
		_, e, err := d.(*TimeWindow).Window(c.key)
		if err != nil || e.Format("2006-01-02T15:04:05") != c.end {
			t.Errorf("%s, key %s: ends %s (%v), want %s", c.cron, c.key, e.Format("2006-01-02T15:04:05"), err, c.end)
		}
	}
	for _, bad := range []struct{ cron, want string }{
		{"0 0 * *", "has 4 fields"},
		{"60 0 * * *", "minute field \"60\": 60 is outside 0-59"},
		{"0 0 * * 1-x", "\"x\" is not a number"},
		{"0 0 5-1 * *", "runs backwards"},
		{"*/0 * * * *", "not a positive number"},
		{"", "needs a schedule"},
	} {
		_, err := Cron(bad.cron, day("2024-01-01"))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Cron(%q): %v, want %q", bad.cron, err, bad.want)
		}
	}
	never, _ := Cron("0 0 30 2 *", day("2024-01-01"))
	if err := never.Validate("2024-02-30T00:00:00"); err == nil {
		t.Errorf("a schedule that never fires accepted a key")
	}
}

func TestIntervalWindows(t *testing.T) {
	d, err := Interval(90*time.Minute, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	s, e := window(t, d, "2024-01-01T01:30:00")
	if e.Sub(s) != 90*time.Minute {
		t.Errorf("interval window [%s, %s)", s, e)
	}
	if err := d.Validate("2024-01-01T01:00:00"); err == nil || !strings.Contains(err.Error(), "every 1h30m0s from 2024-01-01T00:00:00") {
		t.Errorf("off-interval key: %v", err)
	}
	if _, err := Interval(0, day("2024-01-01")); err == nil {
		t.Errorf("a zero interval was accepted")
	}
}

func TestKeyFormats(t *testing.T) {
	d := Daily(day("2024-01-01"), WithFormat("%Y/%j %%")).(*TimeWindow)
	s, e := window(t, d, "2024/060 %")
	if s.Format(time.DateOnly) != "2024-02-29" || d.Key(e) != "2024/061 %" {
		t.Errorf("day of year: %s, next key %s", s, d.Key(e))
	}
	h := Hourly(day("2024-01-01"), WithFormat("%Y%m%d%H%M%S")).(*TimeWindow)
	if _, e := window(t, h, "20240101050000"); h.Key(e) != "20240101060000" {
		t.Errorf("compact format: %s", h.Key(e))
	}
	for _, bad := range []struct{ fmt, want string }{{"%Y-%b", "%b is not supported"}, {"%Y-%", "lone %"}, {"", "empty"}} {
		if err := Daily(day("2024-01-01"), WithFormat(bad.fmt)).Validate("2024-01-01"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("format %q: %v", bad.fmt, err)
		}
	}
	for _, key := range []string{"2024-01-01x", "2024-01", "+024-01-01", "2024-00-10", "2024-01-01T00:00"} {
		if err := Daily(day("2024-01-01")).Validate(key); err == nil || !strings.Contains(err.Error(), "cannot parse partition key '"+key+"' with format '%Y-%m-%d'") {
			t.Errorf("key %q: %v", key, err)
		}
	}
}

func TestParseDefinition(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pd.json")
	if err := os.WriteFile(file, []byte(`{"kind": "hourly", "start": "2024-01-01T06:00:00", "timezone": "Europe/Paris", "fmt": "%Y%m%d%H"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := mustDef(t, file).(*TimeWindow)
	if h.Kind() != KindHourly || h.Format() != "%Y%m%d%H" || h.Location().String() != "Europe/Paris" || h.Start().Hour() != 6 {
		t.Errorf("from a file: %s %s %s %s", h.Kind(), h.Format(), h.Location(), h.Start())
	}
	for pd, kind := range map[string]string{
		`{"kind": "daily", "start": "2024-01-01", "end": "2024-02-01"}`:                                     KindDaily,
		`{"kind": "weekly", "start": "2024-01-01"}`:                                                         KindWeekly,
		`{"kind": "monthly", "start": "2024-01-01", "fmt": "%Y-%m"}`:                                        KindMonthly,
		`{"kind": "time_window", "cron": "0 0 * * 1", "start": "2024-01-01"}`:                               KindTimeWindow,
		`{"kind": "time_window", "interval_seconds": 3600, "start": "2024-01-01 00:00", "timezone": "UTC"}`: KindTimeWindow,
		`{"kind": "static", "keys": ["us", "eu"]}`:                                                          KindStatic,
		`  {"kind": "dynamic"}`: KindDynamic,
		multiPD:                 KindMulti,
	} {
		if d := mustDef(t, pd); d.Kind() != kind {
			t.Errorf("%s: kind %s", pd, d.Kind())
		}
	}
	if fmt := mustDef(t, `{"kind": "time_window", "cron": "0 0 * * 1", "start": "2024-01-01"}`).(*TimeWindow).Format(); fmt != FormatWindow {
		t.Errorf("cron default format %q", fmt)
	}
	if fmt := mustDef(t, `{"kind": "weekly", "start": "2024-01-01"}`).(*TimeWindow).Format(); fmt != FormatDaily {
		t.Errorf("weekly default format %q", fmt)
	}
	for _, c := range []struct{ pd, want string }{
		{`{"kind": "yearly", "start": "2024-01-01"}`, `unknown kind "yearly": use one of daily, hourly`},
		{`{"kind": "daily", "start": "2024-01-01", "tz": "UTC"}`, `unknown field "tz" for kind "daily": it takes kind, start, end, fmt, timezone`},
		{`{"kind": "static", "keys": ["a"], "start": "2024-01-01"}`, `unknown field "start" for kind "static"`},
		{`{"kind": "daily"}`, `needs "start"`},
		{`{"kind": "daily", "start": "01/02/2024"}`, `"start": "01/02/2024" is not a date`},
		{`{"kind": "daily", "start": "2024-01-01", "timezone": "Mars/Olympus"}`, `unknown time zone "Mars/Olympus"`},
		{`{"kind": "daily", "start": "2024-01-01", "end": "2023-01-01"}`, "before they start"},
		{`{"kind": "daily", "start": 20240101}`, `"start" must be a string`},
		{`{"kind": "time_window", "start": "2024-01-01"}`, `exactly one of "cron"`},
		{`{"kind": "time_window", "start": "2024-01-01", "cron": "0 0 * * *", "interval_seconds": 60}`, `exactly one of "cron"`},
		{`{"kind": "time_window", "start": "2024-01-01", "interval_seconds": -5}`, `"interval_seconds" must be a positive whole number, got -5`},
		{`{"kind": "time_window", "start": "2024-01-01", "cron": "0 0 * *"}`, "has 4 fields"},
		{`{"kind": "static"}`, `needs "keys"`},
		{`{"kind": "static", "keys": []}`, "at least one key"},
		{`{"kind": "static", "keys": ["a", "a"]}`, `"a" is listed twice`},
		{`{"kind": "multi", "dimensions": {"d": {"kind": "daily", "start": "2024-01-01"}}}`, "at least two dimensions"},
		{`{"kind": "multi", "dimensions": {"d": {"kind": "daily"}, "r": {"kind": "dynamic"}}}`, `dimensions.d: a daily definition needs "start"`},
		{`{"kind": "multi", "dimensions": {"d": {"kind": "dynamic"}, "r": {"kind": "static", "keys": ["a,b"]}}}`, `static key "a,b" of multi partition dimension "r" holds a ','`},
		{`{"kind": "multi", "dimensions": {"d": {"kind": "dynamic"}, "m": ` + multiPD + `}}`, `dimension "m" is itself multi`},
		{`{"kind": "daily",` + "\n" + `  "start": "2024-01-01",}`, "line 2, column 25"},
		{`{"kind": "daily"`, "line 1, column 16: unexpected end of JSON input"},
		{`{"kind": "dynamic"} {}`, "line 1, column 21: invalid character '{' after top-level value"},
		{`[1]`, `is a JSON object with a "kind", got [1]`},
		{`daily`, "neither inline JSON"},
	} {
		_, err := ParseDefinition(c.pd)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", c.pd, err, c.want)
		}
	}
}

func TestParseExpr(t *testing.T) {
	for in, want := range map[string]string{"date": "date", `{"date": "d", "region": "r"}`: `{"date":"d","region":"r"}`, "": ""} {
		e, err := ParseExpr(in)
		if err != nil || e.String() != want {
			t.Errorf("ParseExpr(%q) = %q, %v", in, e, err)
		}
	}
	for in, want := range map[string]string{`{"date": 1}`: `dimension "date" must map to a column name`, `{}`: "maps no dimension", `{"date": "d"`: "is not a JSON object"} {
		if _, err := ParseExpr(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseExpr(%q): %v, want %q", in, err, want)
		}
	}
	cols, err := Columns(mustDef(t, multiPD), Expr{Columns: map[string]string{"region": "r", "date": "d"}})
	if err != nil || strings.Join(cols, ",") != "d,r" {
		t.Errorf("Columns: %v %v", cols, err)
	}
}

// A multi expression keeps the order its JSON object writes the
// dimensions in: the order of the table's partition columns.
func TestParseExprKeepsOrder(t *testing.T) {
	e, err := ParseExpr(`{"region": "r", "date": "d"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.String(); got != `{"region":"r","date":"d"}` {
		t.Errorf("String() = %s", got)
	}
	cols, err := Columns(mustDef(t, multiPD), e)
	if err != nil || strings.Join(cols, ",") != "r,d" {
		t.Errorf("Columns: %v %v", cols, err)
	}
}

// A key given twice in a definition or a partition expression is refused
// naming it: JSON decoders would keep the last one silently.
func TestParseDuplicateKeys(t *testing.T) {
	for pd, path := range map[string]string{
		`{"kind": "daily", "start": "2024-01-01", "start": "2025-01-01"}`:                                     "start",
		`{"kind": "multi", "dimensions": {"d": {"kind": "dynamic"}, "d": {"kind": "static", "keys": ["a"]}}}`: "dimensions.d",
	} {
		if _, err := ParseDefinition(pd); err == nil || !strings.Contains(err.Error(), `duplicate key "`+path+`"`) {
			t.Errorf("%s: %v, want duplicate key %q", pd, err, path)
		}
	}
	if _, err := ParseExpr(`{"date": "d", "region": "r", "date": "x"}`); err == nil || !strings.Contains(err.Error(), `duplicate key "date"`) {
		t.Errorf("ParseExpr: %v", err)
	}
}
