package sparkdelta

import (
	"context"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/write"
)

func TestWriteStatement(t *testing.T) {
	for _, tc := range []struct {
		name   string
		exists bool
		o      WriteOptions
		want   string
	}{
		{"create", false, WriteOptions{Mode: write.ModeAppend, PartitionBy: []string{"p`q"}, Properties: map[string]string{"delta.appendOnly": "false", "a'b": "c"}},
			"CREATE TABLE delta.`/t` USING delta PARTITIONED BY (`p``q`) TBLPROPERTIES ('a\\'b' = 'c', 'delta.appendOnly' = 'false') AS SELECT * FROM `v`"},
		{"create ignores replaceWhere", false, WriteOptions{Mode: write.ModeOverwrite, ReplaceWhere: "p = '1'"},
			"CREATE TABLE delta.`/t` USING delta AS SELECT * FROM `v`"},
		{"append", true, WriteOptions{Mode: write.ModeAppend},
			"INSERT INTO delta.`/t` BY NAME SELECT * FROM `v`"},
		{"append merge", true, WriteOptions{Mode: write.ModeAppend, SchemaMode: write.SchemaMerge},
			"INSERT WITH SCHEMA EVOLUTION INTO delta.`/t` BY NAME SELECT * FROM `v`"},
		{"replace where", true, WriteOptions{Mode: write.ModeOverwrite, ReplaceWhere: "p = '1'"},
			"INSERT INTO delta.`/t` BY NAME REPLACE WHERE p = '1' SELECT * FROM `v`"},
		{"overwrite", true, WriteOptions{Mode: write.ModeOverwrite},
			"INSERT OVERWRITE delta.`/t` BY NAME SELECT * FROM `v`"},
		{"overwrite schema", true, WriteOptions{Mode: write.ModeOverwrite, SchemaMode: write.SchemaOverwrite, PartitionBy: []string{"p"}},
			"CREATE OR REPLACE TABLE delta.`/t` USING delta PARTITIONED BY (`p`) AS SELECT * FROM `v`"},
	} {
		if got := writeStatement("/t", "v", tc.exists, tc.o.Mode, tc.o); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestCheckModeRefusesOtherModes(t *testing.T) {
	if m, err := checkMode(""); err != nil || m != write.ModeError {
		t.Fatalf("empty mode: %v, %v; want error mode", m, err)
	}
	for _, m := range []write.Mode{"merge", write.ModeCreateOrReplace} {
		_, err := checkMode(m)
		if err == nil || !strings.Contains(err.Error(), "Spark does not support the write mode "+string(m)) {
			t.Errorf("mode %s: %v", m, err)
		}
	}
}

func TestMergeStatement(t *testing.T) {
	spec := merge.Options{Predicate: "t.id = s.id AND t.p = '1'", SchemaMode: "merge", Clauses: []merge.Clause{
		{When: merge.NotMatchedBySource, Action: merge.Delete, Predicate: "t.p = '1'"},
		{When: merge.NotMatched, Action: merge.InsertAll, Except: []string{"Secret"}},
		{When: merge.Matched, Action: merge.Delete, Predicate: "s.gone"},
		{When: merge.Matched, Action: merge.UpdateAll, Except: []string{"id", "secret"}},
		{When: merge.Matched, Action: merge.Update, Set: map[string]string{"v": "s.v + 1"}},
	}}
	clauses, err := spec.Plan()
	if err != nil {
		t.Fatal(err)
	}
	got := mergeStatement("/t", "v", spec, clauses, []string{"id", "v", "secret"})
	want := "MERGE WITH SCHEMA EVOLUTION INTO delta.`/t` AS `t` USING `v` AS `s` ON t.id = s.id AND t.p = '1'" +
		" WHEN MATCHED AND (s.gone) THEN DELETE" +
		" WHEN MATCHED THEN UPDATE SET `v` = `s`.`v`" +
		" WHEN MATCHED THEN UPDATE SET `v` = s.v + 1" +
		" WHEN NOT MATCHED THEN INSERT (`id`, `v`) VALUES (`s`.`id`, `s`.`v`)" +
		" WHEN NOT MATCHED BY SOURCE AND (t.p = '1') THEN DELETE"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	up, _ := merge.Options{Predicate: "t.id = s.id", MergeType: merge.TypeUpsert}.Plan()
	got = mergeStatement("/t", "v", merge.Options{Predicate: "t.id = s.id"}, up, nil)
	want = "MERGE INTO delta.`/t` AS `t` USING `v` AS `s` ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
	if got != want {
		t.Errorf("upsert:\n got %s\nwant %s", got, want)
	}
}

// Bad options are refused before anything reaches Spark (the session is nil).
func TestOptionsCheckedFirst(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		o    WriteOptions
		want string
	}{
		{WriteOptions{Mode: write.ModeAppend, SchemaMode: write.SchemaOverwrite}, "schema mode overwrite needs mode overwrite"},
		{WriteOptions{Mode: write.ModeOverwrite, SchemaMode: write.SchemaOverwrite, ReplaceWhere: "p = 1"}, "cannot be limited by a replace-where predicate"},
		{WriteOptions{Mode: write.ModeAppend, ReplaceWhere: "p = 1"}, "a replace-where predicate needs mode overwrite"},
		{WriteOptions{Mode: write.ModeAppend, SchemaMode: "evolve"}, `unknown schema mode "evolve"`},
		{WriteOptions{Mode: "upsert"}, "Spark does not support the write mode upsert"},
	} {
		_, err := Write(ctx, nil, nil, "/t", tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
	v := int64(1)
	if _, err := Read(ctx, nil, "/t", ReadOptions{Version: &v, Timestamp: "2026-01-01"}); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("version and timestamp: %v", err)
	}
	if _, err := Merge(ctx, nil, nil, "/t", MergeOptions{Spec: merge.Options{MergeType: merge.TypeUpsert}}); err == nil || !strings.Contains(err.Error(), "ON predicate") {
		t.Errorf("merge without a predicate: %v", err)
	}
}
