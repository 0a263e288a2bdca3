package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/conformance"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

const committedDoc = "../../../docs/compatibility.md"

// TestCommittedDocIsCurrent: docs/compatibility.md is what the generator
// writes from the corpus today, so a change in what reads shows in the doc.
func TestCommittedDocIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole corpus")
	}
	root := corpus.MustRoot(t)
	var buf bytes.Buffer
	write(&buf, root, conformance.Cases(root))
	data, err := os.ReadFile(committedDoc)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(buf.Bytes(), data) {
		return
	}
	got, want := strings.Split(buf.String(), "\n"), strings.Split(string(data), "\n")
	var diff []string
	for i := range max(len(got), len(want)) {
		g, w := line(got, i), line(want, i)
		if g != w && len(diff) < 20 {
			diff = append(diff, "  committed: "+w, "  generated: "+g)
		}
	}
	t.Fatalf("docs/compatibility.md is stale; regenerate it with go run ./testkit/conformance/compatdoc -o docs/compatibility.md\n%s",
		strings.Join(diff, "\n"))
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(no line)"
}

// absPath matches what an absolute machine path looks like in the doc: a
// file:// URL, a Unix path at a word boundary, or a Windows drive path.
var absPath = regexp.MustCompile(`file://|(^|[\s(:'"` + "`" + `])/[A-Za-z0-9_.-]+/|\b[A-Za-z]:\\`)

// TestCommittedDocHasNoMachinePath: the committed doc must read the same
// whichever machine generated it.
func TestCommittedDocHasNoMachinePath(t *testing.T) {
	data, err := os.ReadFile(committedDoc)
	if err != nil {
		t.Fatal(err)
	}
	if loc := absPath.FindIndex(data); loc != nil {
		t.Fatalf("docs/compatibility.md names an absolute path near %q: regenerate it with go run ./testkit/conformance/compatdoc -o docs/compatibility.md",
			data[max(0, loc[0]-40):min(len(data), loc[1]+60)])
	}
}

func TestRelative(t *testing.T) {
	root := "/home/ci/deltalite/testdata/conformance"
	for in, want := range map[string]string{
		"table not found: file:///home/ci/deltalite/testdata/conformance/golden/x/delta: no log": "table not found: testdata/conformance/golden/x/delta: no log",
		"reading /home/ci/deltalite/testdata/conformance/dat/t/part-0.parquet":                   "reading testdata/conformance/dat/t/part-0.parquet",
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
