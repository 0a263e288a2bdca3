//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
)

// fourFiles writes a table of 400 rows in four files: two partitions (day)
// and, in each, two appends of disjoint id ranges (for statistics).
func fourFiles(t *testing.T, s *Session) string {
	t.Helper()
	uri := filepath.Join(t.TempDir(), "events")
	for i := range 2 {
		q := fmt.Sprintf("SELECT i AS id, CASE WHEN i %% 2 = 0 THEN 'mon' ELSE 'tue' END AS day, i * 10 AS v FROM range(%d, %d) t(i)", i*200, i*200+200)
		if _, err := s.SQL(q).Write(context.Background(), uri, deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"day"}}); err != nil {
			t.Fatal(err)
		}
	}
	return uri
}

// TestFilterReadsFewerFiles: a partition filter prunes files exactly and a
// data-column filter skips files by statistics; both are counted, and the
// rows are those of the unfiltered scan that match.
func TestFilterReadsFewerFiles(t *testing.T) {
	stats := &Stats{}
	s := testSession(t, &Resource{Stats: stats})
	uri := fourFiles(t, s)
	cases := []struct {
		filter        string
		read, skipped int
		where         string // the same predicate in DuckDB's SQL
	}{
		{"", 4, 0, "true"},
		{"day = 'tue'", 2, 2, "day = 'tue'"},
		{"id >= 250", 2, 2, "id >= 250"},
		{"id < 100 AND day = 'mon'", 1, 3, "id < 100 AND day = 'mon'"},
	}
	for _, c := range cases {
		t.Run(c.filter, func(t *testing.T) {
			stats.Reset()
			got := rows(t, s.Conn(), fmt.Sprintf("SELECT id, day, v FROM delta_scan(%s, filter => %s) ORDER BY id", quote(uri), quote(c.filter)))
			want := rows(t, s.Conn(), fmt.Sprintf("SELECT id, day, v FROM delta_scan(%s) WHERE %s ORDER BY id", quote(uri), c.where))
			if len(got) == 0 || !slices.Equal(got, want) {
				t.Fatalf("filter %q: %d rows, want the %d of WHERE %s", c.filter, len(got), len(want), c.where)
			}
			sc := stats.Scans()[0]
			if sc.FilesLive != 4 || sc.FilesRead != c.read || sc.FilesSkipped != c.skipped {
				t.Fatalf("filter %q read %d of %d files, skipped %d; want %d read, %d skipped", c.filter, sc.FilesRead, sc.FilesLive, sc.FilesSkipped, c.read, c.skipped)
			}
		})
	}
}

func TestDeltaScanTimeTravelAndErrors(t *testing.T) {
	ctx := context.Background()
	s := testSession(t, &Resource{})
	uri := fourFiles(t, s)
	// Time travel resolves a timestamp by the commit files' times (the
	// table has no in-commit timestamps); commitInfo's own time is taken
	// before the file is written, so it can be a millisecond earlier.
	fi, err := os.Stat(filepath.Join(uri, "_delta_log", "00000000000000000000.json"))
	if err != nil {
		t.Fatal(err)
	}
	v0 := fi.ModTime().UTC().Format(time.RFC3339Nano)
	for q, want := range map[string]string{
		`SELECT count(*) FROM delta_scan(%s, "timestamp" => '` + v0 + `')`: "200",
		`SELECT count(*) FROM delta_scan(%s, version => 0)`:                "200",
		`SELECT count(*) FROM delta_scan(%s)`:                              "400",
	} {
		if got := rows(t, s.Conn(), fmt.Sprintf(q, quote(uri))); strings.Join(got, ",") != want {
			t.Errorf("%s = %v, want %s", q, got, want)
		}
	}
	for q, want := range map[string]string{
		`SELECT * FROM delta_scan(%s, filter => 'nope = 1')`:                      `filter "nope = 1"`,
		`SELECT * FROM delta_scan(%s, version => 7)`:                              "version 7",
		`SELECT * FROM delta_scan(%s, version => 0, "timestamp" => '2026-01-01')`: "not both",
		`SELECT * FROM delta_scan(%s, "timestamp" => 'yesterday')`:                "RFC 3339",
		`SELECT * FROM delta_scan(%s || '-missing')`:                              "events-missing",
	} {
		_, err := s.Conn().QueryContext(ctx, fmt.Sprintf(q, quote(uri)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", q, err, want)
		}
	}
}

// TestDeltaScanFutureTimestamp: a timestamp after the latest commit is an
// error naming that commit's time (Spark's TIMESTAMP AS OF refuses it too),
// not a read of the latest version; the commit's own time reads it.
func TestDeltaScanFutureTimestamp(t *testing.T) {
	ctx := context.Background()
	s := testSession(t, &Resource{})
	uri := fourFiles(t, s)
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC) // version 1; version 0 an hour before
	for v, ts := range []time.Time{at.Add(-time.Hour), at} {
		if err := os.Chtimes(filepath.Join(uri, "_delta_log", fmt.Sprintf("%020d.json", v)), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	for _, ts := range []string{"2999-01-01", "2026-02-03 04:05:06.001"} {
		q := fmt.Sprintf(`SELECT count(*) FROM delta_scan(%s, "timestamp" => '%s')`, quote(uri), ts)
		r, err := s.Conn().QueryContext(ctx, q)
		if err == nil {
			r.Close() // a read of the latest version: the failure below
		}
		if err == nil || !strings.Contains(err.Error(), "after the latest commit") || !strings.Contains(err.Error(), "2026-02-03T04:05:06Z") {
			t.Errorf("%s: error %v, want one naming the latest commit's time 2026-02-03T04:05:06Z", q, err)
		}
	}
	q := fmt.Sprintf(`SELECT count(*) FROM delta_scan(%s, "timestamp" => '2026-02-03 04:05:06')`, quote(uri))
	if got := rows(t, s.Conn(), q); strings.Join(got, ",") != "400" {
		t.Errorf("%s = %v, want 400", q, got)
	}
}

// A query that stops early (LIMIT) leaves no scan running once DuckDB
// drops its state.
func TestEarlyStopReleasesScans(t *testing.T) {
	s := testSession(t, &Resource{})
	uri := fourFiles(t, s)
	conn := testConn(t, ScanOptions{BatchSize: 10, ArrowOnly: true}) // 10 batches a file, read by deltalite
	before := runtime.NumGoroutine()
	for range 8 {
		if got := rows(t, conn, "SELECT id FROM delta_scan("+quote(uri)+") LIMIT 1"); len(got) != 1 {
			t.Fatalf("LIMIT 1 gave %v", got)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Fatalf("%d goroutines after 8 stopped scans, %d before: scans left running", n, before)
	}
}
