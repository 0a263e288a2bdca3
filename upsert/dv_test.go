package upsert

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/protocol"

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

// TestFullProbeMarksDeletionVectors: with deletion vectors on (and no
// change data feed or row tracking), the probe records every leaving row
// and the files are marked without being read again. Over two upserts
// (the second meeting the first's vectors: a key it deleted comes back as
// an insert, a deleted row's key is not matched again) the rows and the
// stats equal copy-on-write's.
func TestFullProbeMarksDeletionVectors(t *testing.T) {
	const sc = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"v","type":"string","nullable":true,"metadata":{}},{"name":"p","type":"string","nullable":true,"metadata":{}}]}`
	var files [3][]string
	for i := range 90 {
		files[i%3] = append(files[i%3], fmt.Sprintf(`{"id":%d,"v":"v%d","p":"p%d"}`, i, i, i%2))
	}
	upserts := []string{
		`[{"id":3,"v":"u3","p":"p1","gone":false},{"id":4,"v":"x","p":"p0","gone":true},{"id":10,"v":"u10","p":"p0","gone":false},
		  {"id":11,"v":"x","p":"p1","gone":true},{"id":200,"v":"n200","p":"p0","gone":false},{"id":87,"v":"u87","p":"p1","gone":false}]`,
		`[{"id":4,"v":"back","p":"p0","gone":false},{"id":10,"v":"again","p":"p0","gone":false},{"id":12,"v":"x","p":"p0","gone":true},
		  {"id":89,"v":"u89","p":"p1","gone":false},{"id":201,"v":"x","p":"p1","gone":true}]`,
	}
	var rows [2][]string
	var stats [2][]Stats
	for k, cow := range []bool{false, true} {
		tb := newTable(t, sc, []string{"p"}, map[string]string{protocol.PropEnableDeletionVectors: "true"})
		for _, f := range files {
			tb.appendFile("[" + strings.Join(f, ",") + "]")
		}
		for _, u := range upserts {
			tr := &trace{}
			src := arrow.NewSchema(append(tb.arrowSchema().Fields(), arrow.Field{Name: "gone", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}), nil)
			s := tb.mustUpsert(src, u, Options{PrimaryKeys: []string{"id"}, PartitionBy: []string{"p"}, DeleteColumn: "gone", CopyOnWrite: cow, trace: tr})
			if got, want := tr.markedByProbe.Load(), map[bool]int64{false: 2, true: 0}[cow]; got != want {
				t.Errorf("copy-on-write %t: %d partitions marked from the probe's hits, want %d", cow, got, want)
			}
			if !cow && (s.FilesRemoved != 0 || s.DeletionVectorsAdded == 0) {
				t.Errorf("with deletion vectors: %v, want vectors and no file removed", s)
			}
			// Files differ between the modes, rows do not.
			s.Version, s.FilesAdded, s.FilesRemoved, s.FilesCarriedOver, s.FilesProbed, s.DeletionVectorsAdded, s.RowsCopied = 0, 0, 0, 0, 0, 0, 0
			s.PlanDuration, s.RewriteDuration, s.CommitDuration = 0, 0, 0
			stats[k] = append(stats[k], s)
		}
		rows[k] = tb.rows()
	}
	if !slices.Equal(rows[0], rows[1]) {
		t.Errorf("rows with deletion vectors:\n%s\ncopy-on-write:\n%s", strings.Join(rows[0], "\n"), strings.Join(rows[1], "\n"))
	}
	if !reflect.DeepEqual(stats[0], stats[1]) {
		t.Errorf("stats with deletion vectors %v, copy-on-write %v", stats[0], stats[1])
	}
	if want := 90 - 2 + 1 + 1 - 1; len(rows[0]) != want { // deletes 4, 11; insert 200; 4 back; delete 12
		t.Errorf("%d rows, want %d", len(rows[0]), want)
	}
}
