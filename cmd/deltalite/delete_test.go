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
