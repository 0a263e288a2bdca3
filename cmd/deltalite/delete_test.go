package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
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
