//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// testConn is a connection of a fresh in-memory database with delta_scan.
func testConn(t *testing.T, opts ScanOptions) *sql.Conn {
	t.Helper()
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := RegisterDeltaScan(context.Background(), conn, opts); err != nil {
		t.Fatal(err)
	}
	return conn
}

// rows runs q and returns each row as its values joined by "|", in order.
func rows(t *testing.T, conn *sql.Conn, q string) []string {
	t.Helper()
	out, err := queryRows(conn, q)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// queryRows is rows returning its error.
func queryRows(conn *sql.Conn, q string) ([]string, error) {
	rs, err := conn.QueryContext(context.Background(), q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	return out, nil
}

func TestDeltaScanReadsPartitionedTable(t *testing.T) {
	stats := &Stats{}
	conn := testConn(t, ScanOptions{Stats: stats})
	tbl := corpus.Path(t, "dat/basic_partitioned/delta")
	got := rows(t, conn, "SELECT letter, number FROM delta_scan('"+tbl+"') ORDER BY number")
	want := []string{"a|1", "b|2", "c|3", "a|4", "e|5", "f|6"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows = %v, want %v", got, want)
	}
	sc := stats.Scans()
	if len(sc) != 1 || strings.Join(sc[0].Columns, ",") != "letter,number" || sc[0].Rows != 6 {
		t.Fatalf("stats = %+v, want one scan of letter,number with 6 rows", sc)
	}
}

// Two connections of one database registered with different options each
// keep theirs, and a resource's sessions share its function.
func TestRegistrationsKeepTheirOptions(t *testing.T) {
	ctx := context.Background()
	tbl := corpus.Path(t, "dat/basic_partitioned/delta")
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	a, b := &Stats{}, &Stats{}
	for _, st := range []*Stats{a, b} {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := RegisterDeltaScan(ctx, conn, ScanOptions{Stats: st}); err != nil {
			t.Fatal(err)
		}
		rows(t, conn, "SELECT count(*) FROM delta_scan('"+tbl+"')")
	}
	if len(a.Scans()) != 1 || len(b.Scans()) != 1 {
		t.Fatalf("scans recorded: %d and %d, want 1 each", len(a.Scans()), len(b.Scans()))
	}

	shared := &Stats{}
	res := &Resource{Stats: shared}
	s1, s2 := testSession(t, res), testSession(t, res)
	for _, s := range []*Session{s1, s2} {
		if got := rows(t, s.Conn(), "SELECT count(*) FROM delta_scan('"+tbl+"')"); strings.Join(got, ",") != "6" {
			t.Fatalf("count = %v, want 6", got)
		}
	}
	if len(shared.Scans()) != 2 {
		t.Fatalf("resource recorded %d scans, want 2", len(shared.Scans()))
	}
}
