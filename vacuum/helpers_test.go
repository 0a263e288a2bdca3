package vacuum_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

var ctx = context.Background()

func rows(ids []int64, days []string) array.RecordReader {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "day", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	b.Field(1).(*array.StringBuilder).AppendValues(days, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	r, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		panic(err)
	}
	return r
}

func write(t testing.TB, uri string, ids []int64, days []string, opts deltalite.WriteOptions) {
	t.Helper()
	if opts.Mode == "" {
		opts.Mode = deltalite.ModeAppend
	}
	opts.PartitionBy = []string{"day"}
	if _, err := deltalite.Write(ctx, uri, rows(ids, days), opts); err != nil {
		t.Fatal(err)
	}
}

// ids reads the table at version v (the current one when v < 0).
func ids(t testing.TB, uri string, v int64) ([]int64, error) {
	t.Helper()
	var opts []deltalite.Option
	if v >= 0 {
		opts = append(opts, deltalite.WithVersion(v))
	}
	tb, err := deltalite.Open(ctx, uri, opts...)
	if err != nil {
		return nil, err
	}
	_, batches, err := tb.Scan().Records(ctx)
	if err != nil {
		return nil, err
	}
	var out []int64
	for rec, err := range batches {
		if err != nil {
			return nil, err
		}
		col := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
		out = append(out, col.Int64Values()...)
		rec.Release()
	}
	slices.Sort(out)
	return out, nil
}

// commit writes actions as one commit of op.
func commit(t testing.TB, st storage.Store, op string, actions ...protocol.Action) {
	t.Helper()
	snap, err := snapshot.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	tx := txn.Begin(snap, txn.Operation{Name: op}, txn.Options{})
	tx.Add(actions...)
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// removeAt commits the removal of the live files for which pick is true,
// with deletionTimestamp ts.
func removeAt(t testing.TB, st storage.Store, ts time.Time, pick func(*protocol.Add) bool) []*protocol.Add {
	t.Helper()
	snap, err := snapshot.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	var picked []*protocol.Add
	var actions []protocol.Action
	for _, a := range snap.Files() {
		if pick(a) {
			picked = append(picked, a)
			actions = append(actions, protocol.Action{Remove: protocol.RemoveOf(a, ts.UnixMilli())})
		}
	}
	if len(actions) == 0 {
		t.Fatal("nothing to remove")
	}
	commit(t, st, txn.OpDelete, actions...)
	return picked
}

func inDir(dir string) func(*protocol.Add) bool {
	return func(a *protocol.Add) bool { return strings.HasPrefix(a.Path, dir+"/") }
}

// age sets the modification time of every file under dir outside
// _delta_log to when.
func age(t testing.TB, dir string, when time.Time) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, "_delta_log") {
			return err
		}
		return os.Chtimes(p, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// put writes a file under dir with modification time when.
func put(t testing.TB, dir, key string, when time.Time) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

// withDV commits a DV deleting row 0 of the live file for which pick is
// true (remove and re-add, as engines do) and returns the DV's key.
func withDV(t testing.TB, st storage.Store, pick func(*protocol.Add) bool) string {
	t.Helper()
	snap, err := snapshot.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range snap.Files() {
		if !pick(a) {
			continue
		}
		d, err := dv.Write(ctx, st, dv.NewBitmap(0))
		if err != nil {
			t.Fatal(err)
		}
		na := *a
		na.DeletionVector, na.Stats = d, stats.Loosened(a.Stats, 0)
		commit(t, st, txn.OpDelete, protocol.Action{Remove: protocol.RemoveOf(a, time.Now().UnixMilli())}, protocol.Action{Add: &na})
		key, err := dv.FileKey(st, d)
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	t.Fatal("no file picked")
	return ""
}

func localStore(t testing.TB, dir string) storage.Store {
	t.Helper()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// keysOf lists the files of dir outside _delta_log.
func keysOf(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !strings.HasPrefix(rel, "_delta_log") {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func fileOf(t testing.TB, st storage.Store, pick func(*protocol.Add) bool) string {
	t.Helper()
	snap, err := snapshot.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range snap.Files() {
		if pick(a) {
			return keyOf(t, st, a.Path)
		}
	}
	t.Fatal("no file picked")
	return ""
}

func open(t testing.TB, uri string) *deltalite.Table {
	t.Helper()
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// keyOf is the store key of a log path.
func keyOf(t testing.TB, st storage.Store, p string) string {
	t.Helper()
	k, err := protocol.ObjectKey(st.URL(), p)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
