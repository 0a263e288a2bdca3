package conformance

import (
	"context"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// TestConformance reads every table of the corpus and holds each to its
// expectation: expected rows, known values, a clear failure, or a clean
// ErrUnsupportedTable naming the feature.
func TestConformance(t *testing.T) {
	root := corpus.MustRoot(t)
	cases := Cases(root)
	if len(cases) < 150 {
		t.Fatalf("only %d cases found under %s", len(cases), root)
	}
	for _, c := range cases {
		t.Run(c.Group+"/"+c.Name, func(t *testing.T) {
			r := Run(context.Background(), c)
			if !r.OK {
				t.Errorf("%s: %s", r.Status, r.Detail)
			}
		})
	}
}
