//go:build duckdb_arrow

package duckdbio

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// TestDirectAgreesOnTheCorpus reads every table of the conformance corpus
// that deltalite reads through both paths of delta_scan: the same rows.
func TestDirectAgreesOnTheCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every corpus table twice")
	}
	stats := &Stats{}
	direct := testConn(t, ScanOptions{Stats: stats})
	arrow := testConn(t, ScanOptions{ArrowOnly: true})
	root := corpus.MustRoot(t)
	var tables []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "_delta_log" {
			tables = append(tables, filepath.Dir(p))
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	read, byDuckDB := 0, 0
	for _, dir := range tables {
		call := "delta_scan(" + quote(dir) + ")"
		want, err := canonicalRows(arrow, call)
		if err != nil {
			continue // a table deltalite refuses: the error corpus, unsupported features
		}
		stats.Reset()
		got, err := canonicalRows(direct, call)
		if sc := stats.Scans(); len(sc) > 0 && sc[0].FilesDirect > 0 {
			byDuckDB++
		}
		if err != nil {
			t.Errorf("%s: the Arrow path reads it, delta_scan fails: %v", strings.TrimPrefix(dir, root), err)
			continue
		}
		t.Run(strings.TrimPrefix(dir, root), func(t *testing.T) { sameRows(t, "direct", got, "arrow", want) })
		read++
	}
	t.Logf("%d of %d corpus tables read both ways, %d of them by DuckDB's reader in part or whole", read, len(tables), byDuckDB)
	if byDuckDB < read/2 {
		t.Errorf("DuckDB's reader read %d of %d tables, want most", byDuckDB, read)
	}
}
