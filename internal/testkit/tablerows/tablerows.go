// Package tablerows reads a Delta table with the engine as arrowrows'
// canonical row strings, for tests of the packages above the engine
// (packages the root imports cannot use it: it imports the root).
package tablerows

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/testkit/arrowrows"
)

// Read returns every row of the table at uri (at the version or
// timestamp opts ask for), sorted; any failure fails t.
func Read(t testing.TB, uri string, opts ...deltalite.Option) []string {
	t.Helper()
	ctx := context.Background()
	tb, err := deltalite.Open(ctx, uri, opts...)
	if err != nil {
		t.Fatal(err)
	}
	_, batches, err := tb.Scan().Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for rec, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	return arrowrows.Rows(recs...)
}
