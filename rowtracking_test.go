package deltalite_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
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

// TestRowTrackingKeptThroughRewrites: UPDATE, DELETE, MERGE and OPTIMIZE
// keep the row ids of the rows they copy (with their commit versions) and
// of the rows they update (with the new version); inserted rows get fresh
// ids above every earlier one. With and without deletion vectors.
func TestRowTrackingKeptThroughRewrites(t *testing.T) {
	for _, dvs := range []string{"false", "true"} {
		t.Run("deletionVectors="+dvs, func(t *testing.T) {
			ctx := context.Background()
			uri := t.TempDir()
			props := map[string]string{"delta.enableRowTracking": "true", "delta.enableDeletionVectors": dvs}
			// v0: ids 1..4 get row ids 0..3 in one file.
			mustWrite(t, uri, people(t, []int64{1, 2, 3, 4}, []string{"a", "b", "c", "d"}, []string{"d", "d", "d", "d"}),
				deltalite.WriteOptions{Properties: props})
			tb, err := deltalite.Open(ctx, uri)
			if err != nil {
				t.Fatal(err)
			}
			// v1: update id 2: keeps row id 1, version 1; the others copied.
			if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 2", Set: map[string]string{"name": "'B'"}}); err != nil {
				t.Fatal(err)
			}
			// v2: delete id 3.
			if _, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id = 3"}); err != nil {
				t.Fatal(err)
			}
			// v3: merge: update id 4, insert id 5 (fresh id 4: the mark was 3).
			if _, err := tb.Merge(ctx, people(t, []int64{4, 5}, []string{"D", "e"}, []string{"d", "d"}), deltalite.MergeOptions{
				Predicate: "t.id = s.id",
				Clauses:   []merge.Clause{{When: merge.Matched, Action: merge.UpdateAll}, {When: merge.NotMatched, Action: merge.InsertAll}},
			}); err != nil {
				t.Fatal(err)
			}
			got := rowIDs(t, uri, "id", "name")
			// The inserted row's id is fresh: above the high water mark
			// before the merge, which the files rewritten before it raised.
			var fresh int64
			inserted := slices.IndexFunc(got, func(r string) bool { return strings.HasSuffix(r, `, id=5, name="e"`) })
			if len(got) != 4 || inserted < 0 {
				t.Fatalf("rows %q", got)
			}
			if _, err := fmt.Sscanf(got[inserted], "_metadata.row_commit_version=3, _metadata.row_id=%d,", &fresh); err != nil || fresh < 4 {
				t.Fatalf("inserted row %q: id not fresh (%v)", got[inserted], err)
			}
			want := []string{
				`_metadata.row_commit_version=0, _metadata.row_id=0, id=1, name="a"`,
				`_metadata.row_commit_version=1, _metadata.row_id=1, id=2, name="B"`,
				`_metadata.row_commit_version=3, _metadata.row_id=3, id=4, name="D"`,
				got[inserted],
			}
			slices.Sort(want)
			arrowrows.Diff(t, got, want)
			// OPTIMIZE moves the rows, changing none.
			if _, err := tb.Optimize(ctx, deltalite.OptimizeOptions{}); err != nil {
				t.Fatal(err)
			}
			arrowrows.Diff(t, rowIDs(t, uri, "id", "name"), want)
			// OPTIMIZE ZORDER BY sorts them, changing none.
			if zs, err := tb.Optimize(ctx, deltalite.OptimizeOptions{ZOrderBy: []string{"name", "id"}, Force: true}); err != nil || zs.Commits != 1 {
				t.Fatalf("z-order: %+v, %v", zs, err)
			}
			arrowrows.Diff(t, rowIDs(t, uri, "id", "name"), want)
			// The upsert updates id 1 (keeping its row id) and inserts id 6.
			if _, err := tb.Upsert(ctx, people(t, []int64{1, 6}, []string{"AA", "f"}, []string{"d", "d"}), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}}); err != nil {
				t.Fatal(err)
			}
			up := rowIDs(t, uri, "id", "name")
			if !slices.Contains(up, fmt.Sprintf(`_metadata.row_commit_version=%d, _metadata.row_id=0, id=1, name="AA"`, tb.Version())) ||
				!slices.Contains(up, want[1]) || len(up) != 5 {
				t.Fatalf("after the upsert: %q", up)
			}
			// The materialized columns never show in a normal read.
			arrowrows.Diff(t, readRows(t, uri), []string{row(1, "AA", "d"), row(2, "B", "d"), row(4, "D", "d"), row(5, "e", "d"), row(6, "f", "d")})
		})
	}
}

// TestRowTrackingWithColumnMapping: the materialized columns, which the
// schema does not name, are written and read by their own names on a
// table with column mapping too.
func TestRowTrackingWithColumnMapping(t *testing.T) {
	for _, mode := range []string{"name", "id"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			uri := t.TempDir()
			mustWrite(t, uri, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d", "d"}),
				deltalite.WriteOptions{Properties: map[string]string{"delta.enableRowTracking": "true", "delta.columnMapping.mode": mode}})
			tb := openT(t, uri)
			if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 2", Set: map[string]string{"name": "'B'"}}); err != nil {
				t.Fatal(err)
			}
			arrowrows.Diff(t, rowIDs(t, uri, "id", "name"), []string{
				`_metadata.row_commit_version=0, _metadata.row_id=0, id=1, name="a"`,
				`_metadata.row_commit_version=1, _metadata.row_id=1, id=2, name="B"`,
			})
			// The hidden columns get no statistics: readers match
			// statistics to the schema's columns.
			for _, f := range openT(t, uri).Snapshot().Files() {
				if strings.Contains(f.Stats, "_row-") {
					t.Errorf("%s: statistics of a materialized column: %s", f.Path, f.Stats)
				}
			}
		})
	}
}
