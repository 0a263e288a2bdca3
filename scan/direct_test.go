package scan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// TestBytesColumnsReadDirectly: string and binary columns read straight
// from their pages (nullable and required, plain, dictionary and fallback
// pages of 512 bytes, values from empty to 5 KB) give the rows a deletion
// vector keeps, for every batch size, projection and with row indexes,
// including batches whose rows are all deleted.
func TestBytesColumnsReadDirectly(t *testing.T) {
	dir := t.TempDir()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "r", Type: arrow.BinaryTypes.String},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewPCG(7, 26))
	var files []*protocol.Add
	var want []string
	for k, name := range []string{"plain.parquet", "dict.parquet", "fallback.parquet"} {
		var rows, kept []string
		deleted := []uint64{0, 1, 14, 15, 16, 17, 18, 19, 20, 299, 300, 301, 640, 999}
		for i := range 1000 {
			if rng.IntN(10) == 0 {
				deleted = append(deleted, uint64(i))
			}
		}
		for i := range 1000 {
			s := "null"
			switch {
			case i%9 == 0:
			case i%50 == 3:
				s = `""`
			case i%97 == 5:
				s = `"` + strings.Repeat("long", 1250) + `"`
			case k == 2 && i >= 500: // distinct values: the dictionary overflows
				s = fmt.Sprintf(`"distinct-value-%06d"`, i)
			default:
				s = fmt.Sprintf(`"v%02d-%d"`, i%40, k)
			}
			b := `"` + []string{"AAE=", "AAI=", ""}[i%3] + `"`
			if i%11 == 0 {
				b = "null"
			}
			row := fmt.Sprintf(`{"id": %d, "s": %s, "r": "r%d", "b": %s}`, k*1000+i, s, i%13, b)
			rows = append(rows, row)
			if !slices.Contains(deleted, uint64(i)) {
				kept = append(kept, row)
			}
		}
		opts := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(300), parquet.WithDataPageSize(512)}
		switch k {
		case 0:
			opts = append(opts, parquet.WithDictionaryDefault(false))
		case 2:
			opts = append(opts, parquet.WithDictionaryPageSizeLimit(1024), parquet.WithBatchSize(64))
		}
		add := writeParquetWith(t, dir, name, sc, "["+strings.Join(rows, ",")+"]", parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
		var err error
		if add.DeletionVector, err = dv.InlineDescriptor(dv.NewBitmap(deleted...)); err != nil {
			t.Fatal(err)
		}
		files = append(files, add)
		rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader("["+strings.Join(kept, ",")+"]"))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, arrowrows.Rows(rec)...)
		rec.Release()
	}
	table := parseSchema(t, `{"name":"id","type":"long","nullable":true,"metadata":{}},
		{"name":"s","type":"string","nullable":true,"metadata":{}},
		{"name":"r","type":"string","nullable":false,"metadata":{}},
		{"name":"b","type":"binary","nullable":true,"metadata":{}}`)
	src := localSource(t, dir, table, files...)
	sort.Strings(want)
	project := func(rows []string, cols ...string) []string {
		var out []string
		for _, r := range rows {
			var parts []string
			for p := range strings.SplitSeq(r, ", ") {
				if slices.Contains(cols, p[:strings.IndexByte(p, '=')]) {
					parts = append(parts, p)
				}
			}
			out = append(out, strings.Join(parts, ", "))
		}
		sort.Strings(out)
		return out
	}
	for _, bs := range []int{1, 7, 300, 8192} {
		t.Run(fmt.Sprint(bs), func(t *testing.T) {
			arrowrows.Diff(t, readRows(t, src, WithBatchSize(bs)), want)
			arrowrows.Diff(t, readRows(t, src, WithBatchSize(bs), WithParallelism(2)), want) // a goroutine per file
			arrowrows.Diff(t, readRows(t, src, WithBatchSize(bs), WithColumns("s")), project(want, "s"))
			arrowrows.Diff(t, readRows(t, src, WithBatchSize(bs), WithColumns("b", "r")), project(want, "b", "r"))
			arrowrows.Diff(t, readRows(t, src, WithBatchSize(bs), WithWhere("s LIKE 'v1%'")), filter(want, `s="v1`))
		})
	}
	if n := len(readRows(t, src, WithColumns("s"), WithRowIndex())); n != len(want) {
		t.Errorf("%d rows with row indexes, want %d", n, len(want))
	}
}

// filter keeps the rows holding part.
func filter(rows []string, part string) []string {
	var out []string
	for _, r := range rows {
		if strings.Contains(r, part) {
			out = append(out, r)
		}
	}
	return out
}
