package scan

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/arrowrows"
)

// readRows scans src with opts and renders the rows canonically, checking
// the batches against the scan's schema and the allocator for leaks.
func readRows(t *testing.T, src Source, opts ...Option) []string {
	t.Helper()
	return readRowsLeak(t, src, 0, opts...)
}

// readRowsLeak is readRows for files on which arrow-go itself leaks a
// known number of bytes (its delta-bit-packing decoder keeps a block).
func readRowsLeak(t *testing.T, src Source, upstreamLeak int, opts ...Option) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
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

func diffRows(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	t.Errorf("got %d rows, want %d", len(got), len(want))
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("row %d:\n got  %s\n want %s", i, g, w)
		}
	}
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
			want, err := arrowrows.ParquetDir(filepath.Join(conformance, c.expected))
			if err != nil {
				t.Fatal(err)
			}
			if c.fixExpected != nil {
				for i := range want {
					want[i] = c.fixExpected(want[i])
				}
				sort.Strings(want)
			}
			got := readRowsLeak(t, openTable(t, filepath.Join(conformance, c.table)), c.upstreamLeak)
			diffRows(t, got, want)
		})
	}
}
