package iohandler_test

import (
	"os"
	"strings"
	"testing"
)

// TestDocsGoBlocks keeps docs/iohandler.md honest: every Go block of it is
// code of a running example. A block may leave code out with a line
// "// ..."; each part must appear, line for line (indentation and blank
// lines aside), in one example file, the parts in order.
func TestDocsGoBlocks(t *testing.T) {
	doc, err := os.ReadFile("../docs/iohandler.md")
	if err != nil {
		t.Fatal(err)
	}
	var sources [][]string
	for _, f := range []string{"docs_example_test.go", "../asset/docs_example_test.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, codeLines(string(src)))
	}
	blocks := 0
	for block := range goBlocks(string(doc)) {
		blocks++
		found := false
		for _, src := range sources {
			if containsParts(src, strings.Split(block, "\n// ...\n")) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("docs/iohandler.md: this Go block is not in docs_example_test.go or asset/docs_example_test.go:\n%s", block)
		}
	}
	if blocks < 10 {
		t.Errorf("only %d Go blocks in docs/iohandler.md", blocks)
	}
}

// goBlocks yields the bodies of the ```go blocks of a Markdown text.
func goBlocks(md string) func(func(string) bool) {
	return func(yield func(string) bool) {
		var body []string
		in := false
		for line := range strings.SplitSeq(md, "\n") {
			switch {
			case !in && strings.HasPrefix(line, "```go"):
				in, body = true, nil
			case in && strings.HasPrefix(line, "```"):
				in = false
				if !yield(strings.Join(body, "\n")) {
					return
				}
			case in:
				body = append(body, strings.TrimSpace(line))
			}
		}
	}
}

// codeLines is text's lines trimmed, blank ones dropped.
func codeLines(text string) []string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// containsParts reports whether each part's lines appear contiguously in
// src, each part after the previous one.
func containsParts(src []string, parts []string) bool {
	from := 0
	for _, part := range parts {
		want := codeLines(part)
		at := -1
		for i := from; i+len(want) <= len(src) && at < 0; i++ {
			match := true
			for j := range want {
				if src[i+j] != want[j] {
					match = false
					break
				}
			}
			if match {
				at = i
			}
		}
		if at < 0 {
			return false
		}
		from = at + len(want)
	}
	return true
}
