package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChangesCommand: appends to a table recording its changes come back
// as inserts of their versions, with the range, projection and predicate
// flags; a missing start, a start past the latest version and a table
// without the feed are refused, naming the flag or what to do.
func TestChangesCommand(t *testing.T) {
	table := filepath.Join(t.TempDir(), "events")
	mustRun(t, "write", table, "--input", writeFile(t, "a.ndjson", "{\"id\":1,\"day\":\"d1\"}\n{\"id\":2,\"day\":\"d2\"}\n"),
		"--partition-by", "day", "--property", "delta.enableChangeDataFeed=true")
	mustRun(t, "write", table, "--input", writeFile(t, "b.ndjson", "{\"id\":3,\"day\":\"d1\"}\n"))

	out := mustRun(t, "changes", table, "--from-version", "0", "--format", "csv", "--columns", "id,_change_type,_commit_version")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	got := strings.Join(slices.Sorted(slices.Values(lines[1:])), " ")
	if lines[0] != "id,_change_type,_commit_version" || got != "1,insert,0 2,insert,0 3,insert,1" {
		t.Errorf("changes from 0:\n%s", out)
	}
	out = mustRun(t, "changes", table, "--from-version", "1", "--to-version", "1", "--format", "csv", "--columns", "id,_commit_version")
	if strings.TrimSpace(out) != "id,_commit_version\n3,1" {
		t.Errorf("changes of version 1:\n%s", out)
	}
	out = mustRun(t, "changes", table, "--from-version", "0", "--format", "csv", "--columns", "id", "--where", "day = 'd1'")
	if got := strings.Join(slices.Sorted(slices.Values(strings.Split(strings.TrimSpace(out), "\n")[1:])), " "); got != "1 3" {
		t.Errorf("changes where day = 'd1': %q", got)
	}
	if out := mustRun(t, "changes", table, "--from-version", "0", "--format", "csv"); !strings.HasPrefix(out, "id,day,_change_type,_commit_version,_commit_timestamp\n") {
		t.Errorf("default columns:\n%s", out)
	}

	plain := filepath.Join(t.TempDir(), "plain")
	mustRun(t, "write", plain, "--input", writeFile(t, "c.ndjson", "{\"id\":1}\n"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"changes", table}, "--from-version N or --from-timestamp T"},
		{[]string{"changes", table, "--from-version", "5"}, "start version 5 of the changes exceeds the latest table version 1"},
		{[]string{"changes", table, "--from-version", "1", "--from-timestamp", "2026-01-01"}, "--from-version and --from-timestamp both given"},
		{[]string{"changes", table, "--from-version", "0", "--where", "nope = 1"}, "--where"},
		{[]string{"changes", plain, "--from-version", "0"}, "change data was not recorded for version 0"},
	} {
		out, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("deltalite %s: %v (%s), want an error saying %q", strings.Join(c.args, " "), err, out, c.want)
		}
	}
}

// TestChangesStats: --stats reports on standard error that the changes of
// version 1 (one appended file) read that 1 file of the table's 3, and
// its rows; the rows still go to --output.
func TestChangesStats(t *testing.T) {
	table := filepath.Join(t.TempDir(), "events")
	mustRun(t, "write", table, "--input", writeFile(t, "a.ndjson", "{\"id\":1,\"day\":\"d1\"}\n{\"id\":2,\"day\":\"d2\"}\n"),
		"--partition-by", "day", "--property", "delta.enableChangeDataFeed=true")
	mustRun(t, "write", table, "--input", writeFile(t, "b.ndjson", "{\"id\":3,\"day\":\"d1\"}\n{\"id\":4,\"day\":\"d1\"}\n"))
	dest := filepath.Join(t.TempDir(), "out.csv")
	out := mustRun(t, "changes", table, "--from-version", "1", "--stats", "--output", dest, "--columns", "id")
	var st struct {
		Commits, FilesRead, BytesRead, FilesSkipped, Rows int64
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(out, "_", "")), &st); err != nil {
		t.Fatalf("--stats printed %q: %v", out, err)
	}
	if st.Commits != 1 || st.FilesRead != 1 || st.BytesRead <= 0 || st.FilesSkipped != 0 || st.Rows != 2 {
		t.Errorf("--stats: %s", out)
	}
	if b, err := os.ReadFile(dest); err != nil || strings.TrimSpace(string(b)) != "id\n3\n4" {
		t.Errorf("--output: %q, %v", b, err)
	}
}
