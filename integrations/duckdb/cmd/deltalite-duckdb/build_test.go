package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A build without the tag duckdb_arrow stops at once with the command to
// run instead (tag.go of the package), and nothing else, not with a puzzle.
func TestBuildWithoutTagSaysHow(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the module without the tag")
	}
	out, err := exec.Command("go", "build", "-o", os.DevNull, ".").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "go build -tags duckdb_arrow ./cmd/deltalite-duckdb") {
		t.Fatalf("go build without the tag: %v\n%s\nwant a failure that shows the command with -tags duckdb_arrow", err, out)
	}
	// The package's other files need the tag too, so the message is the
	// only error: no undefined name of duckdb-go's Arrow API comes first.
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 2 || strings.Contains(string(out), "undefined") {
		t.Fatalf("go build without the tag says more than how to build:\n%s", out)
	}
}
