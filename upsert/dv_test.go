package upsert

import (
	"testing"

	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// TestDeletionVectorTable: on a table Spark wrote with a deletion vector,
// rows the vector deletes never match (the probe honours it: a deleted
// key is inserted, the file carried over); rewriting the file keeps them
// deleted and removes the add together with its vector.
func TestDeletionVectorTable(t *testing.T) {
	// Physical rows: (a,25) (b,228) (a,692) (a,604) (a,95); every "a" row
	// is deleted by the vector.
	tb := openTable(t, corpus.Path(t, "dat/deletion_vectors/delta"))
	tb.checkRows(`[{"letter":"b","int":228,"date":"1978-12-01"}]`)

	s := tb.mustUpsert(nil, `[{"letter":"A","int":25,"date":"2000-01-01"}]`, Options{PrimaryKeys: []string{"int"}})
	if s.RowsInserted != 1 || s.RowsUpdated != 0 || s.FilesRemoved != 0 || s.FilesCarriedOver != 1 || s.FilesProbed != 1 {
		t.Errorf("deleted key: stats %v", s)
	}
	tb.checkRows(`[{"letter":"b","int":228,"date":"1978-12-01"},{"letter":"A","int":25,"date":"2000-01-01"}]`)

	dvFile := ""
	for _, a := range tb.snap.Files() {
		if a.DeletionVector != nil {
			dvFile = a.Path
		}
	}
	if dvFile == "" {
		t.Fatal("no file with a deletion vector")
	}
	s = tb.mustUpsert(nil, `[{"letter":"B","int":228,"date":"1978-12-01"},{"letter":"X","int":692,"date":"2001-01-01"}]`,
		Options{PrimaryKeys: []string{"int"}})
	if s.RowsUpdated != 1 || s.RowsInserted != 1 || s.RowsCopied != 0 || s.FilesRemoved != 1 {
		t.Errorf("live key: stats %v", s)
	}
	tb.checkRows(`[{"letter":"B","int":228,"date":"1978-12-01"},{"letter":"A","int":25,"date":"2000-01-01"},
		{"letter":"X","int":692,"date":"2001-01-01"}]`)
	removed := false
	for _, a := range commitActions(t, tb.st, s.Version) {
		if r := a.Remove; r != nil && r.Path == dvFile {
			removed = true
			if r.DeletionVector == nil || r.DeletionVector.Cardinality != 4 {
				t.Errorf("remove without its deletion vector: %s", mustJSON(r))
			}
		}
	}
	if !removed {
		t.Error("the file with the deletion vector was not removed")
	}
	for _, a := range tb.snap.Files() {
		if a.DeletionVector != nil {
			t.Errorf("a live file still has a deletion vector: %s", a.Path)
		}
	}
}
