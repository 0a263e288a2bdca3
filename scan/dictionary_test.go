package scan

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// dictionaryFiles writes three files of the columns id, s (40 distinct
// strings and nulls) and b (binary, 3 distinct): d.parquet dictionary-
// encodes every page, plain.parquet none, fallback.parquet starts with a
// dictionary and falls back to plain pages when it outgrows its page limit.
// d.parquet has a deletion vector. Row groups of 300 rows. It returns the
// table of the three and their directory.
func dictionaryFiles(t *testing.T) (*fixedSource, string) {
	t.Helper()
	dir := t.TempDir()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	files := map[string]*protocol.Add{}
	for k, name := range []string{"d.parquet", "plain.parquet", "fallback.parquet"} {
		var rows []string
		for i := range 1000 {
			s := "null"
			if i%9 != 0 {
				s = fmt.Sprintf(`"v%02d-%d"`, i%40, k)
			}
			if k == 2 && i >= 500 { // distinct values: the dictionary overflows
				s = fmt.Sprintf(`"distinct-value-%06d"`, i)
			}
			rows = append(rows, fmt.Sprintf(`{"id": %d, "s": %s, "b": "%s"}`, k*1000+i, s, []string{"AAE=", "AAI=", "AAM="}[i%3]))
		}
		opts := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(300), parquet.WithDataPageSize(512)}
		switch k {
		case 1:
			opts = append(opts, parquet.WithDictionaryDefault(false))
		case 2:
			opts = append(opts, parquet.WithDictionaryPageSizeLimit(1024), parquet.WithBatchSize(64))
		}
		files[name] = writeParquetWith(t, dir, name, sc, "["+strings.Join(rows, ",")+"]", parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
	}
	bm := dv.NewBitmap(0, 1, 299, 300, 301, 640, 999)
	d, err := dv.InlineDescriptor(bm)
	if err != nil {
		t.Fatal(err)
	}
	files["d.parquet"].DeletionVector = d
	table := parseSchema(t, `{"name":"id","type":"long","nullable":true,"metadata":{}},
		{"name":"s","type":"string","nullable":true,"metadata":{}},
		{"name":"b","type":"binary","nullable":true,"metadata":{}}`)
	return localSource(t, dir, table, files["d.parquet"], files["plain.parquet"], files["fallback.parquet"]), dir
}

// readDecoded scans src, decoding the dictionary columns of each batch,
// and returns the sorted rows and, per column name, the batches that came
// as dictionaries. Every batch's schema must be the scan's but for the
// dictionary type of such columns; nothing may leak.
func readDecoded(t *testing.T, src Source, opts ...Option) ([]string, map[string]int) {
	t.Helper()
	mem := memory.NewCheckedAllocator(poisonPool())
	defer mem.AssertSize(t, 0)
	sc, seq, err := New(src, append([]Option{WithAllocator(mem)}, opts...)...).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx := compute.WithAllocator(context.Background(), mem)
	var rows []string
	dicts := map[string]int{}
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		cols := make([]arrow.Array, rec.NumCols())
		for j, c := range rec.Columns() {
			want := sc.Field(j)
			if d, ok := c.(*array.Dictionary); ok {
				dicts[want.Name]++
				if !arrow.TypeEqual(d.Dictionary().DataType(), want.Type) {
					t.Fatalf("column %s: dictionary of %s, want %s", want.Name, d.Dictionary().DataType(), want.Type)
				}
				if cols[j], err = decodeDictionary(ctx, d); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if !arrow.TypeEqual(c.DataType(), want.Type) {
				t.Fatalf("column %s: %s, want %s", want.Name, c.DataType(), want.Type)
			}
			c.Retain()
			cols[j] = c
		}
		plain := array.NewRecordBatch(sc, cols, rec.NumRows())
		releaseAll(cols)
		rows = append(rows, arrowrows.Rows(plain)...)
		plain.Release()
	}
	sort.Strings(rows)
	return rows, dicts
}

// TestDictionariesKept reads string and binary columns as dictionaries
// where the file dictionary-encodes every page, and plainly elsewhere: the
// same rows as a plain scan, with deleted rows dropped, predicates
// evaluated, and any batch size.
func TestDictionariesKept(t *testing.T) {
	src, _ := dictionaryFiles(t)
	for _, bs := range []int{7, 300, 8192} {
		want := readRows(t, src, WithBatchSize(bs))
		if len(want) != 3000-7 {
			t.Fatalf("%d rows, want %d", len(want), 3000-7)
		}
		got, dicts := readDecoded(t, src, WithBatchSize(bs), WithDictionaries("s", "b", "id"))
		arrowrows.Diff(t, got, want)
		// Only d.parquet's s and b stay dictionaries: id is no string,
		// plain.parquet has no dictionary, fallback.parquet's s has plain
		// pages (its b, dictionary throughout, stays one).
		perFile := (1000 + bs - 1) / bs // batches of one file, at most
		if dicts["id"] != 0 || dicts["s"] == 0 || dicts["s"] > perFile+3 || dicts["b"] <= dicts["s"] {
			t.Errorf("batch size %d: dictionary batches %v", bs, dicts)
		}
	}
	// A predicate on s reads it plainly; one on id leaves s a dictionary.
	for _, c := range []struct {
		where    string
		sAsDicts bool
	}{{"s >= 'v10' AND s < 'v20'", false}, {"id % 4 = 1", true}} {
		want := readRows(t, src, WithWhere(c.where))
		got, dicts := readDecoded(t, src, WithWhere(c.where), WithDictionaries("s"))
		if len(want) == 0 {
			t.Fatalf("%s: no rows", c.where)
		}
		arrowrows.Diff(t, got, want)
		if (dicts["s"] > 0) != c.sAsDicts {
			t.Errorf("%s: dictionary batches %v", c.where, dicts)
		}
	}
	// Projection: s alone, and s after id.
	for _, cols := range [][]string{{"s"}, {"b", "s"}} {
		want := readRows(t, src, WithColumns(cols...))
		got, dicts := readDecoded(t, src, WithColumns(cols...), WithDictionaries("s", "b"))
		arrowrows.Diff(t, got, want)
		if dicts["s"] == 0 {
			t.Errorf("columns %v: no dictionary batch of s", cols)
		}
	}
}

// TestDictionaryThroughout tells the files' string and binary column
// chunks apart by their page encoding statistics.
func TestDictionaryThroughout(t *testing.T) {
	_, dir := dictionaryFiles(t)
	for name, want := range map[string][]bool{ // s, b
		"d.parquet":        {true, true},
		"plain.parquet":    {false, false},
		"fallback.parquet": {false, true},
	} {
		pf, err := file.OpenParquetFile(filepath.Join(dir, name), false)
		if err != nil {
			t.Fatal(err)
		}
		got := []bool{dictionaryThroughout(pf.MetaData(), 1), dictionaryThroughout(pf.MetaData(), 2)}
		pf.Close()
		if !slices.Equal(got, want) {
			t.Errorf("%s: dictionary throughout %v, want %v", name, got, want)
		}
	}
}
