package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCLIDeletionVectorsFlag: on a table with deletion vectors on, delete,
// update, merge and upsert mark rows by default and rewrite files with
// --deletion-vectors=off; another value is refused naming the flag.
func TestCLIDeletionVectorsFlag(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t")
	in := writeFile(t, "in.csv", "id,name\n1,a\n2,b\n3,c\n4,d\n5,e\n6,f\n")
	mustRun(t, "write", table, "--input", in, "--property", "delta.enableDeletionVectors=true")
	metrics := func(args ...string) map[string]any {
		t.Helper()
		var m map[string]any
		out := mustRun(t, append(args, "--json")...)
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%v: %q: %v", args, out, err)
		}
		return m
	}
	if m := metrics("delete", table, "--where", "id = 1"); m["numDeletionVectorsAdded"] != 1.0 || m["numRemovedFiles"] != 0.0 || m["numCopiedRows"] != 0.0 {
		t.Errorf("delete: %v", m)
	}
	if m := metrics("delete", table, "--where", "id = 2", "--deletion-vectors=off"); m["numDeletionVectorsAdded"] != 0.0 || m["numRemovedFiles"] != 1.0 || m["numCopiedRows"] != 4.0 {
		t.Errorf("delete --deletion-vectors=off: %v", m)
	}
	if m := metrics("update", table, "--set", "name = 'C'", "--where", "id = 3"); m["numDeletionVectorsAdded"] != 1.0 || m["numCopiedRows"] != 0.0 {
		t.Errorf("update: %v", m)
	}
	src := writeFile(t, "src.csv", "id,name\n4,D\n7,g\n")
	if m := metrics("merge", table, "--source", src, "--merge-type", "upsert", "--predicate", "t.id = s.id"); m["numTargetDeletionVectorsAdded"] != 1.0 || m["numTargetRowsCopied"] != 0.0 {
		t.Errorf("merge: %v", m)
	}
	up := writeFile(t, "up.csv", "id,name\n5,E\n")
	out := mustRun(t, "upsert", table, "--input", up, "--pk", "id", "--json", "--deletion-vectors", "off")
	if !strings.Contains(out, `"rows_copied":1`) || strings.Contains(out, "deletion_vectors_added") {
		t.Errorf("upsert --deletion-vectors off: %s", out)
	}
	rows := strings.Split(strings.TrimSpace(mustRun(t, "scan", table, "--format", "csv")), "\n")
	slices.Sort(rows[1:])
	if got := strings.Join(rows, " "); got != "id,name 3,C 4,D 5,E 6,f 7,g" {
		t.Errorf("rows: %s", got)
	}
	_, err := run(t, "delete", table, "--where", "id = 3", "--deletion-vectors", "never")
	if err == nil || !strings.Contains(err.Error(), "--deletion-vectors") || !strings.Contains(err.Error(), "auto or off") {
		t.Errorf("bad --deletion-vectors: %v", err)
	}
}
