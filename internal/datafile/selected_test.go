package datafile

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// TestWriteSelected: only the kept rows are written, in order, for an
// unpartitioned table (slices of the batch) and a partitioned one whose
// batch spans partitions (copies); a wrong-length selection is refused.
func TestWriteSelected(t *testing.T) {
	for _, parts := range [][]string{nil, {"p"}} {
		t.Run(fmt.Sprint(len(parts)), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			sc := mustSchema(t, fields("id long", "s string", "p integer"))
			var rows []string
			keep := make([]bool, 50)
			for i := range keep {
				rows = append(rows, fmt.Sprintf(`{"id":%d,"s":"v%d","p":%d}`, i, i, i%3))
				keep[i] = i%7 != 0 && i != 20 && i != 21
			}
			rec := batch(t, mem, sc, "["+strings.Join(rows, ",")+"]")
			defer rec.Release()
			var wantKept []string
			for i, k := range keep {
				if k {
					one := rec.NewSlice(int64(i), int64(i+1))
					wantKept = append(wantKept, arrowrows.Rows(one)...)
					one.Release()
				}
			}
			st := storage.NewMemory()
			w, err := NewWriter(context.Background(), st, Options{Schema: sc, PartitionColumns: parts, Allocator: mem})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteSelected(rec, keep[:10]); err == nil {
				t.Fatal("a selection shorter than the batch was accepted")
			}
			if err := w.WriteSelected(rec, keep); err != nil {
				t.Fatal(err)
			}
			if got := w.Progress().Rows; got != int64(len(wantKept)) {
				t.Errorf("writer counts %d rows, want %d", got, len(wantKept))
			}
			adds, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			got := readRows(t, &addsSource{st: st, sc: sc, parts: parts, files: adds})
			arrowrows.Diff(t, got, sorted(wantKept))
		})
	}
}

// TestWriteSelectedSparse: a few rows selected from each of many large
// batches are buffered as compact copies, accounted by their own bytes,
// so that they make one row group, not one per batch as slices holding
// each whole batch would.
func TestWriteSelectedSparse(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := mustSchema(t, fields("id long", "s string"))
	st := storage.NewMemory()
	w, err := NewWriter(context.Background(), st, Options{Schema: sc, Allocator: mem, MaxUnwrittenBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	const batches, rows, every = 20, 2000, 50
	pad := strings.Repeat("x", 1000)
	var want []string
	for b := range batches {
		var js []string
		keep := make([]bool, rows)
		for i := range rows {
			id := b*rows + i
			js = append(js, fmt.Sprintf(`{"id":%d,"s":"%s%d"}`, id, pad, id))
			keep[i] = i%every == 0
		}
		rec := batch(t, mem, sc, "["+strings.Join(js, ",")+"]")
		for i, k := range keep {
			if k {
				one := rec.NewSlice(int64(i), int64(i+1))
				want = append(want, arrowrows.Rows(one)...)
				one.Release()
			}
		}
		if err := w.WriteSelected(rec, keep); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	adds, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(adds) != 1 {
		t.Fatalf("%d files, want 1", len(adds))
	}
	rd, err := st.Open(context.Background(), adds[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	pf, err := file.NewParquetReader(io.NewSectionReader(rd, 0, rd.Size()))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if n := pf.NumRowGroups(); n != 1 {
		t.Errorf("%d row groups for %d rows of ~1 KB under a 4 MiB buffer, want 1", n, pf.NumRows())
	}
	got := readRows(t, &addsSource{st: st, sc: sc, files: adds})
	arrowrows.Diff(t, got, sorted(want))
}
