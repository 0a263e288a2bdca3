//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestDeltaScanVersionGivenIsChecked: "not given" is a NULL (the default),
// never a value a caller can pass. A negative version is refused as
// deltalite scan --version -1 refuses it, and an empty timestamp as any
// timestamp that does not parse; version => NULL reads the latest version,
// as leaving it out does. A NULL never reaches duckdb-go, which would abort
// the process on it.
func TestDeltaScanVersionGivenIsChecked(t *testing.T) {
	ctx := context.Background()
	s := testSession(t, &Resource{})
	uri := fourFiles(t, s) // version 0: 200 rows, version 1: 400
	for _, v := range []string{"-1", "-2", "-9223372036854775808"} {
		q := fmt.Sprintf("SELECT count(*) FROM delta_scan(%s, version => %s)", quote(uri), v)
		_, err := s.Conn().QueryContext(ctx, q)
		if err == nil || !strings.Contains(err.Error(), "version "+v+" is negative") {
			t.Errorf("%s: error %v, want one saying version %s is negative", q, err, v)
		}
	}
	for q, want := range map[string]string{
		`SELECT count(*) FROM delta_scan(%s, "timestamp" => '')`: `timestamp "": use RFC 3339`,
		`SELECT count(*) FROM delta_scan(NULL) -- %s`:            "the first argument is the table URI",
	} {
		if _, err := s.Conn().QueryContext(ctx, fmt.Sprintf(q, quote(uri))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", q, err, want)
		}
	}
	for q, want := range map[string]string{
		`SELECT count(*) FROM delta_scan(%s, version => NULL)`:                   "400",
		`SELECT count(*) FROM delta_scan(%s, "timestamp" => NULL)`:               "400",
		`SELECT count(*) FROM delta_scan(%s, version => 0, "timestamp" => NULL)`: "200",
		`SELECT count(*) FROM delta_scan(%s, version => '1')`:                    "400",
		`SELECT count(*) FROM delta_scan(%s, version => 0::TINYINT)`:             "200",
	} {
		if got := rows(t, s.Conn(), fmt.Sprintf(q, quote(uri))); strings.Join(got, ",") != want {
			t.Errorf("%s = %v, want %s", q, got, want)
		}
	}
	// Load's AtVersion passes the version as given.
	if _, err := s.Load(uri, AtVersion(-1)).Query(ctx); err == nil || !strings.Contains(err.Error(), "version -1 is negative") {
		t.Errorf("Load(AtVersion(-1)): error %v, want one saying version -1 is negative", err)
	}
}
