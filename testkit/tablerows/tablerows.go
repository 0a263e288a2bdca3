// Package tablerows reads a Delta table with the engine as arrowrows'
// canonical row strings, for tests of the packages above the engine
// (packages the root imports cannot use it: it imports the root).
package tablerows

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// Read returns every row of the table at uri (at the version or
// timestamp opts ask for), sorted; any failure fails t.
func Read(t testing.TB, uri string, opts ...deltalite.Option) []string {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), uri, opts...)
	if err != nil {
		t.Fatalf("open %s: %v", uri, err)
	}
	return Scan(t, tb)
}

// Scan returns every row of the version tb shows, sorted; any failure
// fails t.
func Scan(t testing.TB, tb *deltalite.Table) []string {
	t.Helper()
	_, batches, err := tb.Scan().Records(context.Background())
	if err != nil {
		t.Fatalf("scan %s: %v", tb.URI(), err)
	}
	var recs []arrow.RecordBatch
	for rec, err := range batches {
		if err != nil {
			t.Fatalf("scan %s: %v", tb.URI(), err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	return arrowrows.Rows(recs...)
}

// CommittedDeletionVector reports whether a commit of the table at dir (a
// local path) added a file with a deletion vector, whether or not a later
// commit removed it; any failure to read the log fails t.
func CommittedDeletionVector(t testing.TB, dir string) bool {
	t.Helper()
	commits, err := filepath.Glob(filepath.Join(dir, "_delta_log", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commits {
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"deletionVector":{`) {
			return true
		}
	}
	return false
}
