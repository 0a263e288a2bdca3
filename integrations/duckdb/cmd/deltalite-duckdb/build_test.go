package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A build without the tag duckdb_arrow stops at once with the command to
// run instead (tag.go of the package), not with a puzzle.
func TestBuildWithoutTagSaysHow(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the module without the tag")
	}
	out, err := exec.Command("go", "build", "-o", os.DevNull, ".").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "go build -tags duckdb_arrow ./cmd/deltalite-duckdb") {
		t.Fatalf("go build without the tag: %v\n%s\nwant a failure that shows the command with -tags duckdb_arrow", err, out)
	}
}
