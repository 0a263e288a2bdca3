package main

import (
	"strings"
	"testing"
)

// TestCLISessionTimeZone: --session-time-zone (else
// $DELTALITE_SESSION_TIME_ZONE) is the zone a write computes generated
// columns in and a scan reads timestamp text in; a zone Spark would not
// read is refused naming the flag or the variable, before any I/O; alter
// --add-constraint checks the table's rows in the zone.
func TestCLISessionTimeZone(t *testing.T) {
	dir := t.TempDir()
	table := dir + "/t"
	sc := writeFile(t, "schema.json", `{"type":"struct","fields":[`+
		`{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},`+
		`{"name":"h","type":"integer","nullable":true,"metadata":{"delta.generationExpression":"hour(ts)"}}]}`)
	mustRun(t, "create", table, "--schema", sc)
	// 08:30Z and 09:30Z are both 01:30 in Los Angeles (the overlap of
	// 2024-11-03), 14:00 and 15:00 in +05:30.
	in := writeFile(t, "in.csv", "ts\n2024-11-03T08:30:00Z\n")
	mustRun(t, "write", table, "--input", in, "--session-time-zone", "America/Los_Angeles")
	t.Setenv(envSessionTimeZone, "+05:30")
	in2 := writeFile(t, "in2.csv", "ts\n2024-11-03T09:30:00Z\n")
	mustRun(t, "write", table, "--input", in2)
	out := mustRun(t, "scan", table, "--format", "csv", "--columns", "h", "--where", "ts = '2024-11-03 15:00:00'")
	if got := strings.Fields(out); strings.Join(got, " ") != "h 15" {
		t.Errorf("scan in $%s=+05:30: %q", envSessionTimeZone, out)
	}
	out = mustRun(t, "scan", table, "--format", "csv", "--columns", "h", "--where", "ts = '2024-11-03 01:30:00'", "--session-time-zone", "America/Los_Angeles")
	if got := strings.Fields(out); strings.Join(got, " ") != "h 1" {
		t.Errorf("scan in America/Los_Angeles (the earlier 01:30): %q", out)
	}
	if _, err := run(t, "scan", table, "--session-time-zone", "Mars/Olympus"); err == nil || !strings.Contains(err.Error(), "--session-time-zone") ||
		!strings.Contains(err.Error(), "Mars/Olympus") {
		t.Errorf("bad --session-time-zone: %v", err)
	}
	// alter --add-constraint checks the rows in the zone: 09:00 is 17:00Z
	// in Los Angeles, after both rows, but before 09:30Z in UTC.
	t.Setenv(envSessionTimeZone, "")
	const c = "before9=ts < TIMESTAMP '2024-11-03 09:00:00'"
	if _, err := run(t, "alter", table, "--add-constraint", c); err == nil || !strings.Contains(err.Error(), "1 rows in the table violate") {
		t.Errorf("alter in UTC: %v", err)
	}
	mustRun(t, "alter", table, "--add-constraint", c, "--session-time-zone", "America/Los_Angeles")
	t.Setenv(envSessionTimeZone, "nowhere")
	if _, err := run(t, "delete", dir+"/missing", "--where", "true"); err == nil || !strings.Contains(err.Error(), envSessionTimeZone) {
		t.Errorf("bad $%s: %v", envSessionTimeZone, err)
	}
}
