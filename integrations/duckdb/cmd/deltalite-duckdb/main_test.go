package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// runCommand runs the command in-process and returns its standard output
// and error.
func runCommand(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestFormatsAndOutput(t *testing.T) {
	tbl := corpus.Path(t, "dat/basic_partitioned/delta")
	q := "SELECT letter, number FROM delta_scan('" + tbl + "') ORDER BY number LIMIT 3"
	out, _, err := runCommand(t, "", "-c", q, "--format", "csv")
	if err != nil || out != "letter,number\na,1\nb,2\nc,3\n" {
		t.Fatalf("csv: %q, %v", out, err)
	}
	out, _, err = runCommand(t, "", "-c", q, "--format", "ndjson")
	if err != nil || !strings.HasPrefix(out, `{"letter":"a","number":1}`+"\n") || strings.Count(out, "\n") != 3 {
		t.Fatalf("ndjson: %q, %v", out, err)
	}
	out, _, err = runCommand(t, "", "-c", q, "--format", "table")
	if err != nil || !strings.Contains(out, "letter") || !strings.Contains(out, "c") || strings.Count(out, "\n") != 4 {
		t.Fatalf("table: %q, %v", out, err)
	}
	// A FILE.sql, and Parquet into --output, read back by DuckDB itself.
	dir := t.TempDir()
	sqlFile, pq := filepath.Join(dir, "q.sql"), filepath.Join(dir, "out.parquet")
	if err := os.WriteFile(sqlFile, []byte(q+";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCommand(t, "", sqlFile, "--output", pq); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCommand(t, "", "-c", "SELECT sum(number) FROM read_parquet('"+pq+"')", "--format", "csv")
	if err != nil || out != "sum(number)\n6\n" {
		t.Fatalf("parquet read back: %q, %v", out, err)
	}
	// SQL from standard input.
	out, _, err = runCommand(t, "SELECT 42 AS answer", "-", "--format", "csv")
	if err != nil || out != "answer\n42\n" {
		t.Fatalf("stdin: %q, %v", out, err)
	}
}

// --stats and EXPLAIN ANALYZE show the files read: the partition filter
// reads fewer.
func TestStatsShowFilesRead(t *testing.T) {
	tbl := corpus.Path(t, "dat/basic_partitioned/delta")
	all := "SELECT count(*) FROM delta_scan('" + tbl + "')"
	_, stderr, err := runCommand(t, "", "-c", all, "--stats", "--format", "csv")
	if err != nil || !strings.Contains(stderr, "read 6 of 6 files, 6 of them by DuckDB's Parquet reader") {
		t.Fatalf("--stats without filter: %q, %v", stderr, err)
	}
	pruned := "SELECT count(*) FROM delta_scan('" + tbl + "', filter => 'letter = ''a''')"
	out, stderr, err := runCommand(t, "", "-c", pruned, "--stats", "--format", "csv")
	if err != nil || out != "count_star()\n2\n" || !strings.Contains(stderr, "read 2 of 6 files (4 skipped by filter letter = 'a')") {
		t.Fatalf("--stats with filter: %q %q, %v", out, stderr, err)
	}
	out, _, err = runCommand(t, "", "-c", "EXPLAIN ANALYZE "+pruned)
	if err != nil || !strings.Contains(out, "DELTALITE_SCAN") || !strings.Contains(out, "read 2 of 6 files") {
		t.Fatalf("EXPLAIN ANALYZE: %q, %v", out, err)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "no SQL"},
		{[]string{"-c", "SELECT 1", "q.sql"}, "not both"},
		{[]string{"nope.sql"}, "nope.sql"},
		{[]string{"-c", "SELECT 1", "--storage-option", "AWS_SECRET_ACCESS_KEY"}, "number 1 is not KEY=VALUE"},
		{[]string{"-c", "SELECT 1", "--format", "xml"}, "unknown --format"},
		{[]string{"-c", "SELEC 1"}, "syntax error"},
		{[]string{"-c", "SELECT * FROM delta_scan('/no/such/table')"}, "/no/such/table"},
	}
	for _, c := range cases {
		_, _, err := runCommand(t, "", c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
	_, _, err := runCommand(t, "", "-c", "SELECT 1", "--storage-option", "=hunter2")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("a bad storage option: %v, want an error without its value", err)
	}
	_, _, err = runCommand(t, "", "-c", "SELECT * FROM delta_scan('memory://user:hunter2@x/t')")
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "memory://") {
		t.Errorf("a URL with credentials: %v, want an error naming it without them", err)
	}
}

// The built command, as a user runs it.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("links a 70 MB binary")
	}
	tbl := corpus.Path(t, "dat/deletion_vectors/delta")
	bin := filepath.Join(t.TempDir(), name)
	build := exec.Command("go", "build", "-tags", "duckdb_arrow", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-c", "SELECT letter, \"int\" FROM delta_scan('"+tbl+"')", "--format", "csv", "--stats")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || string(out) != "letter,int\nb,228\n" || !strings.Contains(stderr.String(), "read 1 of 1 files") {
		t.Fatalf("%s: %q %q, %v", bin, out, stderr.String(), err)
	}
}
