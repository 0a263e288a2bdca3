package deltalite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// nestedRows are rows (id, s struct<a long, b string>, name) for ids
// [from, to): s.a scatters over 0-999 and s is null for every 50th id.
func nestedRows(t *testing.T, from, to int) array.RecordReader {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var rows []string
	for i := from; i < to; i++ {
		s := fmt.Sprintf(`{"a":%d,"b":"b%d"}`, i*7919%1000, i%7)
		if i%50 == 0 {
			s = "null"
		}
		rows = append(rows, fmt.Sprintf(`{"id":%d,"s":%s,"name":"n%d"}`, i, s, i))
	}
	return fromJSON(t, sc, "["+strings.Join(rows, ",")+"]")
}

// physicalPath is the path of physical names of a column of the table.
func physicalPath(t *testing.T, tb *deltalite.Table, path ...string) []string {
	t.Helper()
	fields, err := tb.DeltaSchema().FieldPath(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.PhysicalName(tb.Snapshot().ColumnMapping())
	}
	return out
}

// nestedRanges returns the [min, max] of the statistics of the column at
// the physical path in each live file, and whether every file has them.
func nestedRanges(t *testing.T, tb *deltalite.Table, phys []string) ([][2]float64, bool) {
	t.Helper()
	var out [][2]float64
	all := true
	for _, a := range tb.Snapshot().Files() {
		var st struct{ MinValues, MaxValues map[string]any }
		if err := json.Unmarshal([]byte(a.Stats), &st); err != nil {
			t.Fatal(err)
		}
		lo, hi := any(st.MinValues), any(st.MaxValues)
		for _, p := range phys {
			lo, _ = lo.(map[string]any)[p]
			hi, _ = hi.(map[string]any)[p]
			if lo == nil || hi == nil {
				break
			}
		}
		l, ok1 := lo.(float64)
		h, ok2 := hi.(float64)
		if !ok1 || !ok2 {
			all = false
			continue
		}
		out = append(out, [2]float64{l, h})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out, all
}

// TestNestedClustering: a table clustered by a nested field (s.a) records
// its physical-name path in the delta.clustering domain (column mapping's
// names with mapping on), collects statistics on it, and our OPTIMIZE
// clusters by it: one z-cube tagged ["s.a"] whose files cut s.a into
// ranges that do not overlap, with the same rows; alter --cluster-by
// changes it to another nested field; fields that cannot cluster are
// refused by name, changing nothing.
func TestNestedClustering(t *testing.T) {
	ctx := context.Background()
	for _, mapping := range []string{"none", "name"} {
		t.Run("mapping="+mapping, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "t")
			props := map[string]string{}
			if mapping != "none" {
				props[protocol.PropColumnMappingMode] = mapping
			}
			mustWrite(t, dir, nestedRows(t, 0, 100), deltalite.WriteOptions{ClusterBy: []string{"s.a"}, Properties: props})
			tb := openT(t, dir)
			sa := physicalPath(t, tb, "s", "a")
			if mapping != "none" && (sa[0] == "s" || sa[1] == "a") {
				t.Fatalf("physical path %v under column mapping", sa)
			}
			want, _ := json.Marshal(map[string]any{"clusteringColumns": [][]string{sa}, "domainName": "delta.clustering"})
			if cfg, _ := tb.Snapshot().DomainMetadata("delta.clustering"); cfg != string(want) {
				t.Fatalf("delta.clustering domain %s, want %s", cfg, want)
			}
			if cols, err := tb.Snapshot().ClusteringColumns(); err != nil || !slices.Equal(cols, []string{"s.a"}) {
				t.Fatalf("clustering columns %v, %v", cols, err)
			}
			if p := lastCommitInfo(t, dir).OperationParameters; p["clusterBy"] != `["s.a"]` {
				t.Fatalf("create's parameters %v", p)
			}
			if _, all := nestedRanges(t, tb, sa); !all {
				t.Fatal("a file without min/max statistics for s.a")
			}
			for i := 1; i < 4; i++ {
				mustWrite(t, dir, nestedRows(t, i*100, (i+1)*100), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
			}
			before := readRows(t, dir)
			st, err := openT(t, dir).Optimize(ctx, deltalite.OptimizeOptions{TargetFileSize: 1500})
			if err != nil || st.FilesRemoved.TotalFiles != 4 || st.FilesAdded.TotalFiles < 3 {
				t.Fatalf("OPTIMIZE: %s, %v", st, err)
			}
			if got := readRows(t, dir); !slices.Equal(got, before) {
				t.Fatalf("OPTIMIZE changed the rows: %s", diffRows(got, before))
			}
			if c, o := clusteredFiles(t, dir, `["s.a"]`); len(c) != st.FilesAdded.TotalFiles || len(o) != 0 {
				t.Fatalf("%d files clustered by s.a, %d others", len(c), len(o))
			}
			ranges, all := nestedRanges(t, openT(t, dir), sa)
			if !all {
				t.Fatal("a clustered file without min/max statistics for s.a")
			}
			for i := 1; i < len(ranges); i++ {
				if ranges[i][0] < ranges[i-1][1] {
					t.Errorf("clustered files overlap on s.a: %v", ranges)
					break
				}
			}
			// A second OPTIMIZE has nothing to do; Full reclusters.
			if st, err := openT(t, dir).Optimize(ctx, deltalite.OptimizeOptions{}); err != nil || st.Commits != 0 {
				t.Fatalf("second OPTIMIZE: %s, %v", st, err)
			}

			tb = openT(t, dir)
			if _, err := tb.Alter(ctx, deltalite.AlterOptions{ClusterBy: []string{"S.B", "id"}}); err != nil {
				t.Fatal(err)
			}
			want, _ = json.Marshal(map[string]any{"clusteringColumns": [][]string{physicalPath(t, tb, "s", "b"), physicalPath(t, tb, "id")}, "domainName": "delta.clustering"})
			if cfg, _ := tb.Snapshot().DomainMetadata("delta.clustering"); cfg != string(want) {
				t.Fatalf("delta.clustering domain after alter %s, want %s", cfg, want)
			}
			if st, err := openT(t, dir).Optimize(ctx, deltalite.OptimizeOptions{Full: true}); err != nil || st.FilesRemoved.TotalFiles == 0 {
				t.Fatalf("OPTIMIZE FULL by s.b, id: %s, %v", st, err)
			}
			if c, o := clusteredFiles(t, dir, `["s.b","id"]`); len(c) == 0 || len(o) != 0 {
				t.Fatalf("after OPTIMIZE FULL: %d files clustered by s.b, id, %d others", len(c), len(o))
			}
			if got := readRows(t, dir); !slices.Equal(got, before) {
				t.Fatalf("OPTIMIZE FULL changed the rows: %s", diffRows(got, before))
			}

			v := openT(t, dir).Version()
			for names, msg := range map[string]string{
				"s":       `"s": its type struct`,
				"s.nope":  `struct s has no field "nope"`,
				"id.x":    "id is not a struct",
				"t.a":     `no such column "t"`,
				"s.a,S.A": `"s.a": the column is named twice`,
			} {
				_, err := openT(t, dir).Alter(ctx, deltalite.AlterOptions{ClusterBy: strings.Split(names, ",")})
				if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), msg) {
					t.Errorf("cluster by %s: %v, want an invalid argument saying %s", names, err, msg)
				}
			}
			if got := openT(t, dir).Version(); got != v {
				t.Fatalf("refused alters committed: version %d, was %d", got, v)
			}
		})
	}
	// A nested field without statistics is refused at create.
	sc := &schema.Struct{Fields: []*schema.Field{
		{Name: "id", Type: &schema.Primitive{Name: schema.Long}, Nullable: true},
		{Name: "s", Type: &schema.Struct{Fields: []*schema.Field{{Name: "a", Type: &schema.Primitive{Name: schema.Long}, Nullable: true}}}, Nullable: true},
	}}
	_, err := deltalite.Create(ctx, filepath.Join(t.TempDir(), "u"), sc, deltalite.CreateOptions{ClusterBy: []string{"s.a"},
		Properties: map[string]string{protocol.PropDataSkippingNumIndexedCols: "1"}})
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), `"s.a": clustering columns need statistics`) {
		t.Fatalf("cluster by a nested field without statistics: %v", err)
	}
}

// TestSparkNestedClusteringInterop: Spark 4.4 clusters a table by a
// nested field (CLUSTER BY (s.a), column mapping on) and OPTIMIZEs it; we
// read its clustering columns, append, upsert, DELETE and OPTIMIZE only
// our new files into a z-cube Spark's next OPTIMIZE keeps, with Spark
// reading our rows. Both ways: a table we create clustered by s.a, write
// and OPTIMIZE shows s.a in Spark's DESCRIBE DETAIL, Spark reads our rows
// and writes and OPTIMIZEs it again (Spark merges small z-cubes by the
// same columns, ours among them, into its own); after our alter
// --cluster-by s.b Spark clusters by s.b.
func TestSparkNestedClusteringInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	sp := peers.Spark(t)
	const cols = `["s.a"]`

	theirs := filepath.Join(t.TempDir(), "theirs")
	sp.Run(t,
		sparkSQL(theirs, "CREATE TABLE {table} (id BIGINT, s STRUCT<a: BIGINT, b: STRING>, name STRING) USING delta CLUSTER BY (s.a) "+
			"TBLPROPERTIES ('delta.columnMapping.mode' = 'name')", false),
		sparkSQL(theirs, "INSERT INTO {table} SELECT id, IF(id % 50 = 0, NULL, named_struct('a', id * 7919 % 1000, 'b', concat('b', id % 7))), "+
			"concat('n', id) FROM range(0, 200)", false),
		sparkSQL(theirs, "INSERT INTO {table} SELECT id, named_struct('a', id * 7919 % 1000, 'b', concat('b', id % 7)), concat('n', id) FROM range(200, 400)", false),
		sparkSQL(theirs, "OPTIMIZE {table}", false))
	tb := openT(t, theirs)
	if c, err := tb.Snapshot().ClusteringColumns(); err != nil || !slices.Equal(c, []string{"s.a"}) {
		t.Fatalf("we read Spark's clustering columns %v, %v", c, err)
	}
	if c, o := clusteredFiles(t, theirs, cols); len(c) == 0 || len(o) != 0 {
		t.Fatalf("after Spark's OPTIMIZE: %d clustered files, %d others", len(c), len(o))
	}
	sameRowsAsSpark(t, sp, theirs, "Spark's table")
	mustWrite(t, theirs, nestedRows(t, 1000, 1100), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	st, err := openT(t, theirs).Optimize(ctx, deltalite.OptimizeOptions{})
	if err != nil || st.SkippedFiles == 0 || st.FilesRemoved.TotalFiles != 1 {
		t.Fatalf("our OPTIMIZE after an append to Spark's table: %s, %v: want the appended file clustered, Spark's z-cube kept", st, err)
	}
	if c, o := clusteredFiles(t, theirs, cols); len(c) < 2 || len(o) != 0 {
		t.Fatalf("after our OPTIMIZE: %d clustered files, %d others", len(c), len(o))
	}
	tb = openT(t, theirs)
	if _, err := tb.Upsert(ctx, nestedRows(t, 395, 405), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	mustDelete(t, tb, "id = 7", 1)
	if st, err := openT(t, theirs).Optimize(ctx, deltalite.OptimizeOptions{}); err != nil || st.FilesRemoved.TotalFiles == 0 {
		t.Fatalf("our OPTIMIZE after upsert and DELETE: %s, %v", st, err)
	}
	if c, o := clusteredFiles(t, theirs, cols); len(c) == 0 || len(o) != 0 {
		t.Fatalf("after our second OPTIMIZE: %d clustered files, %d others", len(c), len(o))
	}
	rows := readRows(t, theirs)
	if len(rows) != 400+100+5-1 {
		t.Fatalf("our rows: %d", len(rows))
	}
	sameRowsAsSpark(t, sp, theirs, "after our writes and OPTIMIZE")
	sp.Run(t,
		sparkSQL(theirs, "INSERT INTO {table} VALUES (5000, named_struct('a', 5, 'b', 'x'), 'spark')", false),
		sparkSQL(theirs, "OPTIMIZE {table}", false))
	if c, o := clusteredFiles(t, theirs, cols); len(c) == 0 || len(o) != 0 {
		t.Fatalf("after Spark's OPTIMIZE following ours: %d clustered files, %d others", len(c), len(o))
	}
	sameRowsAsSpark(t, sp, theirs, "after Spark's OPTIMIZE following ours")

	ours := filepath.Join(t.TempDir(), "ours")
	mustWrite(t, ours, nestedRows(t, 0, 200), deltalite.WriteOptions{ClusterBy: []string{"s.a"},
		Properties: map[string]string{protocol.PropColumnMappingMode: "name"}})
	mustWrite(t, ours, nestedRows(t, 200, 400), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	if st, err := openT(t, ours).Optimize(ctx, deltalite.OptimizeOptions{}); err != nil || st.FilesRemoved.TotalFiles != 2 {
		t.Fatalf("our OPTIMIZE: %s, %v", st, err)
	}
	if c := sparkClusteringColumns(t, sp, ours); !slices.Equal(c, []string{"s.a"}) {
		t.Fatalf("Spark's DESCRIBE DETAIL clusteringColumns %v", c)
	}
	sameRowsAsSpark(t, sp, ours, "our clustered table")
	if c, o := clusteredFiles(t, ours, cols); len(c) == 0 || len(o) != 0 {
		t.Fatalf("after our OPTIMIZE: %d clustered files, %d others", len(c), len(o))
	}
	sp.Run(t,
		sparkSQL(ours, "INSERT INTO {table} VALUES (5000, named_struct('a', 5, 'b', 'x'), 'spark')", false),
		sparkSQL(ours, "UPDATE {table} SET name = 'N9' WHERE id = 9", false),
		sparkSQL(ours, "OPTIMIZE {table}", false))
	if c, o := clusteredFiles(t, ours, cols); len(c) == 0 || len(o) != 0 {
		t.Fatalf("after Spark's OPTIMIZE: %d clustered files, %d others", len(c), len(o))
	}
	sameRowsAsSpark(t, sp, ours, "after Spark's writes and OPTIMIZE")
	if rows := readRows(t, ours); len(rows) != 401 {
		t.Fatalf("rows after Spark's writes: %d", len(rows))
	}
	if _, err := openT(t, ours).Alter(ctx, deltalite.AlterOptions{ClusterBy: []string{"s.b"}}); err != nil {
		t.Fatal(err)
	}
	if c := sparkClusteringColumns(t, sp, ours); !slices.Equal(c, []string{"s.b"}) {
		t.Fatalf("Spark's DESCRIBE DETAIL clusteringColumns after our alter: %v", c)
	}
	sp.Run(t,
		sparkSQL(ours, "INSERT INTO {table} VALUES (5001, named_struct('a', 6, 'b', 'y'), 'after alter')", false),
		sparkSQL(ours, "OPTIMIZE {table}", false))
	if c, _ := clusteredFiles(t, ours, `["s.b"]`); len(c) == 0 {
		t.Fatal("Spark's OPTIMIZE after our alter wrote no file clustered by s.b")
	}
	sameRowsAsSpark(t, sp, ours, "after our alter and Spark's OPTIMIZE")
}
