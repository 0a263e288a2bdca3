// Package docblocks keeps the Go blocks of a Markdown page in step with
// example code that the tests compile (and may run): a page cannot show
// code that no longer builds. It is for tests only.
package docblocks

import (
	"iter"
	"os"
	"strings"
	"testing"
)

// Check fails t for every ```go block of the Markdown file doc that is not
// code of one of the Go files sources, and returns the number of blocks. A
// block may leave code out with a line "// ..."; each part must appear,
// line for line (indentation and blank lines aside), in one source file,
// the parts in order.
func Check(t testing.TB, doc string, sources ...string) int {
	t.Helper()
	md, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	srcs := make([][]string, len(sources))
	for i, f := range sources {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = codeLines(string(src))
	}
	blocks := 0
	for block := range GoBlocks(string(md)) {
		blocks++
		found := false
		for _, src := range srcs {
			if containsParts(src, strings.Split(block, "\n// ...\n")) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: this Go block is not in %s:\n%s", doc, strings.Join(sources, " or "), block)
		}
	}
	return blocks
}

// GoBlocks yields the bodies of the ```go blocks of a Markdown text, each
// line trimmed.
func GoBlocks(md string) iter.Seq[string] {
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
