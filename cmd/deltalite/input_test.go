package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mustFail runs the CLI, expects an error and returns its text.
func mustFail(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(t, args...)
	if err == nil {
		t.Fatalf("deltalite %s succeeded:\n%s", strings.Join(args, " "), out)
	}
	return err.Error()
}

func TestCLIUnknownFlagSuggestsHelp(t *testing.T) {
	msg := mustFail(t, "write", t.TempDir(), "--bogus", "x")
	if !strings.Contains(msg, "unknown flag: --bogus") || !strings.Contains(msg, "see deltalite write --help") {
		t.Fatalf("unknown flag: %q", msg)
	}
}

func TestCLIScanOfAFile(t *testing.T) {
	f := writeFile(t, "data.csv", "id\n1\n")
	msg := mustFail(t, "scan", f)
	if !strings.HasPrefix(msg, "table not found") {
		t.Fatalf("scan of a file: %q", msg)
	}
	// nothing was created next to or inside it
	if ents, _ := os.ReadDir(filepath.Dir(f)); len(ents) != 1 {
		t.Fatalf("scan of a file changed its folder: %v", ents)
	}
}
