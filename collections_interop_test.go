package deltalite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sparkGeneratedCollections are generated columns of array, map and
// struct functions on a table Spark creates (id INT, a ARRAY<INT>, s
// STRING, ...), of array and struct types.
var sparkGeneratedCollections = []struct{ col, typ, expr string }{
	{"u", "ARRAY<INT>", "array_union(array_distinct(a), array(id))"},
	{"j", "STRING", "array_join(sort_array(a, false), '-', 'N')"},
	{"mx", "INT", "array_max(concat(a, array(id)))"},
	{"st", "STRUCT<k: INT, v: ARRAY<STRING>>", "named_struct('k', id, 'v', array_remove(array(s, 'x'), 'p'))"},
	{"sl", "ARRAY<INT>", "slice(concat(array(id), a), 1, 2)"},
	{"e", "ARRAY<STRUCT<key: STRING, value: INT>>", "map_entries(map('id', id, coalesce(s, 'none'), size(a)))"},
	{"g0", "INT", "concat(array(id), a)[0]"},
	{"mm", "MAP<STRING, INT>", "map_from_arrays(array('id', coalesce(s, 'none')), array(id, size(a)))"},
	{"f", "ARRAY<BIGINT>", "flatten(array(sequence(1L, CAST(id AS BIGINT) % 4 + 1), array(array_position(a, 3))))"},
}

// TestSparkGeneratedCollectionColumns: on a table Spark creates with
// generated columns of array, map and struct functions and a CHECK
// constraint of them, our writes, UPDATE and MERGE compute the values
// Spark computes (rows Spark inserted beside ours agree), a row Spark's
// ANSI mode fails (a duplicate map key) or the constraint refuses fails
// the write and changes nothing, and Spark finds every row's columns equal
// to their expressions.
func TestSparkGeneratedCollectionColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "coll")
	cols, wrong := generatedDDL(sparkGeneratedCollections)
	for i, w := range wrong {
		if strings.HasPrefix(w, "mm ") { // Spark compares no maps: their entries
			wrong[i] = "map_entries(mm) IS DISTINCT FROM map_entries(" + strings.TrimPrefix(w, "mm IS DISTINCT FROM ") + ")"
		}
	}
	rows := []struct{ spark, ours string }{
		{`(1, array(3, 1, NULL, 3), 'p')`, `{"id":1,"a":[3,1,null,3],"s":"p"}`},
		{`(2, array(), NULL)`, `{"id":2,"a":[],"s":null}`},
		{`(3, CAST(NULL AS ARRAY<INT>), 'q')`, `{"id":3,"a":null,"s":"q"}`},
		{`(4, array(-7, 5), '')`, `{"id":4,"a":[-7,5],"s":""}`},
	}
	var sparkRows, ours []string
	for _, r := range rows {
		sparkRows, ours = append(sparkRows, r.spark), append(ours, r.ours)
	}
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}
	s := peers.Spark(t)
	s.Run(t,
		sparkSQL(dir, "CREATE TABLE {table} (id INT, a ARRAY<INT>, s STRING, "+strings.Join(cols, ", ")+") USING delta", false),
		sparkSQL(dir, "ALTER TABLE {table} ADD CONSTRAINT nozero CHECK (coalesce(array_position(a, 0), 0) = 0 AND coalesce(size(u), 1) > 0)", false),
		sparkSQL(dir, "INSERT INTO {table} (id, a, s) VALUES "+strings.Join(sparkRows, ", "), false),
	)
	mustWrite(t, dir, jsonSource(t, fields, "["+strings.Join(ours, ",")+"]"), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	got := readRows(t, dir)
	if len(got) != 2*len(rows) {
		t.Fatalf("%d rows, want %d: %v", len(got), 2*len(rows), got)
	}
	for i := 0; i < len(got); i += 2 {
		if got[i] != got[i+1] {
			t.Errorf("Spark's row and ours differ:\n%s\n%s", got[i], got[i+1])
		}
	}

	tb := openT(t, dir)
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = 2", Set: map[string]string{"a": "array(9, 3, 9)", "s": "'r'"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Merge(ctx, jsonSource(t, fields, `[{"id":4,"a":[1,2,3,4,5],"s":"m"},{"id":5,"a":[null],"s":"n"}]`),
		deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: "upsert"}); err != nil {
		t.Fatal(err)
	}
	refusedUnchanged(t, dir, "a duplicate map key", "duplicate map key id", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, `[{"id":6,"a":[1],"s":"id"}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})
	mapField := arrow.Field{Name: "mm", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true}
	refusedUnchanged(t, dir, "a given map", "a row may not give it", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, append(fields, mapField), `[{"id":8,"a":[1],"s":"y","mm":[{"key":"id","value":8},{"key":"y","value":1}]}]`),
			deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})
	refusedUnchanged(t, dir, "a row the constraint refuses", "nozero", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, `[{"id":7,"a":[1,0],"s":"z"}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})
	sparkRechecksGenerated(t, s, dir, wrong)
}
