package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIFirstUpsertIsOneCommit: an upsert into a missing table creates it
// in its own commit (version 0, partitioned by --partition-by); a first
// upsert that fails leaves no table at all.
func TestCLIFirstUpsertIsOneCommit(t *testing.T) {
	dir := t.TempDir()
	dup := writeFile(t, "dup.csv", "id,name,day\n1,a,d1\n1,b,d1\n")
	table := filepath.Join(dir, "t")
	if _, err := run(t, "upsert", table, "--input", dup, "--pk", "id", "--partition-by", "day"); err == nil || !strings.Contains(err.Error(), "id=1") {
		t.Fatalf("duplicate keys: %v", err)
	}
	if _, err := os.Stat(table); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(filepath.Join(table, "_delta_log"))
		t.Fatalf("a failed first upsert left %s behind (log: %d entries)", table, len(entries))
	}
	ok := writeFile(t, "ok.csv", "id,name,day\n1,a,d1\n2,b,d2\n")
	mustRun(t, "upsert", table, "--input", ok, "--pk", "id", "--partition-by", "day")
	out := mustRun(t, "history", table)
	if strings.Count(out, "\n") < 1 || !strings.Contains(out, "MERGE") || strings.Contains(out, "CREATE TABLE") {
		t.Fatalf("history after the first upsert:\n%s", out)
	}
	log, _ := os.ReadDir(filepath.Join(table, "_delta_log"))
	var commits []string
	for _, e := range log {
		if strings.HasSuffix(e.Name(), ".json") {
			commits = append(commits, e.Name())
		}
	}
	if len(commits) != 1 || commits[0] != "00000000000000000000.json" {
		t.Fatalf("commits %v, want version 0 only", commits)
	}
	out = mustRun(t, "inspect", table)
	if !strings.Contains(out, "day") {
		t.Fatalf("inspect: %s", out)
	}
}
