package duckdbio

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
)

// corpus returns the path of a table of the conformance corpus (tables
// other engines wrote): $DELTALITE_CONFORMANCE, or shared/conformance beside
// the repository. Without it the test skips (fails when peers are required).
func corpus(t *testing.T, table string) string {
	t.Helper()
	root := os.Getenv("DELTALITE_CONFORMANCE")
	if root == "" {
		root = "../../../shared/conformance"
	}
	p := filepath.Join(root, table)
	if _, err := os.Stat(p); err != nil {
		missing(t, "conformance tables not found (%s; set DELTALITE_CONFORMANCE)", p)
	}
	return p
}

// missing skips a test for a missing peer or corpus, or fails it when
// DELTALITE_REQUIRE_PEERS=1 (make test): the skip prefix is the one make
// test's summary fails on.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := "missing peer: " + fmt.Sprintf(format, args...)
	if os.Getenv("DELTALITE_REQUIRE_PEERS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

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
	rs, err := conn.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
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
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func TestDeltaScanReadsPartitionedTable(t *testing.T) {
	stats := &Stats{}
	conn := testConn(t, ScanOptions{Stats: stats})
	tbl := corpus(t, "dat/basic_partitioned/delta")
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
