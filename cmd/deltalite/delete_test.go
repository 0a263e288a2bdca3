package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
)

// dmlCLITable writes a small table partitioned by day through the CLI.
func dmlCLITable(t *testing.T) string {
	t.Helper()
	table := filepath.Join(t.TempDir(), "t")
	in := writeFile(t, "in.csv", "id,name,day\n1,a,d1\n2,b,d1\n3,,d2\n4,d,d2\n")
	mustRun(t, "write", table, "--input", in, "--partition-by", "day")
	return table
}

func TestCLIDelete(t *testing.T) {
	table := dmlCLITable(t)
	out := mustRun(t, "delete", table, "--where", "day = 'd1'", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if m["numDeletedRows"] != 2.0 || m["numRemovedFiles"] != 1.0 || m["numAddedFiles"] != 0.0 || m["numCopiedRows"] != 0.0 ||
		m["numAddedChangeFiles"] != 0.0 || m["version"] != 1.0 {
		t.Errorf("--json: %s", out)
	}
	for _, k := range []string{"executionTimeMs", "scanTimeMs", "rewriteTimeMs", "numRemovedBytes", "numAddedBytes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("--json lacks %s: %s", k, out)
		}
	}
	out = mustRun(t, "delete", table, "--where", "name IS NULL")
	if !strings.HasPrefix(out, "DeleteStats(version=2, num_deleted_rows=1,") {
		t.Errorf("text: %s", out)
	}
	if rows := mustRun(t, "scan", table, "--format", "csv"); !strings.Contains(rows, "4,d,d2") || strings.Count(strings.TrimSpace(rows), "\n") != 1 {
		t.Errorf("rows left:\n%s", rows)
	}
	_, err := run(t, "delete", table, "--where", "name = ")
	if err == nil || !strings.Contains(err.Error(), "--where") || !strings.Contains(err.Error(), "column") {
		t.Errorf("bad --where: %v", err)
	}
}

func TestCLIUpdate(t *testing.T) {
	table := dmlCLITable(t)
	out := mustRun(t, "update", table, "--set", "name = concat(name, '=x')", "--set", "`day` = 'd3'", "--where", "id IN (1, 3)", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if m["numUpdatedRows"] != 2.0 || m["numCopiedRows"] != 2.0 || m["numRemovedFiles"] != 2.0 || m["numAddedChangeFiles"] != 0.0 || m["version"] != 1.0 {
		t.Errorf("--json: %s", out)
	}
	for _, k := range []string{"numAddedFiles", "executionTimeMs", "scanTimeMs", "rewriteTimeMs", "numRemovedBytes", "numAddedBytes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("--json lacks %s: %s", k, out)
		}
	}
	rows := mustRun(t, "scan", table, "--format", "csv", "--where", "day = 'd3'")
	if !strings.Contains(rows, "1,a=x,d3") || strings.Count(strings.TrimSpace(rows), "\n") != 2 {
		t.Errorf("moved rows:\n%s", rows)
	}
	out = mustRun(t, "update", table, "--set", "name = 'z'", "--where", "id = 4")
	if !strings.HasPrefix(out, "UpdateStats(version=2, num_updated_rows=1,") {
		t.Errorf("text: %s", out)
	}
	for _, bad := range [][]string{
		{"update", table},
		{"update", table, "--set", "name"},
		{"update", table, "--set", "name = 'a'", "--set", "name = 'b'"},
		{"update", table, "--set", "nope = 1"},
	} {
		if _, err := run(t, bad...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestSplitAssignment(t *testing.T) {
	for in, want := range map[string][2]string{
		"x = 1":                     {"x", "1"},
		"s='a=b'":                   {"s", "'a=b'"},
		"`we=ird` = coalesce(a, 1)": {"we=ird", "coalesce(a, 1)"},
		"b = x == 1":                {"b", "x == 1"},
	} {
		col, val, err := splitAssignment(in)
		if err != nil || col != want[0] || val != want[1] {
			t.Errorf("%q: %q %q %v", in, col, val, err)
		}
	}
}

// tableVersion is the table's latest version.
func tableVersion(t *testing.T, table string) int64 {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	return tb.Version()
}

// An empty, blank or missing --where is refused: touching every row takes
// --all, which no predicate may come with. A refused call changes nothing.
func TestCLIDeleteUpdateNeedWhereOrAll(t *testing.T) {
	table := dmlCLITable(t)
	before := sortedLines(mustRun(t, "scan", table, "--format", "csv"))
	v := tableVersion(t, table)
	for _, verb := range [][]string{{"delete", table}, {"update", table, "--set", "name = 'x'"}} {
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"--where", ""}, []string{"--where", "empty", "--all"}},
			{[]string{"--where", "  \t"}, []string{"--where", "empty", "--all"}},
			{nil, []string{"--where", "--all"}},
			{[]string{"--all", "--where", "id = 1"}, []string{"--all", "--where", "not both"}},
		} {
			args := append(append([]string{}, verb...), tc.args...)
			msg := mustFail(t, args...)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%v: %q lacks %q", args, msg, w)
				}
			}
		}
	}
	if got := sortedLines(mustRun(t, "scan", table, "--format", "csv")); got != before || tableVersion(t, table) != v {
		t.Fatalf("a refused call changed the table (version %d, was %d):\n%s", tableVersion(t, table), v, got)
	}
	if out := mustRun(t, "update", table, "--set", "name = 'x'", "--all"); !strings.HasPrefix(out, "UpdateStats(version=1, num_updated_rows=4,") {
		t.Errorf("update --all: %s", out)
	}
	if out := mustRun(t, "delete", table, "--all"); !strings.HasPrefix(out, "DeleteStats(version=2, num_deleted_rows=4,") {
		t.Errorf("delete --all: %s", out)
	}
}

// SET of NULL on a NOT NULL column fails naming the column and the null
// rows over every file, and changes nothing.
func TestCLIUpdateNotNull(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t")
	sc := writeFile(t, "schema.json", `{"type":"struct","fields":[{"name":"id","type":"long","nullable":false,"metadata":{}},{"name":"name","type":"string","nullable":true,"metadata":{}}]}`)
	mustRun(t, "create", table, "--schema", sc)
	mustRun(t, "write", table, "--input", writeFile(t, "a.csv", "id,name\n1,a\n2,b\n"))
	mustRun(t, "write", table, "--input", writeFile(t, "b.csv", "id,name\n3,c\n4,d\n5,e\n"))
	before := sortedLines(mustRun(t, "scan", table, "--format", "csv"))
	msg := mustFail(t, "update", table, "--set", "id = NULL", "--all")
	for _, w := range []string{"schema mismatch", `"id" has 5 nulls`, "nothing was changed"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q lacks %q", msg, w)
		}
	}
	msg = mustFail(t, "update", table, "--set", "id = CASE WHEN id IN (1, 3, 5) THEN NULL ELSE id END", "--where", "id >= 1")
	if !strings.Contains(msg, `"id" has 3 nulls`) || strings.Contains(msg, "internal error") {
		t.Errorf("odd ids: %q", msg)
	}
	if got := sortedLines(mustRun(t, "scan", table, "--format", "csv")); got != before || tableVersion(t, table) != 2 {
		t.Fatalf("a refused update changed the table:\n%s", got)
	}
}
