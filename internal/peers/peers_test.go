package peers_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite/internal/peers"
)

// simpleTable is delta-rs's simple_table from the shared conformance corpus:
// after its five commits the ids are 5, 7 and 9.
func simpleTable(t *testing.T) string {
	t.Helper()
	p := filepath.Join(peers.Root(t), "..", "shared", "conformance", "delta-rs", "simple_table")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("conformance corpus not found at %s", p)
	}
	return p
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
	s := peers.Spark(t)
	tb := s.Read(t, simpleTable(t), peers.ReadOptions{})
	if got, want := tb.Int64s(t, "id"), []int64{5, 7, 9}; !slices.Equal(got, want) {
		t.Fatalf("ids = %v, want %v", got, want)
	}
}
