package deltalite_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

var rowTrackingOn = map[string]string{"delta.enableRowTracking": "true"}

// rowIDs reads the table's rows with their row ids and commit versions.
func rowIDs(t testing.TB, uri string, cols ...string) []string {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	_, seq, err := tb.Scan(scan.WithColumns(append(cols, scan.RowIDColumn, scan.RowCommitVersionColumn)...)).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	return arrowrows.Rows(recs...)
}

// TestRowTrackingCreateAndAppend: a table created with row tracking gets
// the features, and each write's rows fresh ids from the high water mark,
// with the commit's version.
func TestRowTrackingCreateAndAppend(t *testing.T) {
	uri := t.TempDir()
	res := mustWrite(t, uri, people(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, []string{"d1", "d1", "d2"}),
		deltalite.WriteOptions{PartitionBy: []string{"day"}, Properties: rowTrackingOn})
	if res.Version != 0 {
		t.Fatalf("create: %+v", res)
	}
	mustWrite(t, uri, people(t, []int64{4}, []string{"e"}, []string{"d2"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	got := rowIDs(t, uri, "id")
	// Files are written per partition in order: d1 (ids 0, 1), d2 (2); then 3.
	want := []string{
		`_metadata.row_commit_version=0, _metadata.row_id=0, id=1`,
		`_metadata.row_commit_version=0, _metadata.row_id=1, id=2`,
		`_metadata.row_commit_version=0, _metadata.row_id=2, id=3`,
		`_metadata.row_commit_version=1, _metadata.row_id=3, id=4`,
	}
	arrowrows.Diff(t, got, want)
	tb, err := deltalite.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	if p := tb.Snapshot().Protocol(); !p.HasFeature("rowTracking") || !p.HasFeature("domainMetadata") {
		t.Fatalf("protocol %s", p)
	}
}
