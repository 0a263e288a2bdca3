package datafile

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

var rollSchema = fields("id long not null", "name string", "value double", "part integer")

// rollBatch makes n rows starting at id first: names are random, so that
// the data does not compress to nothing.
func rollBatch(mem memory.Allocator, sc *schema.Struct, first, n, parts int, rnd *rand.Rand) arrow.RecordBatch {
	as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
	b := array.NewRecordBuilder(mem, as)
	defer b.Release()
	for i := first; i < first+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%016x", rnd.Uint64()))
		b.Field(2).(*array.Float64Builder).Append(rnd.Float64())
		b.Field(3).(*array.Int32Builder).Append(int32(i % max(parts, 1)))
	}
	return b.NewRecordBatch()
}

func TestRollingAtTargetSizeKeepsPerFileStats(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := mustSchema(t, rollSchema)
	rnd := rand.New(rand.NewPCG(1, 2))
	var recs []arrow.RecordBatch
	for k := 0; k < 10; k++ {
		recs = append(recs, rollBatch(mem, sc, k*2000, 2000, 1, rnd))
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	const target = 64 << 10
	st := storage.NewMemory()
	// Target size from the table property.
	adds := writeAll(t, st, Options{Schema: sc, Allocator: mem, Properties: protocol.Properties{protocol.PropTargetFileSize: fmt.Sprint(target)}}, recs...)
	if len(adds) < 5 {
		t.Fatalf("%d files for ~%d KiB of Parquet at a %d KiB target", len(adds), 20000*40/1024, target>>10)
	}
	var total int64
	src := &addsSource{st: st, sc: sc}
	names := map[string]bool{}
	for i, a := range adds {
		if names[a.Path] {
			t.Errorf("file name %s used twice", a.Path)
		}
		names[a.Path] = true
		if !strings.HasPrefix(a.Path, fmt.Sprintf("part-%05d-", i)) {
			t.Errorf("file %d is named %s", i, a.Path)
		}
		info, err := st.Head(context.Background(), a.Path)
		if err != nil || info.Size != a.Size {
			t.Errorf("%s: stored size %d, add size %d (%v)", a.Path, info.Size, a.Size, err)
		}
		// Files other than the last stay near the target.
		if i < len(adds)-1 && (a.Size > target*3/2 || a.Size < target/4) {
			t.Errorf("%s: %d bytes at a %d byte target", a.Path, a.Size, target)
		}
		// The statistics describe exactly this file's rows.
		src.files = []*protocol.Add{a}
		rows := readRows(t, src, scan.WithColumns("id"))
		f := stats.Parse(a.Stats, sc, schema.MappingNone)
		if f.NumRecords != int64(len(rows)) {
			t.Errorf("%s: numRecords %d, %d rows", a.Path, f.NumRecords, len(rows))
		}
		lo, hi := int64(1<<62), int64(-1)
		for _, r := range rows {
			var id int64
			fmt.Sscanf(r, "id=%d", &id)
			lo, hi = min(lo, id), max(hi, id)
		}
		id := f.Column("id")
		if id.Min.Int != lo || id.Max.Int != hi || id.NullCount != 0 {
			t.Errorf("%s: stats id %v..%v nulls %d, rows %d..%d", a.Path, id.Min, id.Max, id.NullCount, lo, hi)
		}
		total += f.NumRecords
	}
	if total != 20000 {
		t.Errorf("%d rows in all files, want 20000", total)
	}
	src.files = adds
	arrowrows.Diff(t, readRows(t, src), arrowrows.Rows(recs...))
}

func TestBufferBoundWithManyPartitions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := mustSchema(t, rollSchema)
	rnd := rand.New(rand.NewPCG(3, 4))
	const bound = 128 << 10
	st := storage.NewMemory()
	w, err := NewWriter(context.Background(), st, Options{Schema: sc, PartitionColumns: []string{"part"},
		MaxUnwrittenBytes: bound, MaxOpenFiles: 8, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for k := 0; k < 10; k++ {
		rec := rollBatch(mem, sc, k*2000, 2000, 100, rnd)
		recs = append(recs, rec)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if w.buffered > bound {
			t.Fatalf("after batch %d: %d bytes buffered, bound %d", k, w.buffered, bound)
		}
		if w.openFiles > 8 {
			t.Fatalf("after batch %d: %d files open, bound 8", k, w.openFiles)
		}
	}
	adds, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if w.buffered != 0 || w.openFiles != 0 {
		t.Errorf("after Close: %d bytes buffered, %d files open", w.buffered, w.openFiles)
	}
	var size int64
	for _, a := range adds {
		size += a.Size
	}
	if p := w.Progress(); p.Rows != 20000 || p.Files != len(adds) || p.BytesWritten != size || p.BufferedBytes != 0 {
		t.Errorf("progress %+v, want 20000 rows in %d files of %d bytes", p, len(adds), size)
	}
	parts := map[string]int{}
	for _, a := range adds {
		parts[a.PartitionValues["part"]]++
	}
	if len(parts) != 100 {
		t.Errorf("%d partitions, want 100", len(parts))
	}
	arrowrows.Diff(t, readRows(t, &addsSource{st: st, sc: sc, parts: []string{"part"}, files: adds}), arrowrows.Rows(recs...))
}

func TestAbortDeletesWrittenFiles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := mustSchema(t, rollSchema)
	st, err := storage.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	w, err := NewWriter(context.Background(), st, Options{Schema: sc, PartitionColumns: []string{"part"},
		MaxUnwrittenBytes: 64 << 10, TargetFileSize: 16 << 10, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 4; k++ {
		rec := rollBatch(mem, sc, k*3000, 3000, 4, rnd)
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(w.stored) == 0 || w.openFiles == 0 {
		t.Fatalf("want finished and open files before Abort: %d stored, %d open", len(w.stored), w.openFiles)
	}
	if err := w.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	objs, err := storage.Collect(context.Background(), st, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 0 {
		t.Errorf("%d objects left after Abort, first %s", len(objs), objs[0].Key)
	}
	empty := rollBatch(mem, sc, 0, 0, 1, rnd)
	if err := w.Write(empty); err == nil {
		t.Error("Write after Abort succeeded")
	}
	empty.Release()

	// Abort after Close deletes the closed files too (a commit that failed).
	rec := rollBatch(mem, sc, 0, 100, 2, rnd)
	defer rec.Release()
	w, _ = NewWriter(context.Background(), st, Options{Schema: sc, PartitionColumns: []string{"part"}, Allocator: mem})
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if adds, err := w.Close(); err != nil || len(adds) != 2 {
		t.Fatalf("adds %d, err %v", len(adds), err)
	}
	if err := w.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	if objs, _ := storage.Collect(context.Background(), st, "", ""); len(objs) != 0 {
		t.Errorf("%d objects left after Close and Abort", len(objs))
	}
}

func TestCanceledContextStopsTheWrite(t *testing.T) {
	mem := memory.NewGoAllocator()
	sc := mustSchema(t, rollSchema)
	ctx, cancel := context.WithCancel(context.Background())
	st, _ := storage.NewLocal(t.TempDir())
	w, err := NewWriter(ctx, st, Options{Schema: sc})
	if err != nil {
		t.Fatal(err)
	}
	rec := rollBatch(mem, sc, 0, 10, 1, rand.New(rand.NewPCG(1, 1)))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = w.Close()
	if !errors.Is(err, errs.ErrCanceled) {
		t.Fatalf("Close after cancel: %v, want ErrCanceled", err)
	}
	if err := w.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	if objs, _ := storage.Collect(context.Background(), st, "", ""); len(objs) != 0 {
		t.Errorf("%d objects after a canceled write", len(objs))
	}
}

func TestWriteRefusesBatchesOfAnotherShape(t *testing.T) {
	sc := mustSchema(t, fields("id long not null", "name string"))
	mem := memory.NewGoAllocator()
	w, err := NewWriter(context.Background(), storage.NewMemory(), Options{Schema: sc})
	if err != nil {
		t.Fatal(err)
	}
	other := mustSchema(t, fields("id integer", "name string"))
	err = w.Write(batch(t, mem, other, `[{"id":1,"name":"a"}]`))
	if !errors.Is(err, errs.ErrSchemaMismatch) || !strings.Contains(err.Error(), `"id"`) || !strings.Contains(err.Error(), "Conform") {
		t.Errorf("wrong type: %v", err)
	}
	nullable := mustSchema(t, fields("id long", "name string"))
	err = w.Write(batch(t, mem, nullable, `[{"id":null,"name":"a"}]`))
	if !errors.Is(err, errs.ErrSchemaMismatch) || !strings.Contains(err.Error(), `"id" has 1 nulls`) {
		t.Errorf("null in a non-nullable column: %v", err)
	}
	if adds, err := w.Close(); err != nil || len(adds) != 0 {
		t.Errorf("nothing written: adds %v, err %v", adds, err)
	}
}

func TestNewWriterRefusesBadOptions(t *testing.T) {
	sc := mustSchema(t, fields("id long", "p string", `s {"type":"struct","fields":[{"name":"x","type":"long","nullable":true,"metadata":{}}]}`))
	cases := []struct {
		opt  Options
		want string
	}{
		{Options{}, "schema"},
		{Options{Schema: sc, PartitionColumns: []string{"nope"}}, `"nope"`},
		{Options{Schema: sc, PartitionColumns: []string{"p", "P"}}, "twice"},
		{Options{Schema: sc, PartitionColumns: []string{"s"}}, `"s"`},
		{Options{Schema: sc, PartitionColumns: []string{"id", "p", "s"}}, "cannot be a partition column"},
		{Options{Schema: sc, Compression: "lzo"}, "lzo"},
		{Options{Schema: sc, TargetFileSize: -1}, "negative"},
		{Options{Schema: sc, ColumnMapping: "weird"}, "weird"},
		{Options{Schema: sc, Properties: protocol.Properties{protocol.PropTargetFileSize: "big"}}, protocol.PropTargetFileSize},
	}
	for _, c := range cases {
		_, err := NewWriter(context.Background(), storage.NewMemory(), c.opt)
		if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want ErrInvalidArgument mentioning %s", c.opt, err, c.want)
		}
	}
}
