package arrowrows

import (
	"iter"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// StreamRows renders the rows of every batch of a record stream (such as a
// scan's), batch after batch in stream order, each batch's rows as Rows
// renders them; an error from the stream fails t.
func StreamRows(t testing.TB, batches iter.Seq2[arrow.RecordBatch, error]) []string {
	t.Helper()
	var out []string
	for rec, err := range batches {
		if err != nil {
			t.Fatalf("reading the record stream: %v", err)
		}
		out = append(out, Rows(rec)...)
	}
	return out
}
