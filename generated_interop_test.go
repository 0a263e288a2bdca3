package deltalite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sparkGeneratedDatetime are the generated columns of the table
// TestSparkGeneratedDatetimeColumns has Spark create: each function Spark
// partitions by, and a mix of substring, concat, CAST and arithmetic.
var sparkGeneratedDatetime = []struct{ col, typ, expr string }{
	{"h", "INT", "hour(ts)"},
	{"ym", "STRING", "date_format(ts, 'yyyy-MM')"},
	{"dh", "STRING", "date_format(ts, 'yyyy-MM-dd-HH')"},
	{"wk", "TIMESTAMP", "date_trunc('WEEK', ts)"},
	{"mo", "DATE", "trunc(CAST(ts AS DATE), 'MM')"},
	{"yr", "INT", "year(ts)"},
	{"label", "STRING", "concat(substring(date_format(ts, 'yyyyMMdd'), 1, 6), '-', CAST(minute(ts) * 2 + 1 AS STRING))"},
}

// The timestamps both engines insert: a leap day's last micro, before
// 1970, a Sunday (date_trunc WEEK goes back to Monday), a year's edge.
var sparkGeneratedTimestamps = []string{
	"2024-02-29 23:59:59.999999", "1969-12-31 22:07:00", "2023-01-01 12:34:56", "2024-12-31 00:00:00.5", "2026-12-04 13:30:00",
}

// TestSparkGeneratedDatetimeColumns: on a table Spark creates with
// generated columns of hour, date_format, date_trunc, trunc, year,
// substring, concat, CAST and arithmetic, partitioned by one, Spark and we
// insert the same timestamps; every generated value of ours equals
// Spark's for the same timestamp, Spark finds none of our rows differing
// from its own expressions (also after our MERGE and UPDATE changed ts),
// and a predicate on ts skips partitions when we read the table.
func TestSparkGeneratedDatetimeColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "gen")
	var sparkValues, ours []string
	cols, wrong := generatedDDL(sparkGeneratedDatetime)
	for i, ts := range sparkGeneratedTimestamps {
		sparkValues = append(sparkValues, fmt.Sprintf("(TIMESTAMP '%s', %d)", ts, i))
		ours = append(ours, fmt.Sprintf(`{"ts":"%sZ","v":%d}`, strings.Replace(ts, " ", "T", 1), 100+i))
	}
	s := peers.Spark(t)
	s.Run(t,
		sparkSQL(dir, "CREATE TABLE {table} (ts TIMESTAMP, v INT, "+strings.Join(cols, ", ")+") USING delta PARTITIONED BY (ym)", false),
		sparkSQL(dir, "INSERT INTO {table} (ts, v) VALUES "+strings.Join(sparkValues, ", "), false),
	)
	mustWrite(t, dir, jsonSource(t, []arrow.Field{fTS, fV}, "["+strings.Join(ours, ",")+"]"), deltalite.WriteOptions{Mode: deltalite.ModeAppend})

	sameGeneratedPerTimestamp(t, dir, len(sparkGeneratedTimestamps))

	// Our MERGE and UPDATE change ts: the columns are computed again.
	tb := openT(t, dir)
	if _, err := tb.Merge(ctx, jsonSource(t, []arrow.Field{fTS, fV}, `[{"ts":"2025-01-05T07:08:09Z","v":100},{"ts":"2024-06-15T12:00:00Z","v":200}]`),
		deltalite.MergeOptions{Predicate: "t.v = s.v", MergeType: "upsert"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "v = 101", Set: map[string]string{"ts": "TIMESTAMP '2024-07-01 05:00:00'"}}); err != nil {
		t.Fatal(err)
	}
	// A given value other than the expression's is refused, naming it.
	refusedUnchanged(t, dir, "a wrong generated value", "generated column h", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, []arrow.Field{fTS, fV, {Name: "h", Type: arrow.PrimitiveTypes.Int32, Nullable: true}},
			`[{"ts":"2024-03-01T10:00:00Z","v":9,"h":11}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})

	// A predicate on ts skips the ym partitions before 2024-06.
	want := 0
	for _, r := range readRows(t, dir) {
		if strings.Contains(r, "ts=2024-06") || strings.Contains(r, "ts=2024-07") || strings.Contains(r, "ts=2024-12") ||
			strings.Contains(r, "ts=2025") || strings.Contains(r, "ts=2026") {
			want++
		}
	}
	got, planned, total := scanWhere(t, dir, "ts >= TIMESTAMP '2024-06-01 00:00:00'")
	if got != want || planned >= total {
		t.Fatalf("WHERE ts >= 2024-06-01: %d rows (want %d), %d of %d files planned", got, want, planned, total)
	}

	sparkRechecksGenerated(t, s, dir, wrong)
}

// sameGeneratedPerTimestamp checks that the rows of the table at dir
// sharing a timestamp ts (one Spark inserted, one we did: n timestamps)
// have the same generated values (every column but ts and v).
func sameGeneratedPerTimestamp(t *testing.T, dir string, n int) {
	t.Helper()
	byTS := map[string][]string{}
	for _, r := range readRows(t, dir) {
		var ts, rest []string
		for _, f := range strings.Split(r, ", ") {
			switch {
			case strings.HasPrefix(f, "ts="):
				ts = append(ts, f)
			case !strings.HasPrefix(f, "v="):
				rest = append(rest, f)
			}
		}
		byTS[strings.Join(ts, "")] = append(byTS[strings.Join(ts, "")], strings.Join(rest, ", "))
	}
	if len(byTS) != n {
		t.Fatalf("%d distinct timestamps read, want %d: %v", len(byTS), n, byTS)
	}
	for ts, rows := range byTS {
		if len(rows) != 2 || rows[0] != rows[1] {
			t.Errorf("%s: generated values differ between Spark's row and ours:\n%s", ts, strings.Join(rows, "\n"))
		}
	}
}

// sparkRechecksGenerated has Spark count the rows of the table at dir
// where any of wrong (col IS DISTINCT FROM its expression) holds, which
// must be none, and read the rows we read.
func sparkRechecksGenerated(t *testing.T, s *peers.SparkSession, dir string, wrong []string) {
	t.Helper()
	res := s.Run(t,
		sparkSQL(dir, "SELECT count(*) AS wrong FROM {table} WHERE "+strings.Join(wrong, " OR "), true),
		peers.ReadOp(dir, peers.ReadOptions{}),
	)
	if got := res[0].Table(t).Lines(t); len(got) != 1 || got[0] != "wrong=0" {
		t.Fatalf("Spark finds rows whose generated columns are not its expressions: %v", got)
	}
	arrowrows.Diff(t, res[1].Table(t).Lines(t), sortedCopy(readRows(t, dir)))
}

// scanWhere reads the table at dir with a predicate: the rows it returns,
// the files it planned and the table's files.
func scanWhere(t *testing.T, dir, where string) (rows, planned, total int) {
	t.Helper()
	snap := openT(t, dir).Snapshot()
	tasks, err := scan.New(snap, scan.WithWhere(where)).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(scannedV(t, scan.New(snap, scan.WithWhere(where)))), len(tasks), len(snap.Files())
}

// sparkGeneratedParsing are generated columns of the functions that
// parse, format epoch seconds, add, subtract and build dates, on a table
// Spark creates (ts TIMESTAMP, v INT, s STRING, sec BIGINT, ...).
var sparkGeneratedParsing = []struct{ col, typ, expr string }{
	{"fu", "STRING", "from_unixtime(sec, 'yyyy-MM-dd HH:mm')"},
	{"ut", "BIGINT", "unix_timestamp(s, 'yyyy/MM/dd HH:mm:ss')"},
	{"uts", "BIGINT", "unix_timestamp(ts)"},
	{"tt", "TIMESTAMP", "to_timestamp(s, 'yyyy/MM/dd HH:mm:ss')"},
	{"td", "DATE", "to_date(s, 'yyyy/MM/dd HH:mm:ss')"},
	{"mb", "DOUBLE", "months_between(ts, TIMESTAMP '2024-01-31 12:00:00')"},
	{"ta", "TIMESTAMP", "timestampadd(MONTH, 1, ts)"},
	{"tdf", "BIGINT", "timestampdiff(HOUR, TIMESTAMP '2024-01-01 00:00:00', ts)"},
	{"da", "TIMESTAMP", "dateadd(MINUTE, -90, ts)"},
	{"md", "DATE", "make_date(year(ts), 1, 31)"},
	{"nd", "DATE", "next_day(CAST(ts AS DATE), 'MON')"},
	{"h5", "STRING", "md5(s)"},
	{"key", "STRING", "concat(left(sha2(s, 256), 8), '-', hex(crc32(s)))"},
	{"pm", "BIGINT", "pmod(sec, 7)"},
	{"ny", "TIMESTAMP", "from_utc_timestamp(ts, 'America/New_York')"},
	{"bucket", "INT", "pmod(hash(s, sec), 16)"},
	{"xh", "BIGINT", "xxhash64(ts, sec, s)"},
	{"rx", "STRING", `regexp_extract(s, '(\\d+)/(\\d+)', 2)`},
	{"rr", "STRING", `regexp_replace(s, '[/: ]', '-')`},
	{"rl", "BOOLEAN", "(s RLIKE '^20[0-9]{2}/')"},
	{"xs", "INT", "extract(HOUR FROM ts)"},
	{"dp", "INT", "date_part('DOY', ts)"},
	{"cv", "STRING", "conv(sec, 10, 36)"},
	{"sx", "STRING", "soundex(concat('Q', s))"},
	{"fn", "STRING", "format_number(sec / 7, 3)"},
	{"lg", "DOUBLE", "ln(sec + 2) + exp(CAST(sec AS DOUBLE) / 1e9)"},
	{"sp", "STRING", "element_at(split(s, '[/ ]'), 3)"},
	{"gj", "STRING", `get_json_object(concat('{"k":[', sec, ',"', s, '"]}'), '$.k[1]')`},
	{"pw", "DOUBLE", "pow(sec / 1e9 + 5, 2.5) + power(2, sec / 1e9)"},
	{"mt", "TIMESTAMP", "make_timestamp(year(ts), month(ts), 1, hour(ts), 30, 15.25)"},
	{"mtl", "TIMESTAMP", "make_timestamp_ltz(year(ts), 12, 31, 23, 59, 60, 'Asia/Kolkata')"},
	{"sm", "STRING", "element_at(str_to_map(s, ' ', '/'), substr(s, 1, 4))"},
}

// TestSparkGeneratedParsingColumns: on a table Spark creates with
// generated columns of from_unixtime, unix_timestamp, to_timestamp and
// to_date with a format, months_between, timestampadd, timestampdiff,
// dateadd, make_date, next_day, md5, sha2, crc32, hex, pmod,
// from_utc_timestamp, hash, xxhash64, regexp_extract, regexp_replace,
// RLIKE, split, element_at, get_json_object, extract, date_part, conv,
// soundex, format_number, ln, exp, pow, make_timestamp,
// make_timestamp_ltz and str_to_map, Spark and we insert the same source
// values and get the same generated values; after our UPDATE of the
// source columns and MERGE, Spark finds every row equal to its own
// expressions (UTC session, as this engine evaluates them).
func TestSparkGeneratedParsingColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "gen")
	s, fields, wrong := sparkGeneratedTable(t, dir, sparkGeneratedParsing)

	tb := openT(t, dir)
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "v = 101", Set: map[string]string{
		"ts": "TIMESTAMP '2024-07-31 05:00:00'", "s": "'2025/02/28 23:00:01'", "sec": "CAST(-86400 AS BIGINT)"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Merge(ctx, jsonSource(t, fields, `[{"ts":"2025-01-31T07:08:09Z","v":100,"s":"1999/12/31 00:00:00","sec":951782400},{"ts":"2024-06-15T12:00:00Z","v":200,"s":"2024/06/15 12:00:00","sec":7}]`),
		deltalite.MergeOptions{Predicate: "t.v = s.v", MergeType: "upsert"}); err != nil {
		t.Fatal(err)
	}
	// A text the pattern does not read fails the write, as Spark's ANSI
	// mode fails it, naming the column and the text.
	refusedUnchanged(t, dir, "an unparsable source", "generated column ut (unix_timestamp(s, 'yyyy/MM/dd HH:mm:ss')): cannot parse '2024-03-01' with the pattern", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, `[{"ts":"2024-03-01T10:00:00Z","v":9,"s":"2024-03-01","sec":1}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})
	sparkRechecksGenerated(t, s, dir, wrong)
}

// TestSparkRefusesInGeneratedColumns: a generated column is created here
// exactly when Spark creates it. The expressions are those Delta's Spark
// evaluates in CHECK constraints but refuses in a new generated column,
// and their allowed neighbours.
func TestSparkRefusesInGeneratedColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	root := t.TempDir()
	cases := []struct {
		expr, typ string
		refused   bool
	}{
		{"regexp_count(s, 'a')", "INT", true},
		{"regexp_extract_all(s, 'a', 0)", "ARRAY<STRING>", true},
		{"regexp_instr(s, 'a')", "INT", true},
		{"regexp_substr(s, 'a')", "STRING", true},
		{"contains(s, 'a')", "BOOLEAN", true},
		{"startswith(s, 'a')", "BOOLEAN", true},
		{"endswith(s, 'a')", "BOOLEAN", true},
		{"current_date()", "DATE", true},
		{"s ILIKE 'a%'", "BOOLEAN", true},
		{"i BETWEEN 1 AND 2", "BOOLEAN", true},
		{"nullif(i, 1)", "INT", true},
		{"decode(encode(s, 'UTF-8'), 'UTF-8')", "STRING", true},
		{"s LIKE ANY ('a%', 'b%')", "BOOLEAN", true},
		{"s NOT LIKE ALL ('a%')", "BOOLEAN", true},
		{"btrim(s, 'x')", "STRING", true},
		{"try_add(i, 1)", "INT", true},
		{"try_to_binary(s, 'hex')", "BINARY", true},
		{"trim(BOTH 'x' FROM s)", "STRING", false},
		{"position('a' IN s) + (i & 3) + bit_count(i)", "INT", false},
		{"overlay(s PLACING 'x' FROM 2)", "STRING", false},
		{"decode(i, 1, 'one', 'other')", "STRING", false},
		{"bround(i, -1) + factorial(i) + mod(i, 3) DIV 2", "BIGINT", false},
		{"elt(i, s, 'b') || typeof(i) || find_in_set('a', s)", "STRING", false},
		{"exists(split(s, ','), x -> x = 'a')", "BOOLEAN", true},
		{"aggregate(split(s, ','), 0, (acc, x) -> acc + 1)", "INT", true},
		{"transform(split(s, ','), x -> upper(x))", "ARRAY<STRING>", true},
		{"size(filter(split(s, ','), true))", "INT", true},
		{"regexp_extract(s, 'a', 0)", "STRING", false},
		{"s RLIKE 'a'", "BOOLEAN", false},
		{"s LIKE 'a%'", "BOOLEAN", false},
		{"i >= 1 AND i <= 2", "BOOLEAN", false},
		{"if(i = 1, NULL, i)", "INT", false},
		{"date_part('YEAR', d)", "INT", false},
		{"make_timestamp_ntz(2024, 1, 1, 0, 0, 0)", "TIMESTAMP_NTZ", false},
		{"encode(s, 'UTF-8')", "BINARY", false},
		{"array_size(array(i))", "INT", true},
		{"array_compact(array(i))", "ARRAY<INT>", true},
		{"array_append(array(i), 1)", "ARRAY<INT>", true},
		{"array_prepend(array(i), 1)", "ARRAY<INT>", true},
		{"element_at(array_insert(array(i), 1, 1), 1)", "INT", true},
		{"array_sort(array(i))", "ARRAY<INT>", true},
		{"sort_array(array(i))[0]", "INT", false},
		{"named_struct('a', i, 'b', array(s)).b", "ARRAY<STRING>", false},
		{"map('a', i)['a']", "INT", true},
		{"element_at(map('a', i), 'a')", "INT", false},
		// Spark stores concat(s, '') here: the variable is unset.
		{"concat(s, '${nobody}')", "STRING", true},
	}
	var ops []peers.Op
	for i, c := range cases {
		ops = append(ops, sparkSQL(filepath.Join(root, fmt.Sprintf("spark%d", i)),
			"CREATE TABLE {table} (i INT, s STRING, d DATE, g "+c.typ+" GENERATED ALWAYS AS ("+c.expr+")) USING delta", false))
	}
	res := peers.Spark(t).Try(t, ops...)
	for i, c := range cases {
		if spark := res[i].Error != ""; spark != c.refused && !strings.Contains(c.expr, "${") {
			t.Errorf("%s: Spark refused %v (%s), want %v", c.expr, spark, res[i].Error, c.refused)
		}
		var gt schema.Type = &schema.Array{Element: &schema.Primitive{Name: schema.String}, ContainsNull: true}
		if !strings.HasPrefix(c.typ, "ARRAY") {
			var err error
			if gt, err = schema.ParseTypeName(c.typ); err != nil {
				t.Fatal(err)
			}
		}
		sc := &schema.Struct{Fields: []*schema.Field{
			{Name: "i", Type: &schema.Primitive{Name: schema.Integer}, Nullable: true},
			{Name: "s", Type: &schema.Primitive{Name: schema.String}, Nullable: true},
			{Name: "d", Type: &schema.Primitive{Name: schema.Date}, Nullable: true},
			(&schema.Field{Name: "g", Type: gt, Nullable: true}).Generated(c.expr),
		}}
		dir := filepath.Join(root, fmt.Sprintf("ours%d", i))
		_, err := deltalite.Create(ctx, dir, sc, deltalite.CreateOptions{})
		switch {
		case c.refused && (!errors.Is(err, deltalite.ErrInvalidArgument) ||
			!strings.Contains(err.Error(), "cannot be used in a generated column") && !strings.Contains(err.Error(), "Spark substitutes")):
			t.Errorf("%s: created with error %v, want a refusal", c.expr, err)
		case !c.refused && err != nil:
			t.Errorf("%s: %v", c.expr, err)
		}
		if _, statErr := os.Stat(filepath.Join(dir, "_delta_log")); c.refused && statErr == nil {
			t.Errorf("%s: the refusal left a log", c.expr)
		}
	}
}

// generatedDDL is the column definitions of gens for Spark's CREATE TABLE,
// and for each the condition of a row whose value is not its expression.
func generatedDDL(gens []struct{ col, typ, expr string }) (cols, wrong []string) {
	for _, g := range gens {
		cols = append(cols, fmt.Sprintf("%s %s GENERATED ALWAYS AS (%s)", g.col, g.typ, g.expr))
		wrong = append(wrong, fmt.Sprintf("%s IS DISTINCT FROM %s", g.col, g.expr))
	}
	return cols, wrong
}
