package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run executes the CLI in process and returns its standard output.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(t, args...)
	if err != nil {
		t.Fatalf("deltalite %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCLIWriteUpsertScan(t *testing.T) {
	table := filepath.Join(t.TempDir(), "people")
	csv := writeFile(t, "people.csv", "id,name,day\n1,alice,2026-01-01\n2,bob,2026-01-01\n3,carol,2026-01-02\n")
	out := mustRun(t, "write", table, "--input", csv, "--partition-by", "day")
	if !strings.Contains(out, "created table and wrote 3 rows in 2 files") {
		t.Fatalf("write: %s", out)
	}
	changes := writeFile(t, "changes.ndjson", `{"id":2,"name":"bobby","day":"2026-01-01","deleted":false}
{"id":3,"name":"carol","day":"2026-01-02","deleted":true}
{"id":4,"name":"dan","day":"2026-01-03","deleted":false}
`)
	out = mustRun(t, "upsert", table, "--input", changes, "--pk", "id", "--delete-column", "deleted", "--json",
		"--app-id", "sync", "--app-version", "1", "--metadata", "run=42")
	var stats map[string]any
	if err := json.Unmarshal([]byte(out), &stats); err != nil {
		t.Fatalf("upsert --json: %v\n%s", err, out)
	}
	if stats["rows_updated"] != float64(1) || stats["rows_inserted"] != float64(1) || stats["rows_deleted"] != float64(1) || stats["version"] != float64(1) {
		t.Fatalf("upsert stats %v", stats)
	}
	// redelivery is skipped
	out = mustRun(t, "upsert", table, "--input", changes, "--pk", "id", "--delete-column", "deleted", "--app-id", "sync", "--app-version", "1")
	if !strings.Contains(out, "skipped=true") {
		t.Fatalf("redelivery: %s", out)
	}
	out = mustRun(t, "scan", table, "--format", "csv")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "id,name,day" || len(lines) != 4 || !strings.Contains(out, "2,bobby,2026-01-01") || strings.Contains(out, "carol") {
		t.Fatalf("scan:\n%s", out)
	}
	out = mustRun(t, "scan", table, "--format", "ndjson", "--partition", "day=2026-01-03", "--columns", "name")
	if strings.TrimSpace(out) != `{"name":"dan"}` {
		t.Fatalf("scan with partition filter: %q", out)
	}
	out = mustRun(t, "scan", table, "--version", "0", "--format", "csv")
	if !strings.Contains(out, "3,carol") {
		t.Fatalf("time travel: %s", out)
	}
	out = mustRun(t, "history", table, "--json")
	var h []map[string]any
	if err := json.Unmarshal([]byte(out), &h); err != nil || len(h) != 2 || h[0]["operation"] != "MERGE" || h[0]["run"] != "42" {
		t.Fatalf("history: %v\n%s", err, out)
	}
	out = mustRun(t, "inspect", table, "--json")
	var s map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil || s["numRows"] != float64(3) || s["version"] != float64(1) {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	parquet := filepath.Join(t.TempDir(), "out.parquet")
	mustRun(t, "scan", table, "--format", "parquet", "--output", parquet)
	copyTable := filepath.Join(t.TempDir(), "copy")
	mustRun(t, "write", copyTable, "--input", parquet, "--mode", "error")
	if out := mustRun(t, "scan", copyTable, "--format", "csv"); len(strings.Split(strings.TrimSpace(out), "\n")) != 4 {
		t.Fatalf("parquet round trip: %s", out)
	}
}

func TestCLIErrors(t *testing.T) {
	for _, args := range [][]string{
		{"scan", t.TempDir()},
		{"scan", "../testdata/tables/delta-0.8.0-partitioned", "--partition", "year"},
		{"scan", "../testdata/tables/delta-0.8.0-partitioned", "--format", "xml"},
		{"write", t.TempDir(), "--input", "nope.csv"},
		{"write", t.TempDir(), "--input", "x.txt"},
		{"upsert", t.TempDir(), "--input", "x.csv"},
		{"scan", "../../testdata/tables/delta-0.8.0-partitioned", "--storage-option", "novalue"},
	} {
		if _, err := run(t, args...); err == nil {
			t.Errorf("deltalite %s succeeded", strings.Join(args, " "))
		}
	}
}

func TestCLICreateAndDemo(t *testing.T) {
	schemaFile := writeFile(t, "schema.json", `{"type":"struct","fields":[{"name":"id","type":"long","nullable":false,"metadata":{}},{"name":"day","type":"date","nullable":true,"metadata":{}}]}`)
	table := filepath.Join(t.TempDir(), "t")
	out := mustRun(t, "create", table, "--schema", schemaFile, "--partition-by", "day", "--property", "delta.appendOnly=true")
	if !strings.Contains(out, "version 0") {
		t.Fatalf("create: %s", out)
	}
	if _, err := run(t, "create", table, "--schema", schemaFile); err == nil {
		t.Fatalf("second create succeeded")
	}
	out = mustRun(t, "demo", filepath.Join(t.TempDir(), "demo"))
	for _, want := range []string{"rows_updated=500", "rows_inserted=300", "rows_deleted=100", "skipped=true", "MERGE", "evt-0030000", "try:   go run ./cmd/deltalite scan "} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
