package deltalite_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// peopleSpec is people's rows as a peer write step's data.
func peopleSpec(ids []int64, names, days []string) map[string]any {
	rows := make([]map[string]any, len(ids))
	for i := range ids {
		rows[i] = map[string]any{"id": ids[i], "name": names[i], "day": days[i]}
	}
	return map[string]any{
		"schema": []map[string]any{{"name": "id", "type": "long"}, {"name": "name", "type": "string"}, {"name": "day", "type": "string"}},
		"rows":   rows,
	}
}

// TestSparkWritesTablesWithOurFeatureProperties: for every property that
// adds a table feature this engine honours, Spark 4 reads the table we
// created and appends to it, and we read and append after Spark.
func TestSparkWritesTablesWithOurFeatureProperties(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	s := peers.Spark(t)
	cases := map[string]map[string]string{
		"append-only":    {"delta.appendOnly": "true"},
		"cdf":            {"delta.enableChangeDataFeed": "true"},
		"dv":             {"delta.enableDeletionVectors": "true"},
		"ict":            {"delta.enableInCommitTimestamps": "true"},
		"type-widening":  {"delta.enableTypeWidening": "true"},
		"v2-checkpoint":  {"delta.checkpointPolicy": "v2", "delta.checkpointInterval": "2"},
		"column-mapping": {"delta.columnMapping.mode": "name"},
		"feature-dv":     {"delta.feature.deletionVectors": "supported"},
		"settings": {"delta.isolationLevel": "Serializable", "delta.logRetentionDuration": "interval 60 days",
			"delta.dataSkippingNumIndexedCols": "2", "Delta.EnableExpiredLogCleanup": "false"},
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range cases {
			if !yield(n) {
				return
			}
		}
	})
	dir := t.TempDir()
	var sparkOps []peers.Op
	for _, n := range names {
		p := filepath.Join(dir, n)
		mustWrite(t, p, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"}),
			deltalite.WriteOptions{PartitionBy: []string{"day"}, Properties: cases[n]})
		sparkOps = append(sparkOps, peers.Op(withData(step("write", "path", p, "mode", "append"), peopleSpec([]int64{3}, []string{"s"}, []string{"d1"}))))
	}
	s.Run(t, sparkOps...)
	for _, n := range names {
		p := filepath.Join(dir, n)
		mustWrite(t, p, people(t, []int64{4}, []string{"o"}, []string{"d3"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	}
	reads := make([]peers.Op, len(names))
	for i, n := range names {
		reads[i] = peers.ReadOp(filepath.Join(dir, n), peers.ReadOptions{})
	}
	want := sortedCopy([]string{row(1, "a", "d1"), row(2, "b", "d2"), row(3, "s", "d1"), row(4, "o", "d3")})
	for i, r := range s.Run(t, reads...) {
		if d := diffRows(r.Table(t).Lines(t), want); d != "" {
			t.Errorf("Spark reads %s: %s", names[i], d)
		}
		if d := diffRows(readRows(t, filepath.Join(dir, names[i])), want); d != "" {
			t.Errorf("we read %s after Spark: %s", names[i], d)
		}
	}
}

// TestSparkTableChangesAfterOurCDFWrites: on a change-data-feed table,
// Spark's table_changes after the writes this engine allows (appends,
// whole-file replace-where by partition and by statistics, one that keeps
// part of a file, a full overwrite) shows exactly the rows each commit
// changed.
func TestSparkTableChangesAfterOurCDFWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	s := peers.Spark(t)
	p := filepath.Join(t.TempDir(), "cdf")
	mustWrite(t, p, people(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, []string{"d1", "d1", "d2"}),
		deltalite.WriteOptions{PartitionBy: []string{"day"}, Properties: map[string]string{"delta.enableChangeDataFeed": "true"}}) // v0
	mustWrite(t, p, people(t, []int64{4}, []string{"d"}, []string{"d2"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend}) // v1
	mustWrite(t, p, people(t, []int64{5}, []string{"e"}, []string{"d1"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = 'd1'"}) // v2
	mustWrite(t, p, people(t, []int64{4}, []string{"g"}, []string{"d2"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "id >= 3 AND id <= 4"}) // v3
	mustWrite(t, p, people(t, []int64{6, 7}, []string{"f", "h"}, []string{"d1", "d1"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend}) // v4
	mustWrite(t, p, people(t, []int64{6}, []string{"x"}, []string{"d1"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "id = 6"}) // v5, keeping id 7 of its file
	mustWrite(t, p, people(t, []int64{8}, []string{"i"}, []string{"d3"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite}) // v6

	change := func(v int, kind string, id int64, name, day string) string {
		return fmt.Sprintf(`_change_type="%s", _commit_version=%d, `, kind, v) + row(id, name, day)
	}
	want := sortedCopy([]string{
		change(0, "insert", 1, "a", "d1"), change(0, "insert", 2, "b", "d1"), change(0, "insert", 3, "c", "d2"),
		change(1, "insert", 4, "d", "d2"),
		change(2, "delete", 1, "a", "d1"), change(2, "delete", 2, "b", "d1"), change(2, "insert", 5, "e", "d1"),
		change(3, "delete", 3, "c", "d2"), change(3, "delete", 4, "d", "d2"), change(3, "insert", 4, "g", "d2"),
		change(4, "insert", 6, "f", "d1"), change(4, "insert", 7, "h", "d1"),
		change(5, "delete", 6, "f", "d1"), change(5, "insert", 6, "x", "d1"),
		change(6, "delete", 5, "e", "d1"), change(6, "delete", 4, "g", "d2"), change(6, "delete", 6, "x", "d1"),
		change(6, "delete", 7, "h", "d1"), change(6, "insert", 8, "i", "d3"),
	})
	q := "SELECT id, name, day, _change_type, _commit_version FROM table_changes_by_path('" + strings.ReplaceAll(p, "'", "\\'") + "', 0)"
	got := s.Run(t, peers.Op(step("sql", "sql", q)))[0].Table(t).Lines(t)
	if d := diffRows(got, want); d != "" {
		t.Errorf("table_changes: %s\ngot:\n%s", d, strings.Join(got, "\n"))
	}
}

// TestWeWriteTablesSparkWidened: with type widening on, Spark widens a
// column of a table we created (int to bigint, recorded in the schema's
// delta.typeChanges); we append wide values after it and read the old
// narrow files and the new ones, as Spark does.
func TestWeWriteTablesSparkWidened(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	s := peers.Spark(t)
	p := filepath.Join(t.TempDir(), "widened")
	narrow := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "day", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	mustWrite(t, p, fromJSON(t, narrow, `[{"v": 1, "day": "d1"}, {"v": 2147483647, "day": "d2"}]`),
		deltalite.WriteOptions{PartitionBy: []string{"day"}, Properties: map[string]string{"delta.enableTypeWidening": "true"}})
	s.Run(t,
		peers.Op(step("sql", "path", p, "sql", "ALTER TABLE {table} CHANGE COLUMN v TYPE BIGINT", "collect", false)),
		peers.Op(step("sql", "path", p, "sql", "INSERT INTO {table} (v, day) VALUES (5000000000, 'd1')", "collect", false)))
	wide := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "day", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	mustWrite(t, p, fromJSON(t, wide, `[{"v": 6000000000, "day": "d3"}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	tb, err := deltalite.Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if f := tb.DeltaSchema().Field("v"); f.Type.String() != "long" || f.Metadata["delta.typeChanges"] == nil {
		t.Fatalf("widened column after our append: %s %v", f.Type, f.Metadata)
	}
	want := []string{`day="d1", v=1`, `day="d1", v=5000000000`, `day="d2", v=2147483647`, `day="d3", v=6000000000`}
	if d := diffRows(readRows(t, p), want); d != "" {
		t.Errorf("we read: %s", d)
	}
	if d := diffRows(s.Read(t, p, peers.ReadOptions{}).Lines(t), want); d != "" {
		t.Errorf("Spark reads: %s", d)
	}
}

// TestSparkRetentionPropertiesAgree: a table whose delta.logRetentionDuration
// is shorter than its delta.deletedFileRetentionDuration (given or
// default) is refused or accepted as Spark 4 refuses or accepts it, and a
// refusal names both properties with their values (defaults too) and what
// to do.
func TestSparkRetentionPropertiesAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	s := peers.Spark(t)
	cases := []map[string]string{
		{"delta.logRetentionDuration": "interval 2 days"},
		{"delta.deletedFileRetentionDuration": "interval 60 days"},
		{"delta.logRetentionDuration": "interval 2 days", "delta.deletedFileRetentionDuration": "interval 1 day"},
		{"delta.logRetentionDuration": "interval 3 days", "delta.deletedFileRetentionDuration": "interval 4 days"},
		{"delta.logRetentionDuration": "interval 60 days"},
	}
	dir := t.TempDir()
	ops := make([]peers.Op, len(cases))
	for i, props := range cases {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(props)) {
			kv = append(kv, fmt.Sprintf("'%s' = '%s'", k, props[k]))
		}
		ops[i] = peers.Op(step("sql", "path", filepath.Join(dir, fmt.Sprintf("spark%d", i)), "collect", false,
			"sql", "CREATE TABLE {table} (id BIGINT, name STRING, day STRING) USING delta TBLPROPERTIES ("+strings.Join(kv, ", ")+")"))
	}
	for i, r := range s.Try(t, ops...) {
		_, err := deltalite.Write(context.Background(), filepath.Join(dir, fmt.Sprintf("ours%d", i)),
			people(t, []int64{1}, []string{"a"}, []string{"d1"}), deltalite.WriteOptions{Properties: cases[i]})
		switch {
		case r.OK && err != nil:
			t.Errorf("%v: Spark accepts, we refuse: %v", cases[i], err)
		case !r.OK && err == nil:
			t.Errorf("%v: Spark refuses (%s), we accept", cases[i], r.Error)
		case err != nil:
			t.Logf("%v: Spark refuses (%s); so do we: %v", cases[i], r.Error, err)
			for _, want := range []string{"delta.logRetentionDuration (interval", "delta.deletedFileRetentionDuration (interval", "to at least interval", "to at most interval"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%v: our refusal %q does not say %q", cases[i], err, want)
				}
			}
			if strings.Contains(err.Error(), "()") {
				t.Errorf("%v: our refusal prints an empty value: %v", cases[i], err)
			}
		}
	}
}
