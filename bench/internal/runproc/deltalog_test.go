package runproc

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
)

// TestLogVolumeDeletionVectors: a DELETE through a deletion vector counts
// as a DV on an existing file, not as a file written and one removed, and
// the DV file's bytes are its size on disk, counted once and only in the
// commits that wrote it; a copy-on-write DELETE counts the rewritten file.
func TestLogVolumeDeletionVectors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range int64(10_000) {
		b.Append(i)
	}
	col := b.NewArray()
	defer col.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(sch, []arrow.Array{col}, 10_000)
	defer rec.Release()
	rr, err := array.NewRecordReader(sch, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := deltalite.Write(ctx, dir, rr, deltalite.WriteOptions{
		Properties: map[string]string{protocol.PropEnableDeletionVectors: "true"}}); err != nil {
		t.Fatal(err)
	}
	tb, err := deltalite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	dvBytes := func() int64 {
		var n int64
		paths, _ := filepath.Glob(filepath.Join(dir, "deletion_vector_*.bin"))
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			n += fi.Size()
		}
		return n
	}
	del := func(pred string, cow bool) int64 {
		t.Helper()
		st, err := tb.Delete(ctx, deltalite.DeleteOptions{Predicate: pred, CopyOnWrite: cow})
		if err != nil {
			t.Fatal(err)
		}
		return st.Version
	}
	v1 := del("id % 100 = 0", false)
	got, err := LogVolume(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	first := dvBytes()
	want := Volume{Commits: 1, DVsAdded: 1, DVFiles: 1, DVBytes: first}
	if got != want || first == 0 {
		t.Fatalf("DV delete: %+v, want %+v", got, want)
	}
	del("id % 100 = 1", false)
	if got, err = LogVolume(dir, v1); err != nil {
		t.Fatal(err)
	}
	if want = (Volume{Commits: 1, DVsAdded: 1, DVFiles: 1, DVBytes: dvBytes() - first}); got != want || want.DVBytes <= 0 {
		t.Fatalf("second DV delete: %+v, want %+v (the first DV file not counted again)", got, want)
	}
	v3 := del("id % 100 = 2", true)
	if got, err = LogVolume(dir, v3-1); err != nil {
		t.Fatal(err)
	}
	if got.FilesAdded != 1 || got.FilesRemoved != 1 || got.BytesAdded <= 0 || got.BytesRemoved <= 0 || got.DVsAdded != 0 || got.DVFiles != 0 {
		t.Fatalf("copy-on-write delete: %+v, want one file rewritten and no DV", got)
	}
}
