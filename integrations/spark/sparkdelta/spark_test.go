package sparkdelta_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/integrations/spark/internal/sparktest"
	"github.com/deltalite-go/deltalite/integrations/spark/sparkdelta"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/write"
)

func TestMain(m *testing.M) { os.Exit(sparktest.Main(m)) }

// row is one row of the test tables: id, partition p, value v.
type row struct {
	id   int64
	p, v string
}

func rowsTable(rows ...row) arrow.Table {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "p", Type: arrow.BinaryTypes.String},
		{Name: "v", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		b.Field(1).(*array.StringBuilder).Append(r.p)
		b.Field(2).(*array.StringBuilder).Append(r.v)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

func frame(t *testing.T, s sql.SparkSession, rows ...row) sql.DataFrame {
	t.Helper()
	tbl := rowsTable(rows...)
	defer tbl.Release()
	df, err := s.CreateDataFrameFromArrow(context.Background(), tbl)
	if err != nil {
		t.Fatal(err)
	}
	return df
}

// scanned is the table at uri as deltalite reads it, canonical rows.
func scanned(t *testing.T, uri string) (*deltalite.Table, []string) {
	t.Helper()
	ctx := context.Background()
	tbl, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := tbl.Scan().RecordReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var recs []arrow.RecordBatch
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		defer rec.Release()
		recs = append(recs, rec)
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return tbl, arrowrows.Rows(recs...)
}

// sparkRows executes df and returns its canonical rows.
func sparkRows(t *testing.T, df sql.DataFrame) []string {
	t.Helper()
	tbl, err := df.ToArrow(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer (*tbl).Release()
	return arrowrows.TableRows(*tbl)
}

// filesOf lists the data files of partition p=value.
func filesOf(tbl *deltalite.Table, value string) []string {
	var out []string
	for _, f := range tbl.Snapshot().Files() {
		if f.PartitionValues["p"] == value {
			out = append(out, f.Path)
		}
	}
	slices.Sort(out)
	return out
}

// TestSparkWritesDeltaliteReads writes from Go through Spark with every
// mode and schema mode, and reads each result with deltalite's scan.
func TestSparkWritesDeltaliteReads(t *testing.T) {
	s := sparktest.Session(t)
	ctx := context.Background()
	uri := filepath.Join(t.TempDir(), "t")

	res, err := sparkdelta.Write(ctx, s, frame(t, s, row{1, "a", "x"}, row{2, "a", "y"}, row{3, "b", "z"}), uri,
		sparkdelta.WriteOptions{PartitionBy: []string{"p"}, Properties: map[string]string{"delta.appendOnly": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := res.NumOutputRows(); res.Version != 0 || !ok || n != 3 {
		t.Errorf("create: version %d, %d rows written (%v); want version 0, 3 rows", res.Version, n, ok)
	}
	tbl, got := scanned(t, uri)
	arrowrows.Diff(t, got, []string{`id=1, p="a", v="x"`, `id=2, p="a", v="y"`, `id=3, p="b", v="z"`})
	if pc := tbl.PartitionColumns(); !slices.Equal(pc, []string{"p"}) {
		t.Errorf("partition columns %v, want [p]", pc)
	}

	// error and ignore on an existing table change nothing; other modes are refused.
	_, err = sparkdelta.Write(ctx, s, frame(t, s, row{9, "a", "no"}), uri, sparkdelta.WriteOptions{Mode: write.ModeError})
	if !errors.Is(err, deltalite.ErrTableExists) {
		t.Errorf("mode error on an existing table: %v, want ErrTableExists", err)
	}
	res, err = sparkdelta.Write(ctx, s, frame(t, s, row{9, "a", "no"}), uri, sparkdelta.WriteOptions{Mode: write.ModeIgnore})
	if err != nil || !res.Skipped || res.Version != 0 {
		t.Errorf("mode ignore: %+v, %v; want skipped at version 0", res, err)
	}
	_, err = sparkdelta.Write(ctx, s, frame(t, s, row{9, "a", "no"}), uri, sparkdelta.WriteOptions{Mode: "merge"})
	if err == nil || !strings.Contains(err.Error(), "Spark does not support the write mode merge") {
		t.Errorf("mode merge: %v", err)
	}

	_, err = sparkdelta.Write(ctx, s, frame(t, s, row{9, "a", "no"}), uri, sparkdelta.WriteOptions{Mode: write.ModeAppend, PartitionBy: []string{"v"}})
	if !errors.Is(err, deltalite.ErrSchemaMismatch) || !strings.Contains(err.Error(), "the table is partitioned by [p], not [v]") {
		t.Errorf("append with other partition columns: %v", err)
	}

	// append with a new column, schema mode merge
	extra := frame(t, s, row{4, "b", "w"})
	if extra, err = extra.WithColumnRenamed(ctx, "v", "w"); err != nil {
		t.Fatal(err)
	}
	if _, err = sparkdelta.Write(ctx, s, extra, uri, sparkdelta.WriteOptions{Mode: write.ModeAppend}); err == nil {
		t.Error("append of a new column without schema mode merge: no error")
	}
	if _, err = sparkdelta.Write(ctx, s, extra, uri, sparkdelta.WriteOptions{Mode: write.ModeAppend, SchemaMode: write.SchemaMerge}); err != nil {
		t.Fatal(err)
	}
	tbl, got = scanned(t, uri)
	arrowrows.Diff(t, got, []string{`id=1, p="a", v="x", w=null`, `id=2, p="a", v="y", w=null`, `id=3, p="b", v="z", w=null`, `id=4, p="b", v=null, w="w"`})
	before := filesOf(tbl, "b")

	// replaceWhere rewrites partition a only
	res, err = sparkdelta.Write(ctx, s, frame(t, s, row{10, "a", "new"}), uri,
		sparkdelta.WriteOptions{Mode: write.ModeOverwrite, ReplaceWhere: "p = 'a'"})
	if err != nil {
		t.Fatal(err)
	}
	tbl, got = scanned(t, uri)
	arrowrows.Diff(t, got, []string{`id=10, p="a", v="new", w=null`, `id=3, p="b", v="z", w=null`, `id=4, p="b", v=null, w="w"`})
	if after := filesOf(tbl, "b"); !slices.Equal(after, before) || len(before) == 0 {
		t.Errorf("partition b's files changed by a replace of partition a:\nbefore %v\nafter  %v", before, after)
	}
	if _, err = sparkdelta.Write(ctx, s, frame(t, s, row{11, "b", "outside"}), uri,
		sparkdelta.WriteOptions{Mode: write.ModeOverwrite, ReplaceWhere: "p = 'a'"}); err == nil {
		t.Error("a replace of partition a with a row of b: no error")
	}

	// merge: update 10, insert 20, except_cols leaves w alone
	spec := merge.Options{Predicate: "t.id = s.id", Clauses: []merge.Clause{
		{When: merge.Matched, Action: merge.UpdateAll, Except: []string{"p"}},
		{When: merge.NotMatched, Action: merge.Insert, Set: map[string]string{"id": "s.id", "p": "s.p", "v": "s.v"}},
	}}
	res, err = sparkdelta.Merge(ctx, s, frame(t, s, row{10, "a", "merged"}, row{20, "b", "inserted"}), uri, sparkdelta.MergeOptions{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Operation != "MERGE" || res.Metrics["numTargetRowsInserted"] != "1" || res.Metrics["numTargetRowsUpdated"] != "1" {
		t.Errorf("merge result %+v", res)
	}
	_, got = scanned(t, uri)
	arrowrows.Diff(t, got, []string{`id=10, p="a", v="merged", w=null`, `id=20, p="b", v="inserted", w=null`, `id=3, p="b", v="z", w=null`, `id=4, p="b", v=null, w="w"`})

	// overwrite with schema mode overwrite replaces schema and partitioning
	if _, err = sparkdelta.Write(ctx, s, frame(t, s, row{5, "c", "only"}), uri,
		sparkdelta.WriteOptions{Mode: write.ModeOverwrite, SchemaMode: write.SchemaOverwrite}); err != nil {
		t.Fatal(err)
	}
	tbl, got = scanned(t, uri)
	arrowrows.Diff(t, got, []string{`id=5, p="c", v="only"`})
	if pc := tbl.PartitionColumns(); len(pc) != 0 {
		t.Errorf("partition columns after a schema overwrite without PartitionBy: %v", pc)
	}
}

// TestDeltaliteWritesSparkReads writes two versions with deltalite and
// reads them through Spark: time travel, projection and the partition
// predicate.
func TestDeltaliteWritesSparkReads(t *testing.T) {
	ctx := context.Background()
	uri := filepath.Join(t.TempDir(), "t")
	// Between the two commits, a time that reads version 0.
	var between time.Time
	for i, rows := range [][]row{{{1, "a", "x"}, {2, "a", "y"}, {3, "b", "z"}}, {{4, "a", "w"}}} {
		if i == 1 {
			time.Sleep(time.Second)
			between = time.Now()
			time.Sleep(time.Second)
		}
		tbl := rowsTable(rows...)
		rr := array.NewTableReader(tbl, -1)
		if _, err := deltalite.Write(ctx, uri, rr, deltalite.WriteOptions{Mode: write.ModeAppend, PartitionBy: []string{"p"}}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		rr.Release()
		tbl.Release()
	}
	s := sparktest.Session(t)
	v0 := int64(0)
	df, err := sparkdelta.Read(ctx, s, uri, sparkdelta.ReadOptions{Version: &v0, Columns: []string{"id", "v"}, Predicate: "p = 'a'"})
	if err != nil {
		t.Fatal(err)
	}
	arrowrows.Diff(t, sparkRows(t, df), []string{`id=1, v="x"`, `id=2, v="y"`})
	df, err = sparkdelta.Read(ctx, s, uri, sparkdelta.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	arrowrows.Diff(t, sparkRows(t, df), []string{`id=1, p="a", v="x"`, `id=2, p="a", v="y"`, `id=3, p="b", v="z"`, `id=4, p="a", v="w"`})
	df, err = sparkdelta.Read(ctx, s, uri, sparkdelta.ReadOptions{Timestamp: between.UTC().Format("2006-01-02 15:04:05.000"), Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	arrowrows.Diff(t, sparkRows(t, df), []string{`id=1`, `id=2`, `id=3`})
}

// TestBigJobRunsInSpark has Spark generate and write more rows than this
// process may hold (its memory limit is set far below their size) and
// aggregate them; only the small result crosses to this process, and
// deltalite counts the rows from the log alone.
func TestBigJobRunsInSpark(t *testing.T) {
	const n = 5_000_000 // two bigint columns: 80 MB of values
	const limit = 32 << 20
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	s := sparktest.Session(t)
	ctx := context.Background()
	uri := filepath.Join(t.TempDir(), "big")

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	df, err := s.Sql(ctx, "SELECT id, id % 10 AS k FROM range(5000000)")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sparkdelta.Write(ctx, s, df, uri, sparkdelta.WriteOptions{Mode: write.ModeOverwrite, PartitionBy: []string{"k"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := res.NumOutputRows(); !ok || got != n {
		t.Errorf("Spark wrote %d rows (%v), want %d", got, ok, n)
	}
	agg, err := s.Sql(ctx, "SELECT k, count(*) AS c, sum(id) AS total FROM "+"delta.`"+uri+"` GROUP BY k ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := agg.Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(rows) != 10 {
		t.Fatalf("%d groups, want 10", len(rows))
	}
	var count int64
	for _, r := range rows {
		c := r.Value("c").(int64)
		if c != n/10 {
			t.Errorf("group %v has %d rows, want %d", r.Value("k"), c, n/10)
		}
		count += c
	}
	if count != n {
		t.Errorf("%d rows in all, want %d", count, n)
	}
	// The job's data is 80 MB; this process allocated a small fraction.
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > limit {
		t.Errorf("this process allocated %d bytes during the Spark job, more than its %d-byte limit", alloc, limit)
	}
	t.Logf("Spark wrote and aggregated %d rows; this process allocated %d bytes meanwhile", n, alloc)
	tbl, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if sum := tbl.Summary(); sum.NumRows == nil || *sum.NumRows != n {
		t.Errorf("deltalite counts %v rows from the log, want %d", sum.NumRows, n)
	}
}
