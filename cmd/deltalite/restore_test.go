package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
)

func TestCLIRestore(t *testing.T) {
	table := dmlCLITable(t)                           // v0: 4 rows
	mustRun(t, "delete", table, "--where", "id <= 2") // v1
	out := mustRun(t, "restore", table, "--version", "0", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if m["version"] != 2.0 || m["restoredVersion"] != 0.0 || m["numRestoredFiles"] != 1.0 || m["numRemovedFiles"] != 0.0 ||
		m["numOfFilesAfterRestore"] != 2.0 {
		t.Errorf("--json: %s", out)
	}
	if rows := mustRun(t, "scan", table, "--format", "csv"); strings.Count(strings.TrimSpace(rows), "\n") != 4 {
		t.Errorf("rows after restore:\n%s", rows)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"restore", table}, "exactly one of --version N and --timestamp TS"},
		{[]string{"restore", table, "--version", "0", "--timestamp", "2026-01-01"}, "exactly one of"},
		{[]string{"restore", table, "--timestamp", "yesterday"}, `--timestamp "yesterday" is not a timestamp`},
		{[]string{"restore", table, "--timestamp", "2000-01-01 00:00:00"}, "2000-01-01"},
		{[]string{"restore", table, "--version", "7"}, "versions go up to 2"},
	} {
		if _, err := run(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestCLITimestampAfterLatestCommit: scan and restore refuse a timestamp
// after the latest commit (exit status 1) with a message naming that
// commit's time, and the table stays as it was; the commit's own time
// reads, and restores to, the latest version.
func TestCLITimestampAfterLatestCommit(t *testing.T) {
	table := dmlCLITable(t)                           // v0
	mustRun(t, "delete", table, "--where", "id <= 2") // v1
	for v, at := range []time.Time{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)} {
		if err := os.Chtimes(filepath.Join(table, "_delta_log", fmt.Sprintf("%020d.json", v)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"scan", table, "--timestamp", "2999-01-01"},
		{"restore", table, "--timestamp", "2999-01-01"},
		{"restore", table, "--timestamp", "2026-01-02T03:04:05.007Z"},
	} {
		out, err := run(t, args...)
		if err == nil || !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "version 1") ||
			!strings.Contains(err.Error(), "2026-01-02T03:04:05.006Z") {
			t.Errorf("%v: %v, want an error naming version 1's time 2026-01-02T03:04:05.006Z\n%s", args, err, out)
			continue
		}
		if !strings.Contains(errorLine(err), "after the latest commit") {
			t.Errorf("%v: %s", args, errorLine(err))
		}
	}
	if out := mustRun(t, "history", table, "--limit", "1"); !strings.Contains(out, "DELETE") {
		t.Fatalf("a refused restore committed:\n%s", out)
	}
	if rows := mustRun(t, "scan", table, "--timestamp", "2026-01-02T03:04:05.006Z", "--format", "csv"); strings.Count(strings.TrimSpace(rows), "\n") != 2 {
		t.Errorf("rows at the latest commit's time:\n%s", rows)
	}
	if out := mustRun(t, "restore", table, "--timestamp", "2026-01-02T03:04:05.006Z"); !strings.HasPrefix(out, "RestoreStats(version=1, restored_version=1,") {
		t.Errorf("restore to the latest commit's time: %s", out)
	}
}

func TestCLICheckpointAndCleanup(t *testing.T) {
	table := dmlCLITable(t)
	mustRun(t, "delete", table, "--where", "id = 1")
	out := mustRun(t, "checkpoint", table)
	if out != "checkpoint of version 1: _delta_log/00000000000000000001.checkpoint.parquet\n" {
		t.Errorf("checkpoint: %q", out)
	}
	if _, err := os.Stat(filepath.Join(table, "_delta_log", "00000000000000000001.checkpoint.parquet")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "delete", table, "--where", "id = 2") // v2
	var m map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "cleanup-metadata", table, "--json")), &m); err != nil || m["numDeletedFiles"] != 0.0 {
		t.Fatalf("cleanup of a new table: %v %v", m, err)
	}
	old := time.Now().Add(-60 * 24 * time.Hour)
	for _, v := range []string{"0", "1"} {
		p := filepath.Join(table, "_delta_log", "0000000000000000000"+v+".json")
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if out := mustRun(t, "cleanup-metadata", table); out != "deleted 1 expired log files (table at version 2)\n" {
		t.Errorf("cleanup: %q", out)
	}
	if rows := mustRun(t, "scan", table, "--format", "csv"); strings.Count(strings.TrimSpace(rows), "\n") != 2 {
		t.Errorf("rows after cleanup:\n%s", rows)
	}
}

func TestParseAsOf(t *testing.T) {
	for s, want := range map[string]string{
		"2026-01-02T03:04:05+01:00":  "2026-01-02T02:04:05Z",
		"2026-01-02T03:04:05.25Z":    "2026-01-02T03:04:05.25Z",
		"2026-01-02 03:04:05":        "2026-01-02T03:04:05Z",
		"2026-01-02 03:04:05.123456": "2026-01-02T03:04:05.123456Z",
		"2026-01-02T03:04:05":        "2026-01-02T03:04:05Z",
		"2026-01-02":                 "2026-01-02T00:00:00Z",
	} {
		got, err := parseAsOf("--timestamp", s)
		if err != nil || got.UTC().Format(time.RFC3339Nano) != want {
			t.Errorf("%s: %v %v, want %s", s, got, err, want)
		}
	}
}
