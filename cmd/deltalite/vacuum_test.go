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

// TestCLIVacuumTempFilesOfKilledWrites: the .deltalite-tmp-* file a killed
// write left in a partition folder is listed by --dry-run and deleted, as
// --help says; another engine's hidden file stays.
func TestCLIVacuumTempFilesOfKilledWrites(t *testing.T) {
	table := dmlCLITable(t)
	temp := filepath.Join(table, "day=d1", ".deltalite-tmp-00112233aabbccdd")
	spark := filepath.Join(table, "day=d1", ".spark-foo")
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{temp, spark} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if help := mustRun(t, "vacuum", "--help"); !strings.Contains(help, ".deltalite-tmp-*") {
		t.Errorf("vacuum --help does not say it deletes .deltalite-tmp-* files:\n%s", help)
	}
	out := mustRun(t, "vacuum", table, "--retention-hours", "0", "--no-enforce-retention", "--dry-run", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if files, _ := m["files"].([]any); len(files) != 1 || files[0] != "day=d1/.deltalite-tmp-00112233aabbccdd" {
		t.Errorf("--dry-run --json: %s; want the temporary file alone", out)
	}
	out = mustRun(t, "vacuum", table, "--retention-hours", "0", "--no-enforce-retention")
	if !strings.Contains(out, "num_deleted_files=1,") {
		t.Errorf("vacuum: %q", out)
	}
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Errorf("temporary file still there: %v", err)
	}
	if _, err := os.Stat(spark); err != nil {
		t.Errorf("another engine's hidden file was touched: %v", err)
	}
}
