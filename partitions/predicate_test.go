package partitions

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func mustDef(t *testing.T, pd string) Definition {
	t.Helper()
	d, err := ParseDefinition(pd)
	if err != nil {
		t.Fatalf("ParseDefinition(%s): %v", pd, err)
	}
	return d
}

func mustExpr(t *testing.T, s string) Expr {
	t.Helper()
	e, err := ParseExpr(s)
	if err != nil {
		t.Fatalf("ParseExpr(%s): %v", s, err)
	}
	return e
}

const multiPD = `{"kind": "multi", "dimensions": {"region": {"kind": "static", "keys": ["us", "eu", "ap"]}, "date": {"kind": "daily", "start": "2024-01-01"}}}`
const multiExpr = `{"region":"region_col","date":"event_date"}`

// The predicates rivers prints (research §4), one case per row.
func TestPredicateSeedForms(t *testing.T) {
	weekly, _ := Cron("0 0 * * 1", day("2024-01-01"))
	monthly, _ := Cron("0 0 1 * *", day("2024-01-01"))
	monthlyYM, _ := Cron("0 0 1 * *", day("2024-01-01"), WithFormat("%Y-%m"))
	multi := mustDef(t, multiPD)
	cases := []struct {
		name string
		def  Definition
		expr string
		keys []string
		want string
	}{
		{"daily", Daily(day("2024-01-01")), "date", []string{"2024-01-02"}, `date >= '2024-01-02' AND date < '2024-01-03'`},
		{"hourly", Hourly(day("2024-01-01")), "ts", []string{"2024-01-01T05:00"}, `ts >= '2024-01-01T05:00' AND ts < '2024-01-01T06:00'`},
		{"weekly cron", weekly, "ts", []string{"2024-01-08T00:00:00"}, `ts >= '2024-01-08T00:00:00' AND ts < '2024-01-15T00:00:00'`},
		{"monthly cron", monthly, "ts", []string{"2024-02-01T00:00:00"}, `ts >= '2024-02-01T00:00:00' AND ts < '2024-03-01T00:00:00'`},
		{"monthly %Y-%m", monthlyYM, "ts", []string{"2024-02"}, `ts >= '2024-02' AND ts < '2024-03'`},
		{"daily backfill", Daily(day("2024-01-01")), "date", []string{"2024-01-02", "2024-01-03"},
			`(date >= '2024-01-02' AND date < '2024-01-03') OR (date >= '2024-01-03' AND date < '2024-01-04')`},
		{"static", Static("us", "eu", "o'x"), "region", []string{"us"}, `region = 'us'`},
		{"static quote", Static("us", "eu", "o'x"), "region", []string{"o'x"}, `region = 'o''x'`},
		{"static 2 keys", Static("us", "eu", "o'x"), "region", []string{"us", "eu"}, `region IN ('us', 'eu')`},
		{"dynamic", Dynamic(), "customer", []string{"acme"}, `customer = 'acme'`},
		{"dynamic 2 keys", Dynamic(), "customer", []string{"acme", "globex"}, `customer IN ('acme', 'globex')`},
		{"multi", multi, multiExpr, []string{"date=2024-01-02,region=us"},
			`event_date >= '2024-01-02' AND event_date < '2024-01-03' AND region_col = 'us'`},
		{"multi cartesian", multi, multiExpr, []string{"region=us,date=2024-01-02", "date=2024-01-02,region=eu"},
			`event_date >= '2024-01-02' AND event_date < '2024-01-03' AND region_col IN ('us', 'eu')`},
		{"multi cartesian 2 dates", multi, multiExpr, []string{"date=2024-01-02,region=us", "date=2024-01-03,region=us"},
			`event_date IN ('2024-01-02', '2024-01-03') AND region_col = 'us'`},
		{"multi non-cartesian", multi, multiExpr, []string{"date=2024-01-02,region=us", "date=2024-01-03,region=eu"},
			`(event_date >= '2024-01-02' AND event_date < '2024-01-03' AND region_col = 'us') OR (event_date >= '2024-01-03' AND event_date < '2024-01-04' AND region_col = 'eu')`},
		// Beyond the table: rows grouped by the first dimension.
		{"multi partly cartesian", multi, multiExpr, []string{"date=2024-01-02,region=us", "date=2024-01-02,region=eu", "date=2024-01-03,region=us"},
			`(event_date >= '2024-01-02' AND event_date < '2024-01-03' AND region_col IN ('us', 'eu')) OR (event_date >= '2024-01-03' AND event_date < '2024-01-04' AND region_col = 'us')`},
		{"duplicate keys", Static("us", "eu"), "region", []string{"us", "us"}, `region = 'us'`},
		{"quoted column", Static("us"), "my region", []string{"us"}, "`my region` = 'us'"},
		{"keyword column", Static("us"), "in", []string{"us"}, "`in` = 'us'"},
		{"backslash", Dynamic(), "c", []string{`a\b`}, `c = 'a\\b'`},
	}
	for _, c := range cases {
		got, err := Predicate(c.def, mustExpr(t, c.expr), c.keys, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestPredicateThreeDimensions(t *testing.T) {
	def := Multi(map[string]Definition{
		"date":    Daily(day("2024-01-01")),
		"region":  Static("us", "eu"),
		"product": Static("a", "b"),
	})
	e := Expr{Columns: map[string]string{"date": "d", "region": "r", "product": "p"}}
	cases := []struct {
		keys []string
		want string
	}{
		// (a, b) x 01-02 x (us, eu): a product.
		{[]string{"date=2024-01-02,product=a,region=us", "date=2024-01-02,product=a,region=eu",
			"date=2024-01-02,product=b,region=us", "date=2024-01-02,product=b,region=eu"},
			`d >= '2024-01-02' AND d < '2024-01-03' AND p IN ('a', 'b') AND r IN ('us', 'eu')`},
		// Two dates share a product of the other dimensions; a third date does not.
		{[]string{"date=2024-01-02,product=a,region=us", "date=2024-01-02,product=a,region=eu",
			"date=2024-01-03,product=a,region=us", "date=2024-01-03,product=a,region=eu",
			"date=2024-01-04,product=b,region=us"},
			`(d IN ('2024-01-02', '2024-01-03') AND p = 'a' AND r IN ('us', 'eu')) OR (d >= '2024-01-04' AND d < '2024-01-05' AND p = 'b' AND r = 'us')`},
		// One date; below it the other two dimensions are not a product.
		{[]string{"date=2024-01-02,product=a,region=us", "date=2024-01-02,product=b,region=eu"},
			`d >= '2024-01-02' AND d < '2024-01-03' AND ((p = 'a' AND r = 'us') OR (p = 'b' AND r = 'eu'))`},
	}
	for _, c := range cases {
		got, err := Predicate(def, e, c.keys, nil)
		if err != nil || got != c.want {
			t.Errorf("%v:\n got %s (%v)\nwant %s", c.keys, got, err, c.want)
		}
	}
}

func TestFilters(t *testing.T) {
	cases := []struct {
		def  Definition
		expr string
		keys []string
		want string
	}{
		{Daily(day("2024-01-01")), "date", []string{"2024-01-02"}, `[[["date",">=","2024-01-02"],["date","<","2024-01-03"]]]`},
		{Static("us", "eu"), "region", []string{"us", "eu"}, `[[["region","=","us"]],[["region","=","eu"]]]`},
		{mustDef(t, multiPD), multiExpr, []string{"region=us,date=2024-01-02", "date=2024-01-03,region=eu"},
			`[[["event_date",">=","2024-01-02"],["event_date","<","2024-01-03"],["region_col","=","us"]],[["event_date",">=","2024-01-03"],["event_date","<","2024-01-04"],["region_col","=","eu"]]]`},
	}
	for _, c := range cases {
		fs, err := Filters(c.def, mustExpr(t, c.expr), c.keys, nil)
		if err != nil {
			t.Errorf("%v: %v", c.keys, err)
			continue
		}
		b := jsonText(fs)
		if string(b) != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.keys, b, c.want)
		}
		var back [][]Filter
		if err := json.Unmarshal(b, &back); err != nil || len(back) != len(fs) || back[0][0].Column != fs[0][0].Column {
			t.Errorf("round trip of %s: %v %v", b, back, err)
		}
	}
}

func jsonText(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

func TestPredicateErrors(t *testing.T) {
	multi := mustDef(t, multiPD)
	daily := Daily(day("2024-01-01"))
	cases := []struct {
		name string
		def  Definition
		expr string
		keys []string
		want []string
	}{
		{"no expr", daily, "", []string{"2024-01-02"}, []string{"delta/partition_expr is required", "daily"}},
		{"dict for single", daily, `{"date":"d"}`, []string{"2024-01-02"}, []string{`{"date":"d"}`, "one dimension", "column's name"}},
		{"string for multi", multi, "date", []string{"date=2024-01-02,region=us"}, []string{`"date" is a column name`, `"date", "region"`}},
		{"dict missing a dimension", multi, `{"region":"r"}`, []string{"date=2024-01-02,region=us"}, []string{`{"region":"r"}`, `dimension "date"`}},
		{"dict extra dimension", multi, `{"region":"r","date":"d","x":"y"}`, []string{"date=2024-01-02,region=us"}, []string{`"x"`, "not a dimension"}},
		{"unparsable time key", daily, "date", []string{"2024-13-01"}, []string{`cannot parse partition key '2024-13-01' with format '%Y-%m-%d'`}},
		{"short time key", daily, "date", []string{"2024-1-02"}, []string{`'2024-1-02'`, "%m needs 2 digits"}},
		{"weekly not Monday", Weekly(day("2024-01-01")), "d", []string{"2024-01-03"}, []string{`"2024-01-03"`, "not on the weekly schedule", "Monday"}},
		{"before start", daily, "d", []string{"2023-12-31"}, []string{`"2023-12-31"`, "before the first partition"}},
		{"after end", Daily(day("2024-01-01"), WithEnd(day("2024-02-01"))), "d", []string{"2024-02-01"}, []string{`"2024-02-01"`, "after the last partition"}},
		{"static unknown", Static("us", "eu"), "r", []string{"ap"}, []string{`"ap"`, `"us", "eu"`}},
		{"multi bad dim key", multi, multiExpr, []string{"date=2024-01-02,region=xx"}, []string{`"date=2024-01-02,region=xx"`, `dimension "region"`, `"xx"`}},
		{"multi missing dim", multi, multiExpr, []string{"date=2024-01-02"}, []string{`no key for dimension "region"`}},
		{"multi unknown dim", multi, multiExpr, []string{"date=2024-01-02,region=us,x=1"}, []string{`unknown dimension "x"`}},
		{"multi twice", multi, multiExpr, []string{"date=2024-01-02,region=us,region=eu"}, []string{`"region" twice`}},
		{"multi not k=v", multi, multiExpr, []string{"2024-01-02,us"}, []string{`"2024-01-02" is not dimension=key`}},
		{"no keys", daily, "d", nil, []string{"no partition key"}},
		{"unpartitioned", nil, "d", []string{"x"}, []string{"not partitioned"}},
	}
	for _, c := range cases {
		_, err := Predicate(c.def, mustExpr(t, c.expr), c.keys, nil)
		_, ferr := Filters(c.def, mustExpr(t, c.expr), c.keys, nil)
		if err == nil || ferr == nil {
			t.Errorf("%s: no error (%v, %v)", c.name, err, ferr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
	}
}
