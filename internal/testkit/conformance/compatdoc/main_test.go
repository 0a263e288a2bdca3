package main

import (
	"os"
	"regexp"
	"testing"
)

// absPath matches what an absolute machine path looks like in the doc: a
// file:// URL, a Unix path at a word boundary, or a Windows drive path.
var absPath = regexp.MustCompile(`file://|(^|[\s(:'"` + "`" + `])/[A-Za-z0-9_.-]+/|\b[A-Za-z]:\\`)

// TestCommittedDocHasNoMachinePath: the committed doc must read the same
// whichever machine generated it.
func TestCommittedDocHasNoMachinePath(t *testing.T) {
	data, err := os.ReadFile("../../../../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	if loc := absPath.FindIndex(data); loc != nil {
		t.Fatalf("docs/compatibility.md names an absolute path near %q: regenerate it with go run ./internal/testkit/conformance/compatdoc -o docs/compatibility.md",
			data[max(0, loc[0]-40):min(len(data), loc[1]+60)])
	}
}

func TestRelative(t *testing.T) {
	root := "/home/ci/shared/conformance"
	for in, want := range map[string]string{
		"table not found: file:///home/ci/shared/conformance/golden/x/delta: no log": "table not found: ../shared/conformance/golden/x/delta: no log",
		"reading /home/ci/shared/conformance/dat/t/part-0.parquet":                   "reading ../shared/conformance/dat/t/part-0.parquet",
		"version 3, 2 rows": "version 3, 2 rows",
	} {
		got := relative(in, root)
		if got != want {
			t.Errorf("relative(%q) = %q, want %q", in, got, want)
		}
		if absPath.MatchString(got) {
			t.Errorf("relative(%q) = %q still looks absolute", in, got)
		}
	}
}
