package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runTo executes the CLI with its own standard output and error.
func runTo(stdout, stderr io.Writer, args ...string) error {
	root := newRoot()
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	return root.ExecuteContext(context.Background())
}

// rowsTable writes a table of n rows (id 0..n-1, name) and returns its path.
func rowsTable(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,name\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,name%d\n", i, i)
	}
	table := filepath.Join(t.TempDir(), "rows")
	mustRun(t, "write", table, "--input", writeFile(t, "rows.csv", b.String()))
	return table
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// A failing scan leaves no partial output: neither a new file nor a
// changed old one nor a temporary file.
func TestScanOutputAtomic(t *testing.T) {
	table := scanTable(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	mustRun(t, "scan", table, "--output", out, "--columns", "id", "--where", "id = 3")
	if b, err := os.ReadFile(out); err != nil || string(b) != "id\n3\n" {
		t.Fatalf("output %q, %v", b, err)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o644 {
		t.Errorf("output mode %v, want 0644", st.Mode().Perm())
	}
	// Break the table: one data file disappears.
	var broken string
	filepath.WalkDir(table, func(p string, d os.DirEntry, err error) error {
		if err == nil && broken == "" && strings.HasSuffix(p, ".parquet") && strings.Contains(p, "2026-01-02") {
			broken = p
		}
		return nil
	})
	if err := os.Remove(broken); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"out.csv", "new.csv", "new.parquet"} {
		_, err := run(t, "scan", table, "--output", filepath.Join(dir, name), "--limit", "100")
		if err == nil || !strings.Contains(err.Error(), "missing") {
			t.Errorf("%s: scan of a table with a missing file: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "id\n3\n" {
		t.Errorf("the old output was changed: %q", b)
	}
	if got := strings.Join(dirNames(t, dir), " "); got != "out.csv" {
		t.Errorf("files left in the output directory: %s", got)
	}
}

func TestScanOutputFormat(t *testing.T) {
	table := scanTable(t)
	dir := t.TempDir()
	pq := filepath.Join(dir, "x.parquet")
	mustRun(t, "scan", table, "--output", pq)
	if b, _ := os.ReadFile(pq); !bytes.HasPrefix(b, []byte("PAR1")) || !bytes.HasSuffix(b, []byte("PAR1")) {
		t.Errorf("x.parquet is not Parquet: %.20q", b)
	}
	nd := filepath.Join(dir, "x.ndjson")
	mustRun(t, "scan", table, "--output", nd, "--columns", "id", "--where", "id = 1")
	if b, _ := os.ReadFile(nd); string(b) != "{\"id\":1}\n" {
		t.Errorf("x.ndjson: %q", b)
	}
	// An extension without a format of its own takes --format.
	txt := filepath.Join(dir, "x.txt")
	mustRun(t, "scan", table, "--output", txt, "--format", "ndjson", "--columns", "id", "--where", "id = 1")
	if b, _ := os.ReadFile(txt); string(b) != "{\"id\":1}\n" {
		t.Errorf("x.txt: %q", b)
	}
	_, err := run(t, "scan", table, "--output", filepath.Join(dir, "y.parquet"), "--format", "csv")
	if err == nil || !strings.Contains(err.Error(), "--format csv does not match") || !strings.Contains(err.Error(), "parquet") {
		t.Errorf("csv into y.parquet: %v", err)
	}
	if got := strings.Join(dirNames(t, dir), " "); got != "x.ndjson x.parquet x.txt" {
		t.Errorf("files in the output directory: %s", got)
	}
}

func TestScanTableFormat(t *testing.T) {
	table := rowsTable(t, 2500)
	// Not a terminal: every row, aligned, no hint.
	var out, errOut bytes.Buffer
	if err := runTo(&out, &errOut, "scan", table, "--format", "table"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2501 || lines[0] != "id    name" || lines[1] != "0     name0" || lines[2500] != "2499  name2499" || errOut.Len() != 0 {
		t.Errorf("%d lines, first %q %q, last %q, stderr %q", len(lines), lines[0], lines[1], lines[len(lines)-1], errOut.String())
	}
	// An empty result still prints the header, in table and CSV.
	for format, want := range map[string]string{"table": "id  name\n", "csv": "id,name\n"} {
		if got := mustRun(t, "scan", table, "--format", format, "--where", "id < 0"); got != want {
			t.Errorf("empty %s: %q, want %q", format, got, want)
		}
	}
	if got := mustRun(t, "scan", table, "--format", "csv", "--limit", "0"); got != "id,name\n" {
		t.Errorf("--limit 0: %q", got)
	}
	_, err := run(t, "scan", table, "--limit", "-5")
	if err == nil || !strings.Contains(err.Error(), "--limit -5") {
		t.Errorf("--limit -5: %v", err)
	}
}
