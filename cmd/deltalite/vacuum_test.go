package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCLIVacuum(t *testing.T) {
	table := dmlCLITable(t)
	mustRun(t, "delete", table, "--where", "day = 'd1'")
	removed, err := filepath.Glob(filepath.Join(table, "day=d1", "*.parquet"))
	if err != nil || len(removed) != 1 {
		t.Fatalf("files of d1: %v %v", removed, err)
	}
	orphan := filepath.Join(table, "orphan.parquet")
	if err := os.WriteFile(orphan, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range append(removed, orphan) {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	_, err = run(t, "vacuum", table, "--retention-hours", "0")
	if err == nil || !strings.Contains(err.Error(), "--retention-hours") || !strings.Contains(err.Error(), "at least 168 hours") {
		t.Fatalf("enforced retention: %v", err)
	}
	if out := mustRun(t, "vacuum", table, "--dry-run"); !strings.HasPrefix(out, "Found 0 files (0 bytes) to delete:\nVacuumStats(version=1, dry_run=true,") {
		t.Errorf("dry run, default retention: %q", out)
	}
	out := mustRun(t, "vacuum", table, "--retention-hours", "0", "--no-enforce-retention", "--dry-run", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	rel, _ := filepath.Rel(table, removed[0])
	files, _ := m["files"].([]any)
	if len(files) != 2 || files[0] != filepath.ToSlash(rel) || files[1] != "orphan.parquet" || m["numFilesToDelete"] != 2.0 ||
		m["dryRun"] != true || m["version"] != 1.0 {
		t.Errorf("--dry-run --json: %s", out)
	}
	out = mustRun(t, "vacuum", table, "--retention-hours", "0", "--no-enforce-retention")
	if !strings.HasPrefix(out, "VacuumStats(version=3, dry_run=false, lite=false, num_files_to_delete=2,") ||
		!strings.Contains(out, "num_deleted_files=2,") {
		t.Errorf("vacuum: %q", out)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("orphan still there: %v", err)
	}
	if rows := mustRun(t, "scan", table, "--format", "csv"); strings.Count(strings.TrimSpace(rows), "\n") != 2 {
		t.Errorf("rows left:\n%s", rows)
	}
}
