package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the reports' golden files from what the harnesses render now")

// Golden fails t when got differs from the file at path (under the test's
// testdata), naming the first line that differs; with -update it writes
// got there instead. The harnesses' tests hold their rendered reports to
// these files, so a change of a writer shows as a change of a report.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(string(want), "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	if i < len(g) || i < len(w) {
		t.Errorf("%s: line %d differs (run with -update if the change is meant):\n got  %q\n want %q", path, i+1, line(g, i), line(w, i))
	}
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(the end)"
}
