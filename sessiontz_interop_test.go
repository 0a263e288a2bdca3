package deltalite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sessionZoneGenerated are generated columns whose values depend on the
// session time zone, as Spark's writers compute them in
// spark.sql.session.timeZone.
var sessionZoneGenerated = []struct{ col, typ, expr string }{
	{"d", "DATE", "CAST(ts AS DATE)"},
	{"h", "INT", "hour(ts)"},
	{"dh", "STRING", "date_format(ts, 'yyyy-MM-dd HH')"},
	{"fu", "STRING", "from_unixtime(sec)"},
}

// The instants both engines insert: around Los Angeles's daylight-saving
// gap (2024-03-10 10:00Z) and overlap (2024-11-03, 01:00 to 02:00 twice:
// 08:00Z to 10:00Z), a new year that is still the old one in UTC in
// +05:30 and already the new one there, and an ordinary summer day.
var sessionZoneInstants = []string{
	"2024-03-10T09:59:59Z", "2024-03-10T10:00:00Z", "2024-11-03T07:00:00Z", "2024-11-03T08:30:00Z",
	"2024-11-03T09:30:00Z", "2024-12-31T20:00:00Z", "2024-06-01T03:00:00Z",
}

// TestSparkSessionTimeZone: Spark sessions with spark.sql.session.timeZone
// America/Los_Angeles and +05:30 create tables with generated columns of
// CAST(ts AS DATE), hour, date_format and from_unixtime (partitioned by
// the date) and a CHECK constraint with a timestamp literal, and insert
// rows around daylight-saving transitions; we insert the same instants
// with the same SessionTimeZone and get Spark's values, then UPDATE (to a
// local time in the overlap), MERGE and upsert, and Spark finds every row
// equal to its own expressions. A row the constraint refuses in the zone
// (not in UTC) is refused by both engines; a DELETE whose predicate is a
// local time deletes the rows Spark selects with it; a predicate on ts
// skips date partitions in the zone. With the default UTC session our
// values are UTC's, which Spark in the zone finds differing, as the
// README says.
func TestSparkSessionTimeZone(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	s := peers.Spark(t)
	t.Cleanup(func() { s.Run(t, peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=UTC"}) })
	for _, zone := range []string{"America/Los_Angeles", "+05:30"} {
		t.Run(zone, func(t *testing.T) { sessionZoneRoundTrip(t, s, zone) })
	}
}

func sessionZoneRoundTrip(t *testing.T, s *peers.SparkSession, zone string) {
	ctx := context.Background()
	loc := time.FixedZone(zone, 5*3600+1800)
	if strings.Contains(zone, "/") {
		var err error
		if loc, err = time.LoadLocation(zone); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "tz")
	var sparkValues, ours []string
	cols, wrong := generatedDDL(sessionZoneGenerated)
	row := func(at string, v int) (spark, ours string) {
		tm, err := time.Parse(time.RFC3339, at)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("(TIMESTAMP '%s', %d, %d)", strings.Replace(at, "T", " ", 1), v, tm.Unix()),
			fmt.Sprintf(`{"ts":%q,"v":%d,"sec":%d}`, at, v, tm.Unix())
	}
	for i, at := range sessionZoneInstants {
		sv, _ := row(at, i)
		_, ov := row(at, 100+i)
		sparkValues, ours = append(sparkValues, sv), append(ours, ov)
	}
	// The constraint's literal is local midnight of 2024-01-01 in the zone.
	const check = "ts >= TIMESTAMP '2024-01-01 00:00:00'"
	s.Run(t,
		peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=" + zone},
		sparkSQL(dir, "CREATE TABLE {table} (ts TIMESTAMP, v INT, sec BIGINT, "+strings.Join(cols, ", ")+") USING delta PARTITIONED BY (d)", false),
		sparkSQL(dir, "ALTER TABLE {table} ADD CONSTRAINT since2024 CHECK ("+check+")", false),
		sparkSQL(dir, "INSERT INTO {table} (ts, v, sec) VALUES "+strings.Join(sparkValues, ", "), false),
	)
	fields := []arrow.Field{fTS, fV, fI64("sec")}
	mustWrite(t, dir, jsonSource(t, fields, "["+strings.Join(ours, ",")+"]"),
		deltalite.WriteOptions{Mode: deltalite.ModeAppend, SessionTimeZone: zone})
	sameGeneratedPerTimestamp(t, dir, len(sessionZoneInstants))
	sparkRechecksInZone(t, s, dir, zone, wrong, 0)

	// UPDATE to a local time in Los Angeles's overlap (the earlier
	// offset, as Spark reads it), MERGE and upsert: computed in the zone.
	tb := openT(t, dir)
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "v = 100", SessionTimeZone: zone,
		Set: map[string]string{"ts": "TIMESTAMP '2024-11-03 01:30:00'", "sec": "unix_timestamp('2024-03-10 02:30:00')"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Merge(ctx, jsonSource(t, fields, `[{"ts":"2024-11-03T09:59:59Z","v":101,"sec":1730627999},{"ts":"2024-03-10T10:30:00Z","v":300,"sec":1710066600}]`),
		deltalite.MergeOptions{Predicate: "t.v = s.v", MergeType: "upsert", SessionTimeZone: zone}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Upsert(ctx, jsonSource(t, fields, `[{"ts":"2024-12-31T18:29:59Z","v":102,"sec":1735669799},{"ts":"2024-11-03T10:00:00Z","v":301,"sec":1730628000}]`),
		deltalite.UpsertOptions{PrimaryKeys: []string{"v"}, SessionTimeZone: zone}); err != nil {
		t.Fatal(err)
	}
	sparkRechecksInZone(t, s, dir, zone, wrong, 0)

	// An hour before local midnight of 2024-01-01: before the constraint's
	// instant in the zone (after it in UTC, for Los Angeles).
	early := time.Date(2024, 1, 1, 0, 0, 0, 0, loc).Add(-time.Hour).UTC()
	refusedUnchanged(t, dir, "a row the CHECK constraint refuses in "+zone, "since2024", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, fmt.Sprintf(`[{"ts":%q,"v":9,"sec":1}]`, early.Format(time.RFC3339))),
			deltalite.WriteOptions{Mode: deltalite.ModeAppend, SessionTimeZone: zone})
		return err
	})
	res := s.Try(t, sparkSQL(dir, fmt.Sprintf("INSERT INTO {table} (ts, v, sec) VALUES (TIMESTAMP '%s', 9, 1)", early.Format("2006-01-02 15:04:05Z")), false))
	if res[0].OK || !strings.Contains(strings.ToLower(res[0].Error), "since2024") {
		t.Fatalf("Spark accepted the row the constraint refuses in %s: %+v", zone, res[0])
	}

	// A predicate on ts skips date partitions in the zone, and reads the
	// rows Spark selects.
	const where = "ts >= '2024-11-03 01:00:00' AND ts < '2024-11-04'"
	sparkCount := func(pred string) string {
		got := s.Run(t, sparkSQL(dir, "SELECT count(*) AS n FROM {table} WHERE "+pred, true))[0].Table(t).Lines(t)
		if len(got) != 1 {
			t.Fatalf("Spark count: %v", got)
		}
		return got[0]
	}
	snap := openT(t, dir).Snapshot()
	sc := scan.New(snap, scan.WithWhere(where), scan.WithSessionTimeZone(zone))
	tasks, err := sc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := fmt.Sprintf("n=%d", len(scannedV(t, sc))); n != sparkCount(where) || len(tasks) >= len(snap.Files()) {
		t.Fatalf("WHERE %s in %s: %s rows (Spark: %s), %d of %d files planned", where, zone, n, sparkCount(where), len(tasks), len(snap.Files()))
	}

	// DELETE by a local time: the rows Spark selects with it go.
	const del = "ts < '2024-06-01 08:00:00'"
	before := sparkCount("true")
	selected := sparkCount(del)
	stats, err := openT(t, dir).Delete(ctx, deltalite.DeleteOptions{Predicate: del, SessionTimeZone: zone})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("n=%d", stats.RowsDeleted) != selected || sparkCount(del) != "n=0" || before == sparkCount("true") {
		t.Fatalf("DELETE WHERE %s in %s: deleted %d, Spark selected %s", del, zone, stats.RowsDeleted, selected)
	}
	sparkRechecksInZone(t, s, dir, zone, wrong, 0)

	// The default session is UTC: a row written without the zone gets
	// UTC's values, which Spark in the zone finds differing.
	mustWrite(t, dir, jsonSource(t, fields, `[{"ts":"2024-06-01T03:30:00Z","v":500,"sec":1717212600}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	sparkRechecksInZone(t, s, dir, zone, wrong, 1)
}

// sparkRechecksInZone has Spark, in session time zone zone, count the
// rows of the table at dir where any of wrong holds (want of them), and
// read the rows we read.
func sparkRechecksInZone(t *testing.T, s *peers.SparkSession, dir, zone string, wrong []string, want int) {
	t.Helper()
	res := s.Run(t,
		peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=" + zone},
		sparkSQL(dir, "SELECT count(*) AS wrong FROM {table} WHERE "+strings.Join(wrong, " OR "), true),
	)
	if got := res[1].Table(t).Lines(t); len(got) != 1 || got[0] != fmt.Sprintf("wrong=%d", want) {
		t.Fatalf("Spark in %s finds %v rows whose generated columns are not its expressions, want %d", zone, got, want)
	}
	sparkRechecksGenerated(t, s, dir, []string{"false"})
}

// A zone Spark would not read is refused by every operation before it
// changes anything, naming the option.
func TestSessionTimeZoneRefused(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	fields := []arrow.Field{fTS, fV}
	mustWrite(t, dir, jsonSource(t, fields, `[{"ts":"2024-11-03T08:30:00Z","v":1}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	const bad = "Mars/Olympus"
	for what, f := range map[string]func() error{
		"write": func() error {
			_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, `[{"ts":"2024-11-03T08:30:00Z","v":2}]`),
				deltalite.WriteOptions{Mode: deltalite.ModeAppend, SessionTimeZone: bad})
			return err
		},
		"upsert": func() error {
			_, err := openT(t, dir).Upsert(ctx, jsonSource(t, fields, `[{"ts":"2024-11-03T08:30:00Z","v":2}]`),
				deltalite.UpsertOptions{PrimaryKeys: []string{"v"}, SessionTimeZone: bad})
			return err
		},
		"merge": func() error {
			_, err := openT(t, dir).Merge(ctx, jsonSource(t, fields, `[{"ts":"2024-11-03T08:30:00Z","v":2}]`),
				deltalite.MergeOptions{Predicate: "t.v = s.v", MergeType: "upsert", SessionTimeZone: bad})
			return err
		},
		"update": func() error {
			_, err := openT(t, dir).Update(ctx, deltalite.UpdateOptions{Predicate: "v = 1", Set: map[string]string{"v": "3"}, SessionTimeZone: bad})
			return err
		},
		"delete": func() error {
			_, err := openT(t, dir).Delete(ctx, deltalite.DeleteOptions{Predicate: "v = 1", SessionTimeZone: bad})
			return err
		},
		"alter": func() error {
			_, err := openT(t, dir).Alter(ctx, deltalite.AlterOptions{AddConstraints: map[string]string{"c": "v > 0"}, SessionTimeZone: bad})
			return err
		},
		"optimize": func() error {
			_, err := openT(t, dir).Optimize(ctx, deltalite.OptimizeOptions{Predicate: "true", SessionTimeZone: bad})
			return err
		},
	} {
		refusedUnchanged(t, dir, what, bad, f)
		if err := f(); !strings.Contains(err.Error(), "SessionTimeZone") {
			t.Errorf("%s: %v does not name the option", what, err)
		}
	}
	if _, err := scan.New(openT(t, dir).Snapshot(), scan.WithWhere("v = 1"), scan.WithSessionTimeZone(bad)).Plan(ctx); err == nil ||
		!strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "WithSessionTimeZone") {
		t.Errorf("scan: %v", err)
	}
}

// TestZonelessTimestampPartitionValues: delta-rs writes a TIMESTAMP
// partition value as a date-time without a zone (UTC's), which the
// protocol reads in the writer's zone and Spark in its session's. In the
// session zone America/Los_Angeles our scan's values, a predicate's
// partition pruning and the upsert's partition of a row are Spark's; in
// UTC, the default, they stay delta-rs's.
func TestZonelessTimestampPartitionValues(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs and Spark: not in -short mode")
	}
	ctx := context.Background()
	const zone = "America/Los_Angeles"
	dir := filepath.Join(t.TempDir(), "zoneless")
	peers.WriteTable(t, map[string]any{"engine": "deltalake", "path": dir, "steps": []any{
		withData(step("write", "mode", "overwrite", "partition_by", []string{"ts"}), map[string]any{
			"schema": []map[string]any{{"name": "id", "type": "long"}, {"name": "ts", "type": "timestamp"}, {"name": "v", "type": "string"}},
			"rows": []map[string]any{
				{"id": 1, "ts": "2026-03-08T09:30:00Z", "v": "a"},
				{"id": 2, "ts": "2026-07-01T12:00:00.123456Z", "v": "b"},
				{"id": 3, "ts": "2026-11-01T08:30:00Z", "v": "c"},
			},
		}),
	}})
	commit, err := os.ReadFile(filepath.Join(dir, "_delta_log", "00000000000000000000.json"))
	if err != nil || !strings.Contains(string(commit), `"ts":"2026-03-08 09:30:00.000000"`) {
		t.Fatalf("delta-rs no longer writes zoneless partition values (%v):\n%s", err, commit)
	}
	s := peers.Spark(t)
	t.Cleanup(func() { s.Run(t, peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=UTC"}) })
	spark := func(sql string) []string {
		return s.Run(t, peers.Op{"op": "sql", "sql": "SET spark.sql.session.timeZone=" + zone},
			sparkSQL(dir, sql, true))[1].Table(t).Lines(t)
	}
	ours := func(zone, where string) []string {
		t.Helper()
		opts := []scan.Option{scan.WithSessionTimeZone(zone), scan.WithColumns("id", "ts", "v")}
		if where != "" {
			opts = append(opts, scan.WithWhere(where))
		}
		_, seq, err := openT(t, dir).Scan(opts...).Records(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rec, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			ids, ts, v := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Timestamp), rec.Column(2).(*array.String)
			for i := range int(rec.NumRows()) {
				out = append(out, fmt.Sprintf("id=%d, us=%d, v=%q", ids.Value(i), int64(ts.Value(i)), v.Value(i)))
			}
		}
		slices.Sort(out)
		return out
	}
	const rows = "SELECT id, unix_micros(ts) AS us, v FROM {table}"
	arrowrows.Diff(t, ours(zone, ""), spark(rows))
	// In UTC the text is delta-rs's instant.
	arrowrows.Diff(t, ours("", ""), []string{`id=1, us=1772962200000000, v="a"`, `id=2, us=1782907200123456, v="b"`, `id=3, us=1793521800000000, v="c"`})
	// A predicate on the instant of row 1 read in the zone: its partition
	// is planned there, and no file in UTC.
	var us int64
	if _, err := fmt.Sscanf(ours(zone, "id = 1")[0], "id=1, us=%d", &us); err != nil {
		t.Fatal(err)
	}
	at := "ts = TIMESTAMP '" + time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05") + "Z'"
	if got, want := ours(zone, at), spark(rows+" WHERE "+at); len(want) != 1 || strings.Join(got, "|") != want[0] {
		t.Fatalf("WHERE %s in %s: %v here, %v in Spark", at, zone, got, want)
	}
	if got := ours("", at); len(got) != 0 {
		t.Fatalf("WHERE %s in UTC: %v", at, got)
	}
	// The upsert finds row 1 in its partition, read in the zone, and
	// replaces it rather than adding a second row with its key.
	fields := []arrow.Field{fI64("id"), fTS, {Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}
	src := jsonSource(t, fields, `[{"id":1,"ts":"`+time.UnixMicro(us).UTC().Format(time.RFC3339)+`","v":"x"}]`)
	if _, err := openT(t, dir).Upsert(ctx, src, deltalite.UpsertOptions{PrimaryKeys: []string{"id"}, SessionTimeZone: zone}); err != nil {
		t.Fatal(err)
	}
	want := spark(rows)
	if len(want) != 3 || want[0] != fmt.Sprintf(`id=1, us=%d, v="x"`, us) {
		t.Fatalf("after the upsert Spark reads %v", want)
	}
	arrowrows.Diff(t, ours(zone, ""), want)
}
