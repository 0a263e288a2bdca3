package deltalite_test

import (
	"context"
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/changes"
	"github.com/deltalite-go/deltalite/protocol"
)

// TestChangesReadOnlyTheRangesFiles: over a table of 5 data files, the
// changes of two commits that touched 2 files (a whole file deleted, and
// a file rewritten with a change data file) read those 2 and no other,
// their bytes as the log records them; a predicate on the partition
// column leaves the other partition's file unread and counts it skipped.
func TestChangesReadOnlyTheRangesFiles(t *testing.T) {
	ctx := context.Background()
	dir := dmlTable(t, map[string]string{protocol.PropEnableChangeDataFeed: "true"}, dmlRows...) // versions 0, 1: 5 files
	if n := openT(t, dir).Snapshot().NumFiles(); n != 5 {
		t.Fatalf("the table has %d files, want 5", n)
	}
	for _, pred := range []string{"id = 5", "id = 1"} { // version 2: file removed; 3: file rewritten
		if _, err := openT(t, dir).Delete(ctx, deltalite.DeleteOptions{Predicate: pred}); err != nil {
			t.Fatal(err)
		}
	}
	var removedSize, cdcSize int64
	var removes, cdcs int
	for _, a := range decodedCommit(t, dir, 2) {
		if a.Remove != nil && a.Remove.DataChange {
			removes++
			removedSize += *a.Remove.Size
		}
		if a.Add != nil || a.CDC != nil {
			t.Fatalf("version 2 was to remove a whole file, not %+v", a)
		}
	}
	for _, a := range decodedCommit(t, dir, 3) {
		if a.CDC != nil {
			cdcs++
			cdcSize += a.CDC.Size
		}
	}
	if removes != 1 || cdcs != 1 {
		t.Fatalf("versions 2 and 3: %d removes, %d change data files; want 1 and 1", removes, cdcs)
	}

	read := func(where string) (changes.Stats, []string) {
		var st changes.Stats
		rows := changeRows(t, dir, deltalite.ChangesOptions{FromVersion: 2, Where: where, Stats: &st,
			Columns: []string{"id", "_change_type", "_commit_version"}})
		return st, rows
	}
	st, rows := read("")
	want := []string{`_change_type="delete", _commit_version=2, id=5`, `_change_type="delete", _commit_version=3, id=1`}
	if !slices.Equal(rows, want) {
		t.Errorf("changes: %q, want %q", rows, want)
	}
	if wantSt := (changes.Stats{Commits: 2, FilesRead: 2, BytesRead: removedSize + cdcSize, Rows: 2}); st != wantSt {
		t.Errorf("stats %+v, want %+v", st, wantSt)
	}
	st, rows = read("p = 'a'")
	if !slices.Equal(rows, want[1:]) {
		t.Errorf("changes where p = 'a': %q, want %q", rows, want[1:])
	}
	if wantSt := (changes.Stats{Commits: 2, FilesRead: 1, BytesRead: cdcSize, FilesSkipped: 1, Rows: 1}); st != wantSt {
		t.Errorf("stats where p = 'a': %+v, want %+v", st, wantSt)
	}
}
