package scan

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// readRows scans src with opts and renders the rows canonically, checking
// the batches against the scan's schema and the allocator for leaks. The
// allocator is the scan's pool, poisoning what is freed, so that a buffer
// used after its release shows in the rows.
func readRows(t *testing.T, src Source, opts ...Option) []string {
	t.Helper()
	return readRowsLeak(t, src, 0, opts...)
}

// readRowsLeak is readRows for files on which arrow-go itself leaks a
// known number of bytes (its delta-bit-packing decoder keeps a block).
func readRowsLeak(t *testing.T, src Source, upstreamLeak int, opts ...Option) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(poisonPool())
	defer func() {
		if upstreamLeak == 0 {
			mem.AssertSize(t, 0)
		} else if got := mem.CurrentAlloc(); got > upstreamLeak {
			t.Errorf("%d bytes still allocated after the scan, at most %d expected", got, upstreamLeak)
		}
	}()
	s := New(src, append([]Option{WithAllocator(mem)}, opts...)...)
	sc, seq, err := s.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Schema().Equal(sc) {
			t.Fatalf("batch schema %s differs from scan schema %s", rec.Schema(), sc)
		}
		rows = append(rows, arrowrows.Rows(rec)...)
	}
	sort.Strings(rows)
	return rows
}

// TestConformanceExpected reads tables that come with their expected
// content as Parquet and compares them as sorted multisets of rows.
func TestConformanceExpected(t *testing.T) {
	cases := []struct {
		table, expected string
		upstreamLeak    int
		fixExpected     func(string) string
	}{
		{table: "dat/basic_partitioned/delta", expected: "dat/basic_partitioned/expected/latest/table_content"},
		{table: "dat/multi_partitioned/delta", expected: "dat/multi_partitioned/expected/latest/table_content"},
		{table: "dat/multi_partitioned_2/delta", expected: "dat/multi_partitioned_2/expected/latest/table_content"},
		{table: "dat/partitioned_with_null/delta", expected: "dat/partitioned_with_null/expected/latest/table_content"},
		{table: "dat/column_mapping/delta", expected: "dat/column_mapping/expected/latest/table_content"},
		{table: "dat/deletion_vectors/delta", expected: "dat/deletion_vectors/expected/latest/table_content"},
		{table: "dat/timestamp_ntz/delta", expected: "dat/timestamp_ntz/expected/latest/table_content"},
		{table: "dat/nested_types/delta", expected: "dat/nested_types/expected/latest/table_content"},
		{table: "dat/all_primitive_types/delta", expected: "dat/all_primitive_types/expected/latest/table_content"},
		{table: "dat/basic_append/delta", expected: "dat/basic_append/expected/latest/table_content"},
		{table: "dat/with_schema_change/delta", expected: "dat/with_schema_change/expected/latest/table_content"},
		{table: "golden/kernel-timestamp-int96/delta", expected: "golden/kernel-timestamp-int96/expected"},
		// Spark wrote this table in a UTC-7 session: the log's partition
		// value "2021-09-08 11:11:11" has no zone, and like delta-rs we read
		// it as UTC, where the expected data holds 18:11:11Z.
		{"golden/data-reader-partition-values/delta", "golden/data-reader-partition-values/expected", 0,
			func(r string) string {
				return strings.Replace(r, "as_timestamp=2021-09-08T18:11:11.000000Z", "as_timestamp=2021-09-08T11:11:11.000000Z", 1)
			}},
		{"golden/parquet-decimal-dictionaries/delta", "golden/parquet-decimal-dictionaries/expected", 64, nil},
		{table: "golden/table-with-columnmapping-mode-name/delta", expected: "golden/table-with-columnmapping-mode-name/expected"},
	}
	for _, c := range cases {
		t.Run(c.table, func(t *testing.T) {
			if c.upstreamLeak > 0 && testing.Short() {
				t.Skip("a million rows: skipped in -short")
			}
			want, err := arrowrows.ParquetDir(corpus.Path(t, c.expected))
			if err != nil {
				t.Fatal(err)
			}
			if c.fixExpected != nil {
				for i := range want {
					want[i] = c.fixExpected(want[i])
				}
				sort.Strings(want)
			}
			got := readRowsLeak(t, openTable(t, c.table), c.upstreamLeak)
			arrowrows.Diff(t, got, want)
		})
	}
}

// TestKnownContents checks tables whose content other engines' tests state.
func TestKnownContents(t *testing.T) {
	cases := []struct {
		table string
		want  []string
	}{
		// 10 rows, a deletion vector in its own file removes 0 and 9.
		{"delta-rs/table-with-dv-small", []string{"value=1", "value=2", "value=3", "value=4", "value=5", "value=6", "value=7", "value=8"}},
		{"delta-rs/table-without-dv-small", []string{"value=0", "value=1", "value=2", "value=3", "value=4", "value=5", "value=6", "value=7", "value=8", "value=9"}},
		{"delta-rs/delta-0.8.0-partitioned", []string{
			`day="1", month="1", value="1", year="2020"`,
			`day="20", month="12", value="6", year="2021"`,
			`day="20", month="12", value="7", year="2021"`,
			`day="3", month="2", value="2", year="2020"`,
			`day="4", month="12", value="5", year="2021"`,
			`day="5", month="2", value="3", year="2020"`,
			`day="5", month="4", value="4", year="2021"`,
		}},
		// Partition values come from the log, not from the escaped paths.
		{"delta-rs/delta-0.8.0-special-partition", []string{`x="A/A", y=1`, `x="B B", y=2`}},
		// Name mapping, spaces in names, a partition column keyed by its
		// physical name.
		{"delta-rs/table_with_column_mapping", []string{
			`Company Very Short="BME", Super Name="Timothy Lamb"`,
			`Company Very Short="BMS", Super Name="Anthony Johnson"`,
			`Company Very Short="BMS", Super Name="Mr. Daniel Ferguson MD"`,
			`Company Very Short="BMS", Super Name="Nathan Bennett"`,
			`Company Very Short="BMS", Super Name="Stephanie Mcgrath"`,
		}},
		// INT96 timestamps past 2262, beyond Arrow's nanosecond range.
		{"delta-rs/table_with_edge_timestamps", []string{
			"BIG_DATE=9999-12-30T00:00:00.000000Z, NORMAL_DATE=2022-02-01T00:00:00.000000Z, SOME_VALUE=2",
			"BIG_DATE=9999-12-31T00:00:00.000000Z, NORMAL_DATE=2022-01-01T00:00:00.000000Z, SOME_VALUE=1",
		}},
	}
	for _, c := range cases {
		t.Run(c.table, func(t *testing.T) {
			arrowrows.Diff(t, readRows(t, openTable(t, c.table)), c.want)
		})
	}
	edge := openTable(t, "delta-rs/table_with_edge_timestamps")
	if got := values(t, edge, "SOME_VALUE", WithFilters(mustFilter(t, "BIG_DATE", ">=", "9999-12-31"))); strings.Join(got, " ") != "1" {
		t.Errorf("filter on an INT96 column: %v", got)
	}
}

func TestColumnMappingID(t *testing.T) {
	snap := openTable(t, "kernel-java-spark/column-mapping-id")
	var want []string
	for i := range 20 {
		want = append(want, fmt.Sprintf("value=%d", i))
	}
	sort.Strings(want)
	arrowrows.Diff(t, readRows(t, snap), want)

	// Under id mapping the field id decides, not the physical name: give
	// the column a wrong physical name and it must still be found.
	sc, err := schema.Parse(snap.Schema().JSON())
	if err != nil {
		t.Fatal(err)
	}
	sc.Fields[0].Metadata[schema.PhysicalNameKey] = "not-the-name-in-the-file"
	arrowrows.Diff(t, readRows(t, &altered{Source: snap, schema: sc}), want)

	// A different id matches nothing: the column reads as nulls.
	sc.Fields[0].Metadata[schema.ColumnIDKey] = float64(99)
	rows := readRows(t, &altered{Source: snap, schema: sc})
	if len(rows) != 20 || rows[0] != "value=null" || rows[19] != "value=null" {
		t.Errorf("unknown field id: %v", rows)
	}
}

func TestProjection(t *testing.T) {
	src := openTable(t, "dat/multi_partitioned/delta")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc, seq, err := New(src, WithColumns("number", "letter"), WithAllocator(mem)).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if only, err := New(src, WithColumns("number", "letter")).Schema(); err != nil || !only.Equal(sc) {
		t.Fatalf("Schema() = %v, %v; want %s", only, err, sc)
	}
	if got := sc.String(); !strings.Contains(got, "number: type=int64") || sc.Field(0).Name != "number" || sc.Field(1).Name != "letter" || sc.NumFields() != 2 {
		t.Fatalf("schema %s", got)
	}
	n := 0
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		n += int(rec.NumRows())
	}
	if n != 2 {
		t.Fatalf("%d rows", n)
	}
	// Only partition columns: nothing is decoded, rows are still counted.
	arrowrows.Diff(t, readRows(t, src, WithColumns("date", "data")), []string{"data=0x68656c6c6f, date=1970-01-01", "data=0xf09f9888, date=1970-01-01"})
	// No column at all: a row count.
	total := 0
	_, seq, err = New(openTable(t, "delta-rs/table-with-dv-small"), WithColumns()).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumCols() != 0 {
			t.Fatalf("%d columns", rec.NumCols())
		}
		total += int(rec.NumRows())
	}
	if total != 8 {
		t.Fatalf("row count %d, want 8 (10 minus 2 deleted)", total)
	}
	for _, cols := range [][]string{{"nope"}, {"number", "NUMBER"}} {
		if _, _, err := New(src, WithColumns(cols...)).Records(context.Background()); !errors.Is(err, errs.ErrInvalidArgument) {
			t.Errorf("columns %v: %v", cols, err)
		}
	}
}

func TestSchemaEvolutionFillsNulls(t *testing.T) {
	snap := openTable(t, "dat/nested_types/delta")
	sc, err := schema.Parse(snap.Schema().JSON())
	if err != nil {
		t.Fatal(err)
	}
	// A top-level and a nested column added after the files were written.
	sc.Fields = append(sc.Fields, &schema.Field{Name: "added", Type: &schema.Primitive{Name: schema.Long}, Nullable: true})
	st := sc.Field("struct").Type.(*schema.Struct)
	st.Fields = append(st.Fields, &schema.Field{Name: "later", Type: &schema.Primitive{Name: schema.String}, Nullable: true})
	rows := readRows(t, &altered{Source: snap, schema: sc}, WithColumns("pk", "added", "struct"))
	if len(rows) != 5 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if !strings.Contains(r, "added=null") || !strings.Contains(r, "later=null") || !strings.Contains(r, "float64=") {
			t.Errorf("row %s", r)
		}
	}
}

func TestBatchSizeLimitAndOrder(t *testing.T) {
	src := openTable(t, "golden/parquet-decimal-dictionaries/delta") // one file of 1,000,000 rows
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	_, seq, err := New(src, WithColumns("id"), WithBatchSize(1000), WithLimit(2500), WithAllocator(mem)).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, rec.NumRows())
	}
	if fmt.Sprint(sizes) != "[1000 1000 500]" {
		t.Fatalf("batch sizes %v, want [1000 1000 500]", sizes)
	}
	if got := mem.CurrentAlloc(); got > 64 { // arrow-go's decoder keeps one block
		t.Fatalf("%d bytes held after a limited scan", got)
	}

	// Output order is the plan's file order, whatever the parallelism.
	appended := openTable(t, "dat/basic_partitioned/delta")
	order := func(p int) string {
		_, seq, err := New(appended, WithColumns("number"), WithParallelism(p), WithBatchSize(1)).Records(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(arrowrows.StreamRows(t, seq), " ")
	}
	first := order(1)
	for _, p := range []int{2, 3, 8} {
		if got := order(p); got != first {
			t.Errorf("parallelism %d: order %s, want %s", p, got, first)
		}
	}
	if got := readRows(t, appended, WithLimit(0)); len(got) != 0 {
		t.Errorf("limit 0 gave %d rows", len(got))
	}
	if got := readRows(t, appended, WithLimit(4), WithParallelism(3)); len(got) != 4 {
		t.Errorf("limit 4 gave %d rows", len(got))
	}
}

func TestEarlyStopReleasesEverything(t *testing.T) {
	src := openTable(t, "dat/basic_partitioned/delta")
	before := runtime.NumGoroutine()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	_, seq, err := New(src, WithAllocator(mem), WithParallelism(4)).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	mem.AssertSize(t, 0)

	rr, err := New(src, WithAllocator(mem)).RecordReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Next() || rr.RecordBatch().NumRows() == 0 {
		t.Fatalf("first batch: %v", rr.Err())
	}
	rr.Release()
	mem.AssertSize(t, 0)
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left running, %d before", n, before)
	}
}

func TestRecordReader(t *testing.T) {
	src := openTable(t, "dat/deletion_vectors/delta")
	rr, err := New(src, WithColumns("letter", "int")).RecordReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows []string
	for rr.Next() {
		rows = append(rows, arrowrows.Rows(rr.RecordBatch())...)
	}
	if rr.Err() != nil {
		t.Fatal(rr.Err())
	}
	if rr.Next() {
		t.Fatal("Next after the end")
	}
	arrowrows.Diff(t, rows, []string{`int=228, letter="b"`})
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := openTable(t, "golden/parquet-decimal-dictionaries/delta")
	_, seq, err := New(src, WithBatchSize(100)).Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range seq {
		if err != nil {
			if !errors.Is(err, errs.ErrCanceled) {
				t.Fatalf("error %v, want canceled", err)
			}
			return
		}
		if n++; n == 3 {
			cancel()
		}
	}
	t.Fatal("no error after cancel")
}
