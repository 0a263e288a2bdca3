//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/corpus"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// directTable writes a table partitioned by k (nulls among the values) and
// p (a string), with every type DuckDB's reader takes: three appends, then
// a fourth that adds the column extra (the older files lack it), then with
// dv a delete that leaves deletion vectors. props are the table's
// properties.
func directTable(t *testing.T, props map[string]string, dv bool) string {
	t.Helper()
	ctx := context.Background()
	s := testSession(t, &Resource{})
	dir := t.TempDir()
	const cols = `CASE WHEN i % 5 = 4 THEN NULL ELSE i % 5 END AS k, 'p' || (i % 2) AS p, i AS v,
		CASE WHEN i % 7 = 0 THEN NULL ELSE i / 3.0 END AS x, CAST(i % 100 AS SMALLINT) AS small, CAST(i % 3 AS TINYINT) AS tiny,
		CAST(i AS INTEGER) AS n, CAST(i / 4.0 AS FLOAT) AS f, i % 2 = 0 AS flag, DATE '2026-01-01' + CAST(i % 30 AS INTEGER) AS d,
		CAST(i AS DECIMAL(12, 2)) AS dec, CASE WHEN i % 11 = 0 THEN NULL ELSE 'row-' || i END AS s, encode('b' || i) AS bin`
	for a := range 4 {
		q := fmt.Sprintf(`SELECT %s FROM range(%d, %d) t(i)`, cols, a*3000, (a+1)*3000)
		wo := deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"k", "p"}, Properties: props}
		if a == 3 {
			q = fmt.Sprintf(`SELECT %s, 'extra-' || i AS extra FROM range(%d, %d) t(i)`, cols, a*3000, (a+1)*3000)
			wo.SchemaMode = deltalite.SchemaMerge
		}
		if _, err := s.SQL(q).Write(ctx, dir, wo); err != nil {
			t.Fatal(err)
		}
	}
	if dv {
		tb, err := deltalite.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "v % 13 = 5 AND v < 4000"}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDirectAgreesWithArrow reads tables of every kind through delta_scan
// as it is (DuckDB's reader for the files it reads exactly) and with every
// file read by deltalite (ArrowOnly): the same rows, and DuckDB's reader
// took the files it should.
func TestDirectAgreesWithArrow(t *testing.T) {
	stats := &Stats{}
	direct := testConn(t, ScanOptions{Stats: stats})
	arrow := testConn(t, ScanOptions{ArrowOnly: true})
	plain := directTable(t, nil, false)
	mapped := directTable(t, map[string]string{"delta.columnMapping.mode": "name"}, false)
	dvs := directTable(t, map[string]string{"delta.enableDeletionVectors": "true"}, true)
	cases := []struct {
		call  string
		rows  int
		files int // files read
		// direct is how many of them DuckDB's reader read; -1: some but
		// not all
		direct int
	}{
		// The fourth append's files (10 of 40) have extra; the older
		// ones lack it, so deltalite reads them.
		{"delta_scan(" + quote(plain) + ")", 12000, 40, 10},
		{"delta_scan(" + quote(plain) + ", version => 2)", 9000, 30, 30},
		{"delta_scan(" + quote(mapped) + ", version => 2)", 9000, 30, 30},
		{"delta_scan(" + quote(mapped) + ")", 12000, 40, 10},
		// A partition filter: every row of the files it keeps matches.
		{"delta_scan(" + quote(plain) + ", version => 2, filter => 'k = 1 AND p = ''p1''')", 900, 3, 3},
		{"delta_scan(" + quote(plain) + ", version => 2, filter => 'k IS NULL')", 1800, 6, 6},
		// A data filter: files whose statistics prove it go to DuckDB
		// (the first append's), the one that straddles 4500 is filtered
		// by deltalite.
		{"delta_scan(" + quote(mapped) + ", version => 2, filter => 'v < 4500')", 4500, 20, 10},
		// Deletion vectors: the files with one are deltalite's.
		{"delta_scan(" + quote(dvs) + ", version => 2)", 9000, 30, 30},
		{"delta_scan(" + quote(dvs) + ")", 12000 - 308, 40, -1},
		{"delta_scan(" + quote(corpus.Path(t, "dat/basic_partitioned/delta")) + ")", 6, 6, 6},
		{"delta_scan(" + quote(corpus.Path(t, "dat/column_mapping/delta")) + ")", 10, 2, 2},
		{"delta_scan(" + quote(corpus.Path(t, "delta-rs/table_with_partitioning_mapping")) + ")", 2, 2, 2},
		{"delta_scan(" + quote(corpus.Path(t, "dat/multi_partitioned_2/delta")) + ")", 3, 3, 3},
		{"delta_scan(" + quote(corpus.Path(t, "dat/deletion_vectors/delta")) + ")", 1, 1, 0},
		// Spark's INT96 timestamps, every primitive type, and a nested
		// column (which keeps the table on deltalite's reader).
		{"delta_scan(" + quote(corpus.Path(t, "dat/all_primitive_types/delta")) + ")", 5, 1, 1},
		{"delta_scan(" + quote(corpus.Path(t, "dat/timestamp_ntz/delta")) + ")", 5, 1, 1},
		{"delta_scan(" + quote(corpus.Path(t, "dat/nested_types/delta")) + ")", 5, 1, 0},
		// Type widening: integers, floats and decimals wider than some
		// files store them, and a date widened to timestamp_ntz.
		{"delta_scan(" + quote(corpus.Path(t, "kernel-rs/type-widening")) + ")", 2, 2, 2},
	}
	for _, c := range cases {
		t.Run(c.call, func(t *testing.T) {
			stats.Reset()
			got := canonical(t, direct, c.call)
			want := canonical(t, arrow, c.call)
			if len(got) != c.rows {
				t.Fatalf("%d rows, want %d", len(got), c.rows)
			}
			sameRows(t, "direct", got, "arrow", want)
			sc := stats.Scans()
			if len(sc) != 1 {
				t.Fatalf("%d scans recorded, want 1: %+v", len(sc), sc)
			}
			st := sc[0]
			t.Logf("DuckDB read %d of %d files", st.FilesDirect, st.FilesRead)
			if c.files >= 0 && st.FilesRead != c.files {
				t.Fatalf("read %d files, want %d", st.FilesRead, c.files)
			}
			switch {
			case c.direct == -1 && (st.FilesDirect == 0 || st.FilesDirect == st.FilesRead):
				t.Fatalf("DuckDB read %d of %d files, want some but not all", st.FilesDirect, st.FilesRead)
			case c.direct >= 0 && st.FilesDirect != c.direct:
				t.Fatalf("DuckDB read %d of %d files, want %d", st.FilesDirect, st.FilesRead, c.direct)
			}
			if st.Rows != int64(c.rows) {
				t.Fatalf("stats count %d rows, want %d", st.Rows, c.rows)
			}
		})
	}
}

// TestDirectQueries runs projections, WHERE clauses (pushed into DuckDB's
// reader and onto the partition constants), aggregates and joins over both
// paths of one table.
func TestDirectQueries(t *testing.T) {
	stats := &Stats{}
	direct := testConn(t, ScanOptions{Stats: stats})
	arrow := testConn(t, ScanOptions{ArrowOnly: true})
	uri := directTable(t, map[string]string{"delta.columnMapping.mode": "name"}, false)
	src := "delta_scan(" + quote(uri) + ")"
	for _, q := range []string{
		"SELECT s, v, k FROM %s WHERE v %% 97 = 1 ORDER BY v",
		"SELECT k, p, count(*), sum(v), min(d), max(s), sum(dec), sum(small), sum(tiny), sum(n), sum(f), count(extra) FROM %s GROUP BY ALL ORDER BY ALL",
		"SELECT count(*), sum(v) FROM %s WHERE k = 2 AND p = 'p0'",
		"SELECT count(*), max(bin), min(x) FROM %s WHERE k IS NULL AND flag",
		"SELECT extra, v FROM %s WHERE extra IS NOT NULL ORDER BY v LIMIT 3",
		"SELECT a.v, b.s FROM %[1]s a JOIN %[1]s b ON a.v = b.v + 1 WHERE a.v BETWEEN 2990 AND 3010 ORDER BY a.v",
		// Each reference of the CTE binds the planned SQL again.
		"WITH t AS NOT MATERIALIZED (SELECT * FROM %s) SELECT count(*), sum(a.v) FROM t a JOIN t b ON a.v = b.v",
		"WITH t AS MATERIALIZED (SELECT * FROM %s) SELECT count(*), sum(a.v) FROM t a JOIN t b ON a.v = b.v",
	} {
		q := fmt.Sprintf(q, src)
		got, want := rows(t, direct, q), rows(t, arrow, q)
		if len(got) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%s:\ndirect %v\narrow  %v", q, got, want)
		}
	}
	for _, st := range stats.Scans() {
		if st.FilesDirect != 10 {
			t.Fatalf("DuckDB read %d files, want 10: %+v", st.FilesDirect, st)
		}
	}
	// The table function took each plan: none is left pending.
	if n, _ := planCounts(); n != 0 {
		t.Errorf("%d plans left pending", n)
	}
}

// TestAbandonedPlansAreDropped: queries that fail after planning, or plan
// without reading (the plan function called by itself), leave no plan in
// the process once the connection runs its next delta_scan, and sources
// release theirs when DuckDB drops them.
func TestAbandonedPlansAreDropped(t *testing.T) {
	conn := testConn(t, ScanOptions{})
	fn := rows(t, conn, "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_name LIKE '"+PlanFunctionName+"_%'")
	if len(fn) != 1 {
		t.Fatalf("plan functions %v, want one", fn)
	}
	uri := quote(corpus.Path(t, "dat/basic_partitioned/delta"))
	abandoning := []string{
		"SELECT " + fn[0] + "(" + uri + ", 0, false, '', false, '', true, CAST(current_connection_id() AS BIGINT))",
		"SELECT nope FROM delta_scan(" + uri + ")",
		"SELECT CAST(letter AS INTEGER) FROM delta_scan(" + uri + ")",
		"SELECT * FROM delta_scan(" + uri + ") a JOIN delta_scan('/no/such/table') b ON true",
		"SELECT * FROM delta_scan(" + uri + ") WHERE error('stop') IS NULL",
	}
	for range 20 {
		for _, q := range abandoning {
			if _, err := queryRows(conn, q); (err == nil) != (q == abandoning[0]) {
				t.Fatalf("%s: error %v", q, err)
			}
		}
	}
	// The plan function called by itself plans without reading: its plan
	// stays pending until the connection plans again, which drops it.
	for range 20 {
		rows(t, conn, abandoning[0])
	}
	if n, _ := planCounts(); n != 1 {
		t.Fatalf("%d plans pending after 20 plans without a read, want the last one only", n)
	}
	if got := rows(t, conn, "SELECT count(*) FROM delta_scan("+uri+")"); strings.Join(got, ",") != "6" {
		t.Fatalf("rows %v", got)
	}
	runtime.GC()
	runtime.GC()
	if p, b := planCounts(); p != 0 || b != 0 {
		t.Fatalf("%d plans pending and %d bound after the queries ended, want none", p, b)
	}
}

// TestDirectWherePrunesPartitions: without filter =>, DuckDB's optimizer
// still drops the read_parquet of each partition whose constant fails the
// WHERE clause.
func TestDirectWherePrunesPartitions(t *testing.T) {
	conn := testConn(t, ScanOptions{})
	uri := directTable(t, nil, false)
	plan := strings.Join(rows(t, conn, "EXPLAIN SELECT sum(v) FROM delta_scan("+quote(uri)+", version => 2) WHERE k = 1 AND p = 'p1'"), "\n")
	// EXPLAIN names each read_parquet scan twice: operator and function.
	if n := strings.Count(plan, "READ_PARQUET"); n != 2 {
		t.Fatalf("%d read_parquet scans in the plan, want 1 (k = 1, p1):\n%s", n/2, plan)
	}
}

// TestDirectStats: a scan that DuckDB's reader reads whole records the
// columns the query asked for and the rows of the files.
func TestDirectStats(t *testing.T) {
	stats := &Stats{}
	conn := testConn(t, ScanOptions{Stats: stats})
	arrow := testConn(t, ScanOptions{ArrowOnly: true})
	uri := directTable(t, nil, false)
	q := "SELECT sum(v), count(s) FROM delta_scan(" + quote(uri) + ", version => 2, filter => 'p = ''p0''')"
	if got, want := rows(t, conn, q), rows(t, arrow, q); !slices.Equal(got, want) {
		t.Fatalf("direct %v, arrow %v", got, want)
	}
	sc := stats.Scans()
	if len(sc) != 1 {
		t.Fatalf("scans %+v", sc)
	}
	st := sc[0]
	if st.FilesRead != 15 || st.FilesSkipped != 15 || st.FilesDirect != 15 || st.Rows != 4500 || strings.Join(st.Columns, ",") != "v,s" {
		t.Fatalf("stat %+v: want 15 files read by DuckDB, 15 skipped, 4500 rows, columns v,s", st)
	}
}

// newYorkConns are connections reading through DuckDB's reader (with
// stats) and through deltalite's only, both in the time zone
// America/New_York.
func newYorkConns(t *testing.T) (*Stats, *sql.Conn, *sql.Conn) {
	t.Helper()
	stats := &Stats{}
	direct := testConn(t, ScanOptions{Stats: stats})
	arrow := testConn(t, ScanOptions{ArrowOnly: true})
	for _, c := range []*sql.Conn{direct, arrow} {
		if _, err := c.ExecContext(context.Background(), "SET TimeZone = 'America/New_York'"); err != nil {
			t.Fatal(err)
		}
	}
	return stats, direct, arrow
}

// sameBothWays: the call reads the same rows through DuckDB's reader
// (direct) and deltalite's (arrow), and so do the queries over it (%s is
// the call).
func sameBothWays(t *testing.T, direct, arrow *sql.Conn, call string, queries ...string) {
	t.Helper()
	sameRows(t, "direct", canonical(t, direct, call), "arrow", canonical(t, arrow, call))
	for _, q := range queries {
		q := fmt.Sprintf(q, call)
		sameRows(t, "direct", rows(t, direct, q), "arrow", rows(t, arrow, q))
	}
}

// TestDirectTimestamps: timestamp columns, as data and as partition
// values, read by DuckDB under a session time zone other than UTC give the
// instants (and wall-clock times) deltalite reads.
func TestDirectTimestamps(t *testing.T) {
	ctx := context.Background()
	s := testSession(t, &Resource{})
	dir := t.TempDir()
	q := `SELECT i AS id, TIMESTAMPTZ '2026-03-29 00:30:00.123456+00' + to_seconds(i * 1000) AS ts,
		TIMESTAMP '2026-03-29 00:30:00.5' + to_seconds(i * 999) AS ntz,
		TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds((i % 3) * 3600) AS tp,
		CASE WHEN i % 4 = 0 THEN NULL ELSE DATE '2026-01-01' + CAST(i % 2 AS INTEGER) END AS dp FROM range(0, 2000) t(i)`
	if _, err := s.SQL(q).Write(ctx, dir, deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"tp", "dp"}}); err != nil {
		t.Fatal(err)
	}
	stats, direct, arrow := newYorkConns(t)
	sameBothWays(t, direct, arrow, "delta_scan("+quote(dir)+")",
		"SELECT CAST(ts AS VARCHAR), CAST(ntz AS VARCHAR), CAST(tp AS VARCHAR), dp FROM %s ORDER BY id LIMIT 5",
		"SELECT tp, dp, count(*), min(ts), max(ntz) FROM %s GROUP BY ALL ORDER BY ALL")
	sc := stats.Scans()
	if len(sc) == 0 || sc[0].FilesDirect == 0 || sc[0].FilesDirect != sc[0].FilesRead {
		t.Fatalf("DuckDB's reader read %+v, want every file", sc)
	}
}

// TestDirectGlobPaths: read_parquet would expand glob characters of a
// path, so a table under such a directory is read by deltalite.
func TestDirectGlobPaths(t *testing.T) {
	ctx := context.Background()
	s := testSession(t, &Resource{})
	dir := filepath.Join(t.TempDir(), "odd [dir] *")
	if _, err := s.SQL("SELECT i AS id, 'x' || i AS s FROM range(0, 100) t(i)").Write(ctx, dir, deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
		t.Fatal(err)
	}
	stats := &Stats{}
	conn := testConn(t, ScanOptions{Stats: stats})
	got := rows(t, conn, "SELECT count(*), sum(id), max(s) FROM delta_scan("+quote(dir)+")")
	if strings.Join(got, ",") != "100|4950|x99" {
		t.Fatalf("rows %v", got)
	}
	if sc := stats.Scans(); len(sc) != 1 || sc[0].FilesRead != 1 || sc[0].FilesDirect != 0 {
		t.Fatalf("stats %+v: want the file read by deltalite", sc)
	}
}

// TestDirectMixedTimestampFiles: a table of Spark's INT96 timestamps (a
// wall-clock TIMESTAMP to DuckDB) to which our writer appends instants
// (TIMESTAMPTZ) reads the same instants both ways under a session time
// zone other than UTC: each file is its own read_parquet, so DuckDB casts
// neither type to the other.
func TestDirectMixedTimestampFiles(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dir, os.DirFS(corpus.Path(t, "delta-rs/table_with_edge_timestamps"))); err != nil {
		t.Fatal(err)
	}
	s := testSession(t, &Resource{ArrowOnly: true})
	if _, err := s.SQL("SELECT * FROM delta_scan("+quote(dir)+")").Write(ctx, dir, deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
		t.Fatal(err)
	}
	stats, direct, arrow := newYorkConns(t)
	q := "SELECT epoch_us(BIG_DATE), epoch_us(NORMAL_DATE), SOME_VALUE FROM delta_scan(" + quote(dir) + ") ORDER BY ALL"
	got, want := rows(t, direct, q), rows(t, arrow, q)
	sameRows(t, "direct", got, "arrow", want)
	if len(got) != 4 || got[0] != got[1] {
		t.Fatalf("rows %v: want each of the two rows twice, the same instants", got)
	}
	if sc := stats.Scans(); len(sc) != 1 || sc[0].FilesDirect != sc[0].FilesRead || sc[0].FilesRead < 3 {
		t.Fatalf("stats %+v: want every file read by DuckDB", sc)
	}
}

// TestDirectWithoutExternalAccess: DuckDB may not open files with
// enable_external_access off, so deltalite reads them all.
func TestDirectWithoutExternalAccess(t *testing.T) {
	stats := &Stats{}
	conn := testConn(t, ScanOptions{Stats: stats})
	if _, err := conn.ExecContext(context.Background(), "SET enable_external_access = false"); err != nil {
		t.Fatal(err)
	}
	got := rows(t, conn, "SELECT count(*) FROM delta_scan("+quote(corpus.Path(t, "dat/basic_partitioned/delta"))+")")
	if strings.Join(got, ",") != "6" {
		t.Fatalf("rows %v", got)
	}
	if sc := stats.Scans(); len(sc) != 1 || sc[0].FilesRead != 6 || sc[0].FilesDirect != 0 {
		t.Fatalf("stats %+v: want 6 files read by deltalite", sc)
	}
}

// TestDirectColumnNoFileHolds: kernel-rs/parsed-stats' log gives ts_col
// statistics (values, no nulls) for files that lack the column. DuckDB's
// reader reads its files, ts_col NULL in every row, as our scan and
// DuckDB's delta extension read it.
func TestDirectColumnNoFileHolds(t *testing.T) {
	stats := &Stats{}
	conn := testConn(t, ScanOptions{Stats: stats})
	uri := corpus.Path(t, "kernel-rs/parsed-stats")
	got := canonical(t, conn, "delta_scan("+quote(uri)+")")
	if len(got) != 600 {
		t.Fatalf("%d rows, want 600", len(got))
	}
	if sc := stats.Scans(); len(sc) != 1 || sc[0].FilesDirect != 6 || sc[0].FilesRead != 6 {
		t.Fatalf("stats %+v: want its 6 files read by DuckDB", sc)
	}
	sameRows(t, "delta_scan", got, "our scan", canonical(t, conn, ourScan(t, conn, uri)))
	if nulls := rows(t, conn, "SELECT count(*), count(ts_col), count(id) FROM delta_scan("+quote(uri)+")"); strings.Join(nulls, ",") != "600|0|600" {
		t.Fatalf("count(*), count(ts_col), count(id): %v", nulls)
	}
	if testing.Short() {
		return // the extension takes a Python process
	}
	ext := peerRows(t, peers.DuckDBDelta, uri, -1)
	t.Logf("extension: %d rows, first %s", len(ext), ext[0])
	sameRows(t, "delta_scan", got, "DuckDB's delta extension", ext)
}

// TestDirectHivePaths: the files whose paths spell their partition values
// share one read_parquet that reads the values from the paths; those of a
// null partition get one per partition, with the log's values as
// constants. Under a directory with "=" in its name (DuckDB would read it
// as a partition too) every partition gets its own.
func TestDirectHivePaths(t *testing.T) {
	ctx := context.Background()
	src := directTable(t, nil, false)
	odd := filepath.Join(t.TempDir(), "x=1", "t")
	if err := os.CopyFS(odd, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	direct := testConn(t, ScanOptions{})
	arrow := testConn(t, ScanOptions{ArrowOnly: true})
	for _, c := range []struct {
		uri                string
		readParquet, hives int
	}{
		{src, 3, 1},  // k 0-3 by path; k NULL, p0 and p1
		{odd, 10, 0}, // every (k, p)
	} {
		q, err := planSQL(ctx, ScanOptions{}, "raw", map[string]any{"version": int64(2), "version_given": true}, []any{c.uri}, true, -1)
		if err != nil {
			t.Fatal(err)
		}
		// Take the plan, as the table function would: none is left.
		_, token, _ := strings.Cut(q, "plan => '")
		if _, ok := takePlan(strings.TrimSuffix(strings.Fields(token)[0], "')")); !ok {
			t.Fatalf("no plan for the token of %s", q)
		}
		if n, h := strings.Count(q, "read_parquet("), strings.Count(q, "hive_partitioning = true"); n != c.readParquet || h != c.hives {
			t.Errorf("%s: %d read_parquet, %d of them hive, want %d and %d:\n%s", c.uri, n, h, c.readParquet, c.hives, q)
		}
		sameBothWays(t, direct, arrow, "delta_scan("+quote(c.uri)+", version => 2)",
			"SELECT k, p, count(*), sum(v) FROM %s WHERE k IN (1, 3) OR k IS NULL GROUP BY ALL ORDER BY ALL",
			"SELECT count(*), max(s) FROM %s WHERE p = 'p1' AND k > 1")
	}
}

// TestHiveText: the partition value texts DuckDB's hive partitioning is
// trusted with, by type.
func TestHiveText(t *testing.T) {
	dec := &schema.Decimal{Precision: 5, Scale: 2}
	for _, c := range []struct {
		t    schema.Type
		text string
		want bool
	}{
		{&schema.Primitive{Name: schema.Long}, "-12", true},
		{&schema.Primitive{Name: schema.Long}, "1e3", false},
		{&schema.Primitive{Name: schema.String}, "p0.a-b_c", true},
		{&schema.Primitive{Name: schema.String}, "a b", false},
		{&schema.Primitive{Name: schema.String}, "a%20b", false},
		{&schema.Primitive{Name: schema.String}, "__HIVE_DEFAULT_PARTITION__", false},
		{&schema.Primitive{Name: schema.String}, "NULL", false},
		{&schema.Primitive{Name: schema.String}, "", false},
		{&schema.Primitive{Name: schema.Date}, "2026-01-02", true},
		{&schema.Primitive{Name: schema.Date}, "2026-1-2", false},
		{&schema.Primitive{Name: schema.Boolean}, "true", true},
		{&schema.Primitive{Name: schema.Boolean}, "TRUE", false},
		{&schema.Primitive{Name: schema.Double}, "1.5", false},
		{&schema.Primitive{Name: schema.Timestamp}, "2026-01-02", false},
		{dec, "123.45", true},
		{dec, "-1.5", true},
		{dec, "1.555", false},
		{dec, "1234.5", false},
	} {
		if got := hiveText(c.t, c.text); got != c.want {
			t.Errorf("hiveText(%v, %q) = %v, want %v", c.t, c.text, got, c.want)
		}
	}
}
