package iohandler_test

import (
	"testing"

	"github.com/deltalite-go/deltalite/internal/testkit/docblocks"
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
