package main

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// scanTable writes a small table partitioned by day, one row in the null
// partition, and returns its path.
func scanTable(t *testing.T) string {
	t.Helper()
	table := filepath.Join(t.TempDir(), "scores")
	in := writeFile(t, "scores.ndjson", `{"id":1,"day":"2026-01-01","score":9}
{"id":2,"day":"2025-12-31","score":10}
{"id":3,"day":"2026-01-02","score":5}
{"id":4,"day":null,"score":9}
{"id":5,"day":"2026-01-02","score":12}
`)
	mustRun(t, "write", table, "--input", in, "--partition-by", "day")
	return table
}

// ids scans with args and returns the id column of the CSV output, sorted
// (the header, which an empty result has too, dropped).
func ids(t *testing.T, table string, args ...string) string {
	t.Helper()
	out := mustRun(t, append([]string{"scan", table, "--format", "csv", "--columns", "id"}, args...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "id" {
		t.Fatalf("header %q", lines[0])
	}
	got := lines[1:]
	sort.Strings(got)
	return strings.Join(got, " ")
}

func TestScanWhere(t *testing.T) {
	table := scanTable(t)
	cases := []struct {
		args []string
		want string
	}{
		// The predicate reads columns not selected (day, score).
		{[]string{"--where", "day >= '2026-01-01' AND score > 8"}, "1 5"},
		{[]string{"--where", "day IS NULL"}, "4"},
		{[]string{"--where", "day IS NULL OR score < 6"}, "3 4"},
		{[]string{"--partition", "day="}, "4"},
		{[]string{"--partition", "day=2026-01-02"}, "3 5"},
		{[]string{"--partition", "DAY=2026-01-02", "--where", "score > 10"}, "5"},
		{[]string{"--where", "score = 99"}, ""},
	}
	for _, c := range cases {
		if got := ids(t, table, c.args...); got != c.want {
			t.Errorf("scan %s: ids %q, want %q", strings.Join(c.args, " "), got, c.want)
		}
	}
}

func TestScanWhereErrors(t *testing.T) {
	table := scanTable(t)
	cases := []struct {
		args []string
		want []string // in the error
	}{
		{[]string{"--where", "scor > 1"}, []string{"--where", "at column 1", "scor"}},
		{[]string{"--where", "score >"}, []string{"--where", "at column"}},
		{[]string{"--partition", "day>2026-01-01"}, []string{"--partition", "COLUMN=VALUE", "--where"}},
		{[]string{"--partition", "day in a,b"}, []string{"--partition", "--where"}},
		{[]string{"--partition", "score=9"}, []string{"not a partition column", "--where"}},
	}
	for _, c := range cases {
		_, err := run(t, append([]string{"scan", table, "--format", "csv"}, c.args...)...)
		if err == nil {
			t.Errorf("scan %s succeeded", strings.Join(c.args, " "))
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("scan %s: error %q lacks %q", strings.Join(c.args, " "), err, w)
			}
		}
	}
}

// TestScanRowTrackingColumns: a table written with row tracking shows each
// row's id and commit version as --columns selects them; a table without
// it refuses them, naming the property.
func TestScanRowTrackingColumns(t *testing.T) {
	table := filepath.Join(t.TempDir(), "tracked")
	in := writeFile(t, "rows.ndjson", `{"id":1}
{"id":2}
`)
	mustRun(t, "write", table, "--input", in, "--property", "delta.enableRowTracking=true")
	mustRun(t, "write", table, "--input", writeFile(t, "more.ndjson", `{"id":3}`+"\n"), "--mode", "append")
	out := mustRun(t, "scan", table, "--format", "csv", "--columns", "_metadata.row_id,id,_metadata.row_commit_version")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines[1:])
	if got := strings.Join(lines, " "); got != "_metadata.row_id,id,_metadata.row_commit_version 0,1,0 1,2,0 2,3,1" {
		t.Fatalf("scan: %q", got)
	}
	plain := scanTable(t)
	if _, err := run(t, "scan", plain, "--columns", "id,_metadata.row_id"); err == nil || !strings.Contains(err.Error(), "delta.enableRowTracking") {
		t.Fatalf("row ids of a table without row tracking: %v", err)
	}
}
