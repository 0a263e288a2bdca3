//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/testkit/corpus"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// canonical runs SELECT * FROM source on conn and returns its rows as
// text, sorted: each value cast to VARCHAR (BLOBs in lower-case hex and
// timestamps in microseconds since the epoch, as the peers' canonical form
// has them), NULL as "NULL", values joined by "|".
func canonical(t *testing.T, conn *sql.Conn, source string) []string {
	t.Helper()
	got, err := canonicalRows(conn, source)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// canonicalRows is canonical returning its error.
func canonicalRows(conn *sql.Conn, source string) ([]string, error) {
	desc, err := conn.QueryContext(context.Background(), "DESCRIBE SELECT * FROM "+source)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", source, err)
	}
	var exprs []string
	for desc.Next() {
		var name, typ string
		var null, key, def, extra sql.NullString
		if err := desc.Scan(&name, &typ, &null, &key, &def, &extra); err != nil {
			desc.Close()
			return nil, err
		}
		e := "CAST(" + quoteIdent(name) + " AS VARCHAR)"
		switch {
		case typ == "BLOB":
			e = "lower(hex(" + quoteIdent(name) + "))"
		case strings.HasPrefix(typ, "TIMESTAMP"):
			e = "CAST(epoch_us(" + quoteIdent(name) + ") AS VARCHAR)"
		}
		exprs = append(exprs, "coalesce("+e+", 'NULL')")
	}
	desc.Close()
	got, err := queryRows(conn, "SELECT "+strings.Join(exprs, ", ")+" FROM "+source)
	slices.Sort(got)
	return got, err
}

// ourScan registers the engine's own scan of the table (deltalite.Open and
// scan, no DuckDB table function) as a view of conn, and returns its name.
func ourScan(t *testing.T, conn *sql.Conn, uri string, opts ...deltalite.Option) string {
	t.Helper()
	ctx := context.Background()
	tbl, err := deltalite.Open(ctx, uri, opts...)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := ScanReader(ctx, tbl.Scan(scan.WithBatchSize(3)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rr.Release)
	name := fmt.Sprintf("ours_%d", len(t.Name())+int(tbl.Version())*1000)
	err = conn.Raw(func(dc any) error {
		ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		release, err := ar.RegisterView(rr, name)
		if err == nil {
			t.Cleanup(release)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// deltaRS reads the table with delta-rs and returns its rows in
// canonical's form (the peers' canonical JSON values as text).
func deltaRS(t *testing.T, uri string, version int64) []string {
	t.Helper()
	return peerRows(t, peers.DeltaRS, uri, version)
}

// peerRows reads the table with the peer engine and returns its rows in
// canonical's form.
func peerRows(t *testing.T, engine, uri string, version int64) []string {
	t.Helper()
	var opts peers.ReadOptions
	if version >= 0 {
		opts.Version = peers.Int64(version)
	}
	tb := peers.ReadTable(t, engine, uri, opts)
	var got []string
	for _, r := range tb.Rows {
		parts := make([]string, len(tb.Columns))
		for i, c := range tb.Columns {
			parts[i] = "NULL"
			if v := r[c]; v != nil {
				parts[i] = fmt.Sprint(v)
			}
		}
		got = append(got, strings.Join(parts, "|"))
	}
	slices.Sort(got)
	return got
}

// TestDeltaScanAgreesWithOurScanAndDeltaRS reads conformance tables with
// deletion vectors, column mapping (partitioned too), partitions with
// nulls and escapes, and older versions: delta_scan, our scan and
// delta-rs give the same rows.
func TestDeltaScanAgreesWithOurScanAndDeltaRS(t *testing.T) {
	cases := []struct {
		table   string
		version int64 // -1: latest
		rows    int
		nested  bool // compared with our scan only: the peers print nested values otherwise
	}{
		{"dat/deletion_vectors/delta", -1, 1, false},
		{"delta-rs/table-with-dv-small", -1, 8, false},
		{"dat/column_mapping/delta", -1, 10, false},
		{"delta-rs/table_with_column_mapping", -1, 5, false},
		{"delta-rs/table_with_partitioning_mapping", -1, 2, false},
		{"dat/basic_partitioned/delta", -1, 6, false},
		{"dat/basic_partitioned/delta", 0, 3, false},
		{"dat/multi_partitioned/delta", 1, 5, false},
		{"dat/multi_partitioned/delta", -1, 2, false},
		{"dat/all_primitive_types/delta", -1, 5, false},
		{"dat/nested_types/delta", -1, 5, true},
		{"dat/timestamp_ntz/delta", -1, 5, false},
		{"dat/multi_partitioned_2/delta", -1, 3, false},
	}
	conn := testConn(t, ScanOptions{})
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s@%d", c.table, c.version), func(t *testing.T) {
			uri := corpus.Path(t, c.table)
			call := "delta_scan(" + quote(uri) + ")"
			var opts []deltalite.Option
			if c.version >= 0 {
				call = fmt.Sprintf("delta_scan(%s, version => %d)", quote(uri), c.version)
				opts = append(opts, deltalite.WithVersion(c.version))
			}
			got := canonical(t, conn, call)
			if len(got) != c.rows {
				t.Fatalf("delta_scan: %d rows, want %d: %v", len(got), c.rows, got)
			}
			ours := canonical(t, conn, ourScan(t, conn, uri, opts...))
			if !slices.Equal(got, ours) {
				t.Fatalf("delta_scan and our scan differ:\n%v\n%v", got, ours)
			}
			if testing.Short() || c.nested {
				return // delta-rs takes seconds a read
			}
			peer := deltaRS(t, uri, c.version)
			if !slices.Equal(got, peer) {
				t.Fatalf("delta_scan and delta-rs differ:\n%v\n%v", got, peer)
			}
		})
	}
}
