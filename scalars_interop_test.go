package deltalite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sparkGeneratedScalars are generated columns of the bitwise operators,
// DIV, the scalar functions and Spark's SQL syntax forms (Delta allows no
// try_ function, LIKE ANY or btrim in a generated column: they are in
// CHECK constraints), on a table Spark creates (ts TIMESTAMP, v INT, s
// STRING, sec BIGINT, ...); they read v only as pmod(v, 100), which is
// the same for Spark's row (v = i) and ours (v = 100 + i).
var sparkGeneratedScalars = []struct{ col, typ, expr string }{
	{"bw", "BIGINT", "(sec & 255) | (sec ^ 7) & ~pmod(v, 100)"},
	{"bc", "INT", "bit_count(sec) + bit_count(pmod(v, 100) > 1)"},
	{"dv", "BIGINT", "sec DIV 1000 + mod(sec, 7)"},
	{"br", "DOUBLE", "bround(sec / 7, 2) + negative(pi() * e())"},
	{"fa", "BIGINT", "factorial(CAST(pmod(sec, 23) AS INT))"},
	{"el", "STRING", "elt(CAST(pmod(sec, 3) AS INT) + 1, s, typeof(sec), 'x')"},
	{"fs", "INT", "find_in_set(substr(s, 6, 2), '01,02,03,12')"},
	{"tl", "STRING", "trim(LEADING '20' FROM s)"},
	{"ps", "INT", "position('/' IN substr(s, 6))"},
	{"ov", "STRING", "overlay(s PLACING '-' FROM 5 FOR 1)"},
	{"dc", "STRING", "decode(pmod(sec, 3), 0, 'zero', 1, 'one', 'many')"},
}

// TestSparkGeneratedScalarColumns: on a table Spark creates with the
// generated columns above and CHECK constraints of LIKE ANY, NOT LIKE ALL,
// btrim (which Delta does not allow in a generated column), assert_true and the
// try_ functions, Spark and we insert the same source values and get the
// same generated values; after our UPDATE and upsert Spark finds every
// row equal to its own expressions; a row the constraint's assert_true
// refuses fails our write with Spark's message and changes nothing.
func TestSparkGeneratedScalarColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "scalars")
	s, fields, wrong := sparkGeneratedTable(t, dir, sparkGeneratedScalars,
		"ALTER TABLE {table} ADD CONSTRAINT shaped CHECK (s NOT LIKE ALL ('x%', '%y') AND s LIKE ANY ('19%', '20%') AND btrim(s, '0123') != '' AND assert_true(v >= 0, 'v must not be negative') IS NULL)",
		"ALTER TABLE {table} ADD CONSTRAINT tries CHECK (coalesce(try_add(pmod(v, 100), 2147483645), 0) >= 0 AND "+
			"coalesce(try_multiply(sec, 4611686018427387904), 0) <= 0 AND try_to_binary(substr(s, 1, 4), 'hex') IS NOT NULL AND "+
			"coalesce(try_divide(sec, pmod(sec, 2)), 0) >= -1)")

	tb := openT(t, dir)
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "v = 101", Set: map[string]string{
		"s": "'2025/02/28 23:00:01'", "sec": "sec * -3 | 1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Upsert(ctx, jsonSource(t, fields, `[{"ts":"2024-06-15T12:00:00Z","v":102,"s":"2012/06/15 12:00:00","sec":9223372036854775807}]`),
		deltalite.UpsertOptions{PrimaryKeys: []string{"v"}}); err != nil {
		t.Fatal(err)
	}
	refusedUnchanged(t, dir, "a row assert_true refuses", "[USER_RAISED_EXCEPTION] v must not be negative", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, `[{"ts":"2024-03-01T10:00:00Z","v":-9,"s":"2024","sec":1}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})
	sparkRechecksGenerated(t, s, dir, wrong)
}

// sparkGeneratedTable has Spark create the table at dir (ts TIMESTAMP, v
// INT, s STRING, sec BIGINT and the generated columns gens), run the
// statements then (constraints), and insert a row per timestamp of
// sparkGeneratedTimestamps (v = i); we append the same source values (v =
// 100 + i), and the generated values of the two rows of each timestamp
// must agree. It returns the session, the source fields and the
// predicates of a row differing from its expressions.
func sparkGeneratedTable(t *testing.T, dir string, gens []struct{ col, typ, expr string }, then ...string) (*peers.SparkSession, []arrow.Field, []string) {
	t.Helper()
	var theirs, ours []string
	cols, wrong := generatedDDL(gens)
	secs := []int64{1709287445, -1, 0, 4102444800, 86399}
	for i, ts := range sparkGeneratedTimestamps {
		text := strings.ReplaceAll(ts[:19], "-", "/")
		theirs = append(theirs, fmt.Sprintf("(TIMESTAMP '%s', %d, '%s', %d)", ts, i, text, secs[i]))
		ours = append(ours, fmt.Sprintf(`{"ts":"%sZ","v":%d,"s":%q,"sec":%d}`, strings.Replace(ts, " ", "T", 1), 100+i, text, secs[i]))
	}
	ops := []peers.Op{sparkSQL(dir, "CREATE TABLE {table} (ts TIMESTAMP, v INT, s STRING, sec BIGINT, "+strings.Join(cols, ", ")+") USING delta", false)}
	for _, sql := range then {
		ops = append(ops, sparkSQL(dir, sql, false))
	}
	s := peers.Spark(t)
	s.Run(t, append(ops, sparkSQL(dir, "INSERT INTO {table} (ts, v, s, sec) VALUES "+strings.Join(theirs, ", "), false))...)
	fields := []arrow.Field{fTS, fV, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, fI64("sec")}
	mustWrite(t, dir, jsonSource(t, fields, "["+strings.Join(ours, ",")+"]"), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	sameGeneratedPerTimestamp(t, dir, len(sparkGeneratedTimestamps))
	return s, fields, wrong
}
