//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
)

// cdfTable writes a partitioned table with the change data feed on
// (version 0) and changes it by UPDATE (1), DELETE (2), MERGE (3) and an
// append (4), through the root API, and opens it.
func cdfTable(t *testing.T, s *Session) (string, *deltalite.Table) {
	t.Helper()
	ctx := context.Background()
	uri := filepath.Join(t.TempDir(), "people")
	src := func(q string) array.RecordReader {
		rr, err := s.SQL(q).Query(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rr.Release)
		return rr
	}
	const cols = "SELECT i AS id, 'n' || i AS name, CASE WHEN i <= 3 THEN 'd1' ELSE 'd2' END AS day, (i * 1.5)::DOUBLE AS amount, " +
		"TIMESTAMPTZ '2026-01-02 03:04:05.123456+00' + to_seconds(i) AS at FROM range(%d, %d) t(i)"
	if _, err := deltalite.Write(ctx, uri, src(fmt.Sprintf(cols, 1, 7)), deltalite.WriteOptions{
		PartitionBy: []string{"day"}, Properties: map[string]string{"delta.enableChangeDataFeed": "true"}}); err != nil {
		t.Fatal(err)
	}
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	// Commits a few milliseconds apart, so that each has a timestamp of
	// its own for the timestamp range.
	steps := []func() error{
		func() error {
			_, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 3", Set: map[string]string{"name": "'C'", "amount": "amount + 1"}})
			return err
		},
		func() error {
			_, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id >= 5"})
			return err
		},
		func() error {
			_, err := tb.Merge(ctx, src("SELECT * FROM (VALUES (1, 'del'), (3, 'x'), (7, 'g')) v(id, name)"), deltalite.MergeOptions{
				Predicate: "t.id = s.id",
				Clauses: []merge.Clause{
					{When: merge.Matched, Predicate: "s.name = 'del'", Action: merge.Delete},
					{When: merge.Matched, Action: merge.Update, Set: map[string]string{"name": "s.name"}},
					{When: merge.NotMatched, Action: merge.Insert, Set: map[string]string{"id": "s.id", "name": "s.name", "day": "'d3'"}},
				}})
			return err
		},
		func() error {
			_, err := tb.Write(ctx, src(fmt.Sprintf(cols, 8, 10)), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
			return err
		},
	}
	for _, step := range steps {
		time.Sleep(5 * time.Millisecond)
		if err := step(); err != nil {
			t.Fatal(err)
		}
		if tb, err = deltalite.Open(ctx, uri); err != nil {
			t.Fatal(err)
		}
	}
	return uri, tb
}

// duckRows runs q and returns its rows as rows does, sorted.
func duckRows(t *testing.T, s *Session, q string) []string {
	t.Helper()
	out := rows(t, s.Conn(), q)
	slices.Sort(out)
	return out
}

// feedRows reads Table.Changes and renders its rows as duckRows does,
// sorted, with the column names.
func feedRows(t *testing.T, tb *deltalite.Table, opts deltalite.ChangesOptions) ([]string, []string) {
	t.Helper()
	rr, err := tb.Changes(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var names, out []string
	for _, f := range rr.Schema().Fields() {
		names = append(names, f.Name)
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range int(rec.NumRows()) {
			parts := make([]string, rec.NumCols())
			for j := range parts {
				parts[j] = fmt.Sprint(goValue(rec.Column(j), i))
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return names, out
}

// TestDeltaChangesEqualsTableChanges: delta_changes returns Table.Changes'
// rows, every column, for the whole range, a sub-range by version and by
// timestamp, a projection and a filter.
func TestDeltaChangesEqualsTableChanges(t *testing.T) {
	s := testSession(t, &Resource{})
	uri, tb := cdfTable(t, s)
	v := func(n int64) *int64 { return &n }

	// The whole feed, and what it must hold.
	names, all := feedRows(t, tb, deltalite.ChangesOptions{})
	if got := strings.Join(names, ","); got != "id,name,day,amount,at,_change_type,_commit_version,_commit_timestamp" {
		t.Fatalf("Changes columns = %s", got)
	}
	if len(all) != 6+2+2+4+2 {
		t.Fatalf("Changes has %d rows, want 16:\n%s", len(all), strings.Join(all, "\n"))
	}
	ts := map[int64]time.Time{} // commit timestamps by version
	rr, err := tb.Changes(context.Background(), deltalite.ChangesOptions{Columns: []string{"_commit_version", "_commit_timestamp"}})
	if err != nil {
		t.Fatal(err)
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range int(rec.NumRows()) {
			ts[goValue(rec.Column(0), i).(int64)] = goValue(rec.Column(1), i).(time.Time)
		}
	}
	rr.Release()

	q := func(args string) string { return "SELECT * FROM delta_changes(" + quote(uri) + ", " + args + ")" }
	cases := []struct {
		name, sql string
		opts      deltalite.ChangesOptions
	}{
		{"whole range", q("from_version => 0"), deltalite.ChangesOptions{}},
		{"sub-range", q("from_version => 1, to_version => 3"), deltalite.ChangesOptions{FromVersion: 1, ToVersion: v(3)}},
		{"to_version NULL", q("from_version => 2, to_version => NULL"), deltalite.ChangesOptions{FromVersion: 2}},
		{"timestamps", q(fmt.Sprintf("from_timestamp => '%s', to_timestamp => '%s'", ts[1].Format(time.RFC3339Nano), ts[3].Format(time.RFC3339Nano))),
			deltalite.ChangesOptions{FromTimestamp: ts[1], ToTimestamp: ts[3]}},
		{"projection", "SELECT _commit_version, name, _change_type FROM delta_changes(" + quote(uri) + ", from_version => 0)",
			deltalite.ChangesOptions{Columns: []string{"_commit_version", "name", "_change_type"}}},
		{"filter", q("from_version => 1, filter => 'day = ''d1'''"), deltalite.ChangesOptions{FromVersion: 1, Where: "day = 'd1'"}},
	}
	for _, c := range cases {
		_, want := feedRows(t, tb, c.opts)
		got := duckRows(t, s, c.sql)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: %s =\n%s\nwant (Table.Changes)\n%s", c.name, c.sql, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// The update images of version 1, as DuckDB types them.
	got := duckRows(t, s, "SELECT id, name, amount, typeof(_commit_timestamp), typeof(_commit_version), typeof(_change_type) FROM delta_changes("+
		quote(uri)+", from_version => 1, to_version => 1) ORDER BY _change_type")
	want := []string{
		"3|C|5.5|TIMESTAMP WITH TIME ZONE|BIGINT|VARCHAR",
		"3|n3|4.5|TIMESTAMP WITH TIME ZONE|BIGINT|VARCHAR",
	}
	if !slices.Equal(got, want) {
		t.Errorf("version 1 = %v, want %v", got, want)
	}
	if got := duckRows(t, s, "SELECT count(*) FROM delta_changes("+quote(uri)+", from_version => 0)"); !slices.Equal(got, []string{"16"}) {
		t.Errorf("count(*) = %v, want 16", got)
	}
}

// TestDeltaChangesErrors: the reader's refusals and bad arguments reach
// DuckDB as errors that say what to do.
func TestDeltaChangesErrors(t *testing.T) {
	ctx := context.Background()
	s := testSession(t, &Resource{})
	uri, _ := cdfTable(t, s)
	// A table whose feed starts at version 1.
	late := filepath.Join(t.TempDir(), "late")
	if _, err := s.SQL("SELECT 1 AS id").Write(ctx, late, deltalite.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	lt, err := deltalite.Open(ctx, late)
	if err != nil {
		t.Fatal(err)
	}
	if err := lt.SetProperties(ctx, map[string]string{"delta.enableChangeDataFeed": "true"}, deltalite.PropertiesOptions{}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		`delta_changes(%s, from_version => 9)`:                                  "start version 9 of the changes exceeds the latest table version 4",
		`delta_changes(%s)`:                                                     "give from_version or from_timestamp",
		`delta_changes(%s, from_version => -1)`:                                 "start version -1 of the changes is negative",
		`delta_changes(%s, from_version => 0, to_version => -2)`:                "end version -2 of the changes is negative",
		`delta_changes(%s, from_version => 3, to_version => 1)`:                 "the end cannot be before the start",
		`delta_changes(%s, from_version => 0, from_timestamp => '2026-01-01')`:  "not both",
		`delta_changes(%s, from_timestamp => 'soon')`:                           `from_timestamp "soon": use RFC 3339`,
		`delta_changes(%s, from_version => 0, to_timestamp => '')`:              `to_timestamp "": use RFC 3339`,
		`delta_changes(%s, from_version => 0, filter => 'nope = 1')`:            `changes predicate "nope = 1"`,
		`delta_changes(NULL, from_version => 0) -- %s`:                          "the first argument is the table URI",
		`delta_changes(` + quote(late) + `, from_version => 0) -- %s`:           "change data was not recorded for version 0",
		`delta_changes(%s, from_version => 0, to_version => 1, filter => NULL)`: "",
	} {
		full := "SELECT count(*) FROM " + fmt.Sprintf(q, quote(uri))
		rs, err := s.Conn().QueryContext(ctx, full)
		if err == nil {
			rs.Close()
		}
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", full, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "delta_changes")):
			t.Errorf("%s: error %v, want one from delta_changes saying %q", full, err, want)
		}
	}
	if got := duckRows(t, s, "SELECT id, _change_type, _commit_version FROM delta_changes("+quote(late)+", from_version => 1)"); len(got) != 0 {
		t.Errorf("feed from the enabling version = %v, want no rows", got)
	}
}
