package rewrite_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/write"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "p", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// newTable writes each JSON batch as one append to a partitioned table.
func newTable(t *testing.T, batches ...string) (string, *snapshot.Snapshot) {
	t.Helper()
	dir := t.TempDir()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := op.SourceSchema(dir, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := op.Empty(st, sc, op.NewTableOptions{PartitionBy: []string{"p"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, testSchema, strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		rr, _ := array.NewRecordReader(testSchema, []arrow.RecordBatch{rec})
		if _, snap, err = write.Run(context.Background(), snap, rr, write.Options{Mode: write.ModeAppend}); err != nil {
			t.Fatal(err)
		}
	}
	if snap.IsEmpty() {
		t.Fatal("no batches written")
	}
	return dir, snap
}

func rows(t *testing.T, snap *snapshot.Snapshot) []string {
	t.Helper()
	_, seq, err := scan.New(snap).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	return arrowrows.Rows(recs...)
}

func commit(t *testing.T, snap *snapshot.Snapshot, res rewrite.Result) *snapshot.Snapshot {
	t.Helper()
	tx := txn.Begin(snap, txn.Operation{Name: txn.OpDelete}, txn.Options{})
	for _, r := range res.Removes {
		tx.Add(protocol.Action{Remove: r})
	}
	for _, a := range res.Adds {
		tx.Add(protocol.Action{Add: a})
	}
	out, err := tx.Commit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return out.Snapshot
}

func parquetFiles(t *testing.T, dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			n++
		}
		return nil
	})
	return n
}

var threeFiles = []string{
	`[{"id":1,"x":1,"p":"a"},{"id":2,"x":null,"p":"a"},{"id":3,"x":30,"p":"a"}]`,
	`[{"id":4,"x":4,"p":"a"},{"id":5,"x":5,"p":"b"}]`,
	`[{"id":6,"x":60,"p":"b"},{"id":7,"x":7,"p":"b"}]`,
}

// keepNot keeps the rows for which pred IS NOT TRUE.
func keepNot(pred *expr.Bound) rewrite.Func {
	return func(ctx context.Context, b rewrite.Batch) (rewrite.Output, error) {
		m, err := expr.Mask(ctx, b.Rec, pred)
		if err != nil {
			return rewrite.Output{}, err
		}
		defer m.Release()
		keep := make([]bool, m.Len())
		for i := range keep {
			keep[i] = m.IsNull(i) || !m.Value(i)
		}
		return rewrite.Output{Keep: keep}, nil
	}
}

func TestMatchingThenDropRows(t *testing.T) {
	_, snap := newTable(t, threeFiles...)
	pred, err := expr.ParsePredicate("x > 10", snap.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var undecided []*protocol.Add
	decide := op.Decide(snap, pred)
	for _, a := range snap.Files() {
		if decide(a) == expr.Unknown {
			undecided = append(undecided, a)
		}
	}
	files, err := rewrite.Matching(context.Background(), snap, undecided, pred, rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Only the files holding 30 and 60 match; 4 and 5 and 7 do not.
	if len(files) != 2 {
		t.Fatalf("matching files: got %d, want 2 (%v)", len(files), files)
	}
	res, err := rewrite.Run(context.Background(), snap, files, keepNot(pred), rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Counts
	if c.FilesRead != 2 || c.RowsRead != 5 || c.RowsDropped != 2 || c.RowsKept != 3 || c.RowsCopied() != 3 || c.RowsChanged != 0 {
		t.Errorf("counts: %+v", c)
	}
	if len(res.Removes) != 2 || !res.Removes[0].DataChange || res.Removes[0].Size == nil || *res.Removes[0].Size != files[0].Size {
		t.Errorf("removes: %+v", res.Removes[0])
	}
	if c.BytesRemoved != files[0].Size+files[1].Size || c.BytesAdded == 0 || len(res.Adds) != c.FilesAdded {
		t.Errorf("bytes: %+v", c)
	}
	post := commit(t, snap, res)
	want := []string{
		`id=1, p="a", x=1`, `id=2, p="a", x=null`, `id=4, p="a", x=4`, `id=5, p="b", x=5`, `id=7, p="b", x=7`,
	}
	arrowrows.Diff(t, rows(t, post), want)
}

// An UPDATE-shaped function: x = x * 10 and p = 'c' where id is even; the
// rows move to partition c.
func TestReplaceMovesPartitionAndAppend(t *testing.T) {
	_, snap := newTable(t, threeFiles...)
	fn := func(ctx context.Context, b rewrite.Batch) (rewrite.Output, error) {
		n := int(b.Rec.NumRows())
		ids := b.Rec.Column(0).(*array.Int64)
		xs := b.Rec.Column(1).(*array.Int64)
		ps := b.Rec.Column(2).(*array.String)
		xb := array.NewInt64Builder(memory.DefaultAllocator)
		pb := array.NewStringBuilder(memory.DefaultAllocator)
		defer xb.Release()
		defer pb.Release()
		updated := make([]bool, n)
		for i := range n {
			if ids.Value(i)%2 == 0 {
				updated[i] = true
				if xs.IsNull(i) {
					xb.AppendNull()
				} else {
					xb.Append(xs.Value(i) * 10)
				}
				pb.Append("c")
				continue
			}
			if xs.IsNull(i) {
				xb.AppendNull()
			} else {
				xb.Append(xs.Value(i))
			}
			pb.Append(ps.Value(i))
		}
		x, p := xb.NewArray(), pb.NewArray()
		defer x.Release()
		defer p.Release()
		return rewrite.Output{Replace: array.NewRecordBatch(b.Rec.Schema(), []arrow.Array{b.Rec.Column(0), x, p}, int64(n)), Updated: updated}, nil
	}
	ins, _, _ := array.RecordFromJSON(memory.DefaultAllocator, testSchema, strings.NewReader(`[{"id":9,"x":9,"p":"d"}]`))
	defer ins.Release()
	opt := rewrite.Options{ReadBatchSize: 1, Append: func(ctx context.Context, write func(arrow.RecordBatch) error) error {
		return write(ins)
	}}
	res, err := rewrite.Run(context.Background(), snap, snap.Files(), fn, opt)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Counts; c.RowsRead != 7 || c.RowsChanged != 3 || c.RowsCopied() != 4 || c.RowsAppended != 1 || c.RowsDropped != 0 {
		t.Errorf("counts: %+v", c)
	}
	post := commit(t, snap, res)
	want := []string{
		`id=1, p="a", x=1`, `id=2, p="c", x=null`, `id=3, p="a", x=30`, `id=4, p="c", x=40`, `id=5, p="b", x=5`,
		`id=6, p="c", x=600`, `id=7, p="b", x=7`, `id=9, p="d", x=9`,
	}
	arrowrows.Diff(t, rows(t, post), want)
	var cParts int
	for _, a := range post.Files() {
		if a.PartitionValues["p"] == "c" {
			cParts++
		}
	}
	if cParts == 0 {
		t.Error("no file in partition c: the moved rows were not partitioned by their new values")
	}
}

// A failing function leaves no data file behind, also when the writer
// had stored files before the failure.
func TestFailureDeletesWrittenFiles(t *testing.T) {
	var big strings.Builder
	big.WriteString("[")
	for i := range 40000 {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"id":%d,"x":%d,"p":"a"}`, i, i*7)
	}
	big.WriteString("]")
	dir, snap := newTable(t, big.String(), threeFiles[2])
	before := parquetFiles(t, dir)
	boom := errs.New(errs.InvalidArgument, "", "boom")
	var seen atomic.Int64
	fn := func(ctx context.Context, b rewrite.Batch) (rewrite.Output, error) {
		if b.File.PartitionValues["p"] == "b" {
			return rewrite.Output{}, boom
		}
		seen.Add(b.Rec.NumRows())
		return rewrite.Output{}, nil
	}
	// One file at a time, the big one first: with a small buffer and a
	// small target size its rows are stored as files before the failure.
	files := snap.Files()
	slices.SortFunc(files, func(a, b *protocol.Add) int { return strings.Compare(a.PartitionValues["p"], b.PartitionValues["p"]) })
	var stored int
	opt := rewrite.Options{MaxParallelFiles: 1, TargetFileSize: 32 << 10, MaxBufferedBytes: 1, ReadBatchSize: 1000,
		Append: func(context.Context, func(arrow.RecordBatch) error) error { return nil }}
	_, err := rewrite.Run(context.Background(), snap, files, func(ctx context.Context, b rewrite.Batch) (rewrite.Output, error) {
		if b.File.PartitionValues["p"] == "b" && stored == 0 {
			stored = parquetFiles(t, dir) - before
		}
		return fn(ctx, b)
	}, opt)
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the function's error", err)
	}
	if seen.Load() != 40000 || stored == 0 {
		t.Fatalf("the failure came after %d rows and %d stored files: the test needs both", seen.Load(), stored)
	}
	if after := parquetFiles(t, dir); after != before {
		t.Errorf("data files: %d before, %d after a failed rewrite", before, after)
	}
	// A panic is an error, not a crash.
	_, err = rewrite.Run(context.Background(), snap, snap.Files(), func(context.Context, rewrite.Batch) (rewrite.Output, error) {
		panic("bad")
	}, rewrite.Options{})
	if !errors.Is(err, errs.ErrInternal) {
		t.Fatalf("panic: got %v", err)
	}
	if after := parquetFiles(t, dir); after != before {
		t.Errorf("data files: %d before, %d after a panic", before, after)
	}
}
