package iohandler_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/docblocks"
)

// TestDocsGoBlocks keeps docs/iohandler.md honest: every Go block of it is
// code of a running example (docblocks.Check says how a block may leave
// code out).
func TestDocsGoBlocks(t *testing.T) {
	blocks := docblocks.Check(t, "../docs/iohandler.md", "docs_example_test.go", "../asset/docs_example_test.go")
	if blocks < 10 {
		t.Errorf("only %d Go blocks in docs/iohandler.md", blocks)
	}
}

// differencesHeading starts the section of docs/iohandler.md that lists
// every difference from the rivers handler.
const differencesHeading = "## Where we differ"

// TestDocsDifferencesNameTests keeps that list from drifting: every entry
// names, in backquotes, at least one test, and every test it names is a
// function of the repository's _test.go files.
func TestDocsDifferencesNameTests(t *testing.T) {
	doc, err := os.ReadFile("../docs/iohandler.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "\n"+differencesHeading)
	if start < 0 {
		t.Fatalf("docs/iohandler.md has no section %q", differencesHeading)
	}
	section := text[start+1:]
	if end := strings.Index(section[len(differencesHeading):], "\n## "); end >= 0 {
		section = section[:len(differencesHeading)+end]
	}
	var entries []string
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "- "):
			entries = append(entries, line)
		case len(entries) > 0 && strings.HasPrefix(line, "  "):
			entries[len(entries)-1] += " " + strings.TrimSpace(line)
		}
	}
	if len(entries) < 10 {
		t.Fatalf("only %d entries under %q", len(entries), differencesHeading)
	}
	defined := testFunctions(t, "..")
	named := regexp.MustCompile("`(Test[A-Za-z0-9_]*)`")
	for _, e := range entries {
		names := named.FindAllStringSubmatch(e, -1)
		if len(names) == 0 {
			t.Errorf("entry names no test (add the test that shows it, as `TestName`): %s", e)
		}
		for _, m := range names {
			if !defined[m[1]] {
				t.Errorf("entry names %s, which no _test.go file defines: %s", m[1], e)
			}
		}
	}
}

// testFunctions are the names of the Test functions the _test.go files
// under root define (folders of other tools, and hidden ones, aside).
func testFunctions(t *testing.T, root string) map[string]bool {
	t.Helper()
	def := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]*)\(t \*testing\.T\)`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range def.FindAllStringSubmatch(string(src), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
