package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCLIAssetPredicate(t *testing.T) {
	pd := writeFile(t, "pd.json", `{"kind": "multi", "dimensions": {"region": {"kind": "static", "keys": ["us", "eu"]}, "date": {"kind": "daily", "start": "2024-01-01"}}}`)
	out := mustRun(t, "asset", "predicate", "--partitions-def", pd,
		"--partition-key", "date=2024-01-02,region=us", "--partition-key", "date=2024-01-03,region=eu",
		"--metadata", `delta/partition_expr={"region":"region_col","date":"event_date"}`)
	want := `{"predicate":"(event_date >= '2024-01-02' AND event_date < '2024-01-03' AND region_col = 'us') OR (event_date >= '2024-01-03' AND event_date < '2024-01-04' AND region_col = 'eu')",` +
		`"filters":[[["event_date",">=","2024-01-02"],["event_date","<","2024-01-03"],["region_col","=","us"]],[["event_date",">=","2024-01-03"],["event_date","<","2024-01-04"],["region_col","=","eu"]]]}` + "\n"
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	var doc struct {
		Predicate string
		Filters   [][][]any
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Filters) != 2 || doc.Filters[1][2][2] != "eu" {
		t.Fatalf("shape: %v %+v", err, doc)
	}
	out = mustRun(t, "asset", "predicate", "--partitions-def", `{"kind": "static", "keys": ["1", "2"]}`,
		"--partition-key", "2", "--metadata", "delta/partition_expr=n")
	if out != `{"predicate":"n = '2'","filters":[[["n","=","2"]]]}`+"\n" {
		t.Fatalf("static: %s", out)
	}
}

// With --table the bounds are typed against the table's columns, and the
// predicate selects the partition's rows there.
func TestCLIAssetPredicateTyped(t *testing.T) {
	sc := writeFile(t, "schema.json", `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"day","type":"date","nullable":true,"metadata":{}}]}`)
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "create", table, "--schema", sc, "--partition-by", "day")
	mustRun(t, "write", table, "--mode", "append", "--input", writeFile(t, "rows.csv", "id,day\n1,2024-01-31\n2,2024-02-01\n3,2024-02-29\n4,2024-03-01\n"))
	out := mustRun(t, "asset", "predicate", "--table", table, "--partitions-def", `{"kind": "monthly", "start": "2024-01-01", "fmt": "%Y-%m"}`,
		"--partition-key", "2024-02", "--metadata", "delta/partition_expr=day")
	want := `{"predicate":"day >= DATE '2024-02-01' AND day < DATE '2024-03-01'","filters":[[["day",">=","2024-02-01"],["day","<","2024-03-01"]]]}` + "\n"
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	var doc struct{ Predicate string }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	rows := strings.Fields(mustRun(t, "scan", table, "--format", "csv", "--columns", "id", "--where", doc.Predicate))
	if slices.Sort(rows); strings.Join(rows, " ") != "2 3 id" {
		t.Errorf("the predicate selects %v", rows)
	}
}

func TestCLIAssetPredicateErrors(t *testing.T) {
	daily := `{"kind": "daily", "start": "2024-01-01"}`
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--partition-key", "2024-01-02", "--metadata", "delta/partition_expr=d"}, "--partitions-def is required"},
		{[]string{"--partitions-def", `{"kind": "yearly", "start": "2024-01-01"}`, "--partition-key", "x", "--metadata", "delta/partition_expr=d"}, `unknown kind "yearly"`},
		{[]string{"--partitions-def", `{"kind": "daily", "start": "2024-01-01", "tz": "UTC"}`, "--partition-key", "x", "--metadata", "delta/partition_expr=d"}, `unknown field "tz"`},
		{[]string{"--partitions-def", "nope.json", "--partition-key", "x", "--metadata", "delta/partition_expr=d"}, "neither inline JSON"},
		{[]string{"--partitions-def", daily, "--metadata", "delta/partition_expr=d"}, "no partition key"},
		{[]string{"--partitions-def", daily, "--partition-key", "2024-01-02"}, "delta/partition_expr is required"},
		{[]string{"--partitions-def", daily, "--partition-key", "01/02/2024", "--metadata", "delta/partition_expr=d"}, "cannot parse partition key '01/02/2024' with format '%Y-%m-%d'"},
		{[]string{"--partitions-def", daily, "--partition-key", "2024-01-02", "--metadata", "delta/partition_expr"}, "--metadata #1"},
	} {
		out, err := run(t, append([]string{"asset", "predicate"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (want %q)", c.args, err, c.want)
		}
		if out != "" {
			t.Errorf("%v printed %q", c.args, out)
		}
	}
}
