//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// bulkTable writes rows rows of every type delta_scan moves in bulk, nulls
// among them, in two appends, and returns its path. props are the table's
// properties.
func bulkTable(t *testing.T, rows int, props map[string]string) string {
	t.Helper()
	ctx := context.Background()
	res := &Resource{}
	t.Cleanup(func() { res.Close() })
	s, err := res.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := t.TempDir()
	for _, r := range [][2]int{{0, rows / 2}, {rows / 2, rows}} {
		q := fmt.Sprintf(`SELECT i AS id, CASE WHEN i %% 7 = 0 THEN NULL ELSE i * 3 END AS v,
			CASE WHEN i %% 5 = 0 THEN NULL ELSE 'row-' || i END AS s, i / 3.0 AS x, CAST(i %% 100 AS INTEGER) AS small,
			i %% 2 = 0 AS flag, DATE '2026-01-01' + CAST(i %% 30 AS INTEGER) AS d,
			TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i) AS ts, CAST(i AS DECIMAL(12, 2)) AS dec,
			CASE WHEN i %% 11 = 0 THEN NULL ELSE [i, NULL, i + 1] END AS l, {'a': i, 'b': 'x' || i} AS st,
			MAP {'k': i} AS m, encode('b' || i) AS bin, CASE WHEN i %% 13 = 0 THEN NULL ELSE 'cat-' || (i %% 50) END AS cat
			FROM range(%d, %d) t(i)`, r[0], r[1])
		if _, err := s.SQL(q).Write(ctx, dir, deltalite.WriteOptions{Mode: deltalite.ModeAppend, Properties: props}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// dvTable is a bulkTable with deletion vectors: the first rows of each
// file deleted, and in the second rows scattered through. The first file's
// first batch is then a slice of the rows read, the second's batches are
// taken row by row.
func dvTable(t *testing.T, rows int) string {
	t.Helper()
	dir := bulkTable(t, rows, map[string]string{"delta.enableDeletionVectors": "true"})
	tb, err := deltalite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, pred := range []string{fmt.Sprintf("id < 5 OR (id >= %d AND id < %d)", rows/2, rows/2+3), fmt.Sprintf("id %% 17 = 3 AND id >= %d", rows/2)} {
		if _, err := tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: pred}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.ContainsFunc(tb.Snapshot().Files(), func(a *protocol.Add) bool { return a.DeletionVector != nil }) {
		t.Fatal("the deletes wrote no deletion vector")
	}
	return dir
}

// sameRows fails t, naming the first row that differs, unless the rows
// of the two readers are the same.
func sameRows(t *testing.T, name string, got []string, wantName string, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	for i := range got {
		if i < len(want) && got[i] != want[i] {
			t.Fatalf("row %d: %s %s, %s %s", i, name, got[i], wantName, want[i])
		}
	}
	t.Fatalf("%s and %s rows differ: %d and %d rows", name, wantName, len(got), len(want))
}

// TestBulkPathAgreesWithPerValue reads tables of every kind through the
// bulk path and value by value: the same rows, and the bulk path took the
// columns it should, the strings the files dictionary-encode as
// dictionaries. Batches of 3000 rows do not align with DuckDB's vectors of
// 2048, so slices start inside batches.
func TestBulkPathAgreesWithPerValue(t *testing.T) {
	stats := &Stats{}
	bulk := testConn(t, ScanOptions{Stats: stats, BatchSize: 3000, ArrowOnly: true})
	slow := testConn(t, ScanOptions{perValue: true, BatchSize: 3000, ArrowOnly: true})
	cases := []struct {
		uri      string
		rows     int
		bulkCols int      // columns the bulk path must take
		dicts    []string // of those, the ones that came as dictionaries
	}{
		// s and bin are distinct: the writer stores them plainly.
		{bulkTable(t, 10_000, nil), 10_000, 13, []string{"cat"}},
		{dvTable(t, 10_000), 10_000 - 5 - 3 - 294, 13, []string{"cat"}},
		{corpus.Path(t, "dat/all_primitive_types/delta"), 5, 12, nil},
		{corpus.Path(t, "dat/nested_types/delta"), 5, 3, nil},
		{corpus.Path(t, "dat/timestamp_ntz/delta"), 5, 4, nil},
		{corpus.Path(t, "dat/deletion_vectors/delta"), 1, 3, nil},
		{corpus.Path(t, "dat/column_mapping/delta"), 10, 3, nil},
		{corpus.Path(t, "dat/multi_partitioned/delta"), 2, 4, nil},
	}
	for _, c := range cases {
		t.Run(c.uri, func(t *testing.T) {
			stats.Reset()
			call := "delta_scan(" + quote(c.uri) + ")"
			got := canonical(t, bulk, call)
			want := canonical(t, slow, call)
			if len(got) != c.rows {
				t.Fatalf("%d rows, want %d", len(got), c.rows)
			}
			sameRows(t, "bulk", got, "per value", want)
			scans := stats.Scans()
			if len(scans) == 0 {
				t.Fatal("no scan recorded")
			}
			last := scans[len(scans)-1]
			if len(last.BulkColumns) != c.bulkCols {
				t.Fatalf("bulk columns %v of %v, want %d", last.BulkColumns, last.Columns, c.bulkCols)
			}
			if c.dicts != nil && !slices.Equal(last.DictionaryColumns, c.dicts) {
				t.Fatalf("dictionary columns %v, want %v", last.DictionaryColumns, c.dicts)
			}
		})
	}
}

// TestBulkPathProjects asks for some columns, in another order than the
// table's: each output vector gets its own column.
func TestBulkPathProjects(t *testing.T) {
	uri := bulkTable(t, 5000, nil)
	bulk := testConn(t, ScanOptions{ArrowOnly: true})
	slow := testConn(t, ScanOptions{perValue: true, ArrowOnly: true})
	for _, q := range []string{
		"SELECT s, id, l FROM delta_scan(" + quote(uri) + ") WHERE id % 97 = 1 ORDER BY id",
		"SELECT count(*), sum(v), max(s), min(d), sum(dec) FROM delta_scan(" + quote(uri) + ")",
		"SELECT cat, count(*), min(id), max(bin) FROM delta_scan(" + quote(uri) + ") GROUP BY cat ORDER BY cat",
		"SELECT st.b, m['k'], x FROM delta_scan(" + quote(uri) + ") ORDER BY x DESC LIMIT 5",
	} {
		got, want := rows(t, bulk, q), rows(t, slow, q)
		if len(got) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%s:\nbulk      %v\nper value %v", q, got, want)
		}
	}
}
