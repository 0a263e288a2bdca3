package peers_test

import (
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/corpus"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// simpleTable is delta-rs's simple_table from the conformance corpus:
// after its five commits the ids are 5, 7 and 9.
func simpleTable(t *testing.T) string {
	t.Helper()
	return corpus.Path(t, "delta-rs/simple_table")
}

func TestDeltaRSReadsSimpleTable(t *testing.T) {
	tb := peers.ReadTable(t, peers.DeltaRS, simpleTable(t), peers.ReadOptions{})
	if got, want := tb.Int64s(t, "id"), []int64{5, 7, 9}; !slices.Equal(got, want) {
		t.Fatalf("ids = %v, want %v", got, want)
	}
	if got, want := tb.Lines(t), []string{"id=5", "id=7", "id=9"}; !slices.Equal(got, want) {
		t.Fatalf("lines = %q, want %q", got, want)
	}
}

func TestSparkReadsSimpleTable(t *testing.T) {
	path := simpleTable(t)
	s := peers.Spark(t)
	tb := s.Read(t, path, peers.ReadOptions{})
	if got, want := tb.Int64s(t, "id"), []int64{5, 7, 9}; !slices.Equal(got, want) {
		t.Fatalf("ids = %v, want %v", got, want)
	}
}
