package upserttest

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
)

// fixture is a table made by this engine's writer from scripted rows, with
// the model of its content.
type fixture struct {
	t   *testing.T
	uri string
	g   *gen
	tb  *deltalite.Table
}

// newFixture writes rows (made with g.fixedRow) as the table's first
// version.
func newFixture(t *testing.T, sc scenario, rows func(g *gen) [][]any) *fixture {
	t.Helper()
	g := newGen(&sc)
	f := &fixture{t: t, uri: filepath.Join(t.TempDir(), "table"), g: g}
	init := rows(g)
	g.m.apply(init, nil)
	rec := record(g.cols, allColumns(g.cols), init, plain, "", nil)
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if _, err := deltalite.Write(context.Background(), f.uri, rr, deltalite.WriteOptions{PartitionBy: sc.partNames()}); err != nil {
		t.Fatal(err)
	}
	if f.tb, err = deltalite.Open(context.Background(), f.uri); err != nil {
		t.Fatal(err)
	}
	return f
}

// source makes an engine source of rows in the given record batches
// (each a slice of rows); flags, when not nil, add the delete column.
func (f *fixture) source(enc encoding, flags [][]bool, chunks ...[][]any) array.RecordReader {
	f.t.Helper()
	var recs []arrow.RecordBatch
	var sc *arrow.Schema
	for i, rows := range chunks {
		var fl []bool
		if flags != nil {
			fl = flags[i]
		}
		rec := record(f.g.cols, allColumns(f.g.cols), rows, enc, deleteColumn, fl)
		sc = rec.Schema()
		recs = append(recs, rec)
	}
	if sc == nil {
		rec := record(f.g.cols, allColumns(f.g.cols), nil, enc, "", nil)
		sc = rec.Schema()
		rec.Release()
	}
	rr, err := array.NewRecordReader(sc, recs)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	return rr
}

func (f *fixture) upsert(opts deltalite.UpsertOptions, src array.RecordReader) (deltalite.UpsertStats, error) {
	f.t.Helper()
	defer src.Release()
	if opts.PrimaryKeys == nil {
		opts.PrimaryKeys = f.g.sc.keyNames()
	}
	return f.tb.Upsert(context.Background(), src, opts)
}

// check compares the table (freshly opened) with the model and its version
// with want.
func (f *fixture) check(label string, version int64) {
	f.t.Helper()
	got, v := readLines(f.t, f.uri)
	if v != version {
		f.t.Errorf("%s: table at version %d, want %d", label, v, version)
	}
	sameLines(f.t, label, got, f.g.m.lines(), "table", "model")
}

// dataFiles lists the Parquet files under the table directory.
func dataFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.Contains(p, "_delta_log") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestDuplicateKeysRejected: two source rows with one identity are an
// invalid-argument error naming the key and its partition, whatever the
// key type and wherever the rows are in the source; the table is
// unchanged and no file is left behind. The same key in two partitions,
// and null keys, are not duplicates.
func TestDuplicateKeysRejected(t *testing.T) {
	type dupCase struct {
		name string
		keys []column
		// rows of the batch (fixedRow values: keys, day, v); flags mark
		// deletes (nil: no delete column).
		rows  func(g *gen) [][][]any
		flags [][]bool
		want  []string // in the message
	}
	cases := []dupCase{
		{name: "int64", keys: []column{{name: "id", kind: kInt64}},
			rows: func(g *gen) [][][]any {
				return [][][]any{{g.fixedRow(int64(7), "2026-07-20", int64(1)), g.fixedRow(int64(8), "2026-07-20", int64(1)),
					g.fixedRow(int64(7), "2026-07-20", int64(2))}}
			},
			want: []string{"id=7", "2026-07-20"}},
		{name: "across_record_batches", keys: []column{{name: "id", kind: kInt64}},
			rows: func(g *gen) [][][]any {
				return [][][]any{{g.fixedRow(int64(1), "2026-07-21", int64(1))}, {g.fixedRow(int64(2), "2026-07-21", int64(1))},
					{g.fixedRow(int64(1), "2026-07-21", int64(2))}}
			},
			want: []string{"id=1", "2026-07-21"}},
		{name: "nan", keys: []column{{name: "x", kind: kF64}},
			rows: func(g *gen) [][][]any {
				return [][][]any{{g.fixedRow(math.NaN(), "2026-07-20", int64(1)), g.fixedRow(math.NaN(), "2026-07-20", int64(2))}}
			},
			want: []string{"x=NaN"}},
		{name: "composite_dictionary", keys: []column{{name: "name", kind: kString, dict: true}, {name: "n", kind: kInt32}},
			rows: func(g *gen) [][][]any {
				return [][][]any{{g.fixedRow("a", int64(1), "2026-07-20", int64(1)), g.fixedRow("a", int64(2), "2026-07-20", int64(1)),
					g.fixedRow("b", int64(1), "2026-07-20", int64(1)), g.fixedRow("a", int64(1), "2026-07-20", int64(2))}}
			},
			want: []string{"name=a", "n=1"}},
		{name: "decimal", keys: []column{{name: "d", kind: kDec38}},
			rows: func(g *gen) [][][]any {
				v := kDec38.keyValue(5)
				return [][][]any{{g.fixedRow(v, "2026-07-20", int64(1)), g.fixedRow(v, "2026-07-20", int64(2))}}
			},
			want: []string{"d="}},
		{name: "delete_and_upsert", keys: []column{{name: "id", kind: kInt64}},
			rows: func(g *gen) [][][]any {
				return [][][]any{{g.fixedRow(int64(3), "2026-07-20", int64(1)), g.fixedRow(int64(3), "2026-07-20", int64(2))}}
			},
			flags: [][]bool{{false, true}},
			want:  []string{"id=3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := base("dup_"+c.name, c.keys...)
			f := newFixture(t, sc, func(g *gen) [][]any {
				var rows [][]any
				for i := range 6 {
					key := g.keyTuple(i)
					rows = append(rows, g.fixedRow(append(key, "2026-07-20", int64(i))...))
				}
				return rows
			})
			before := dataFiles(t, f.uri)
			opts := deltalite.UpsertOptions{}
			if c.flags != nil {
				opts.DeleteColumn = deleteColumn
			}
			_, err := f.upsert(opts, f.source(encoding{dicts: true}, c.flags, c.rows(f.g)...))
			if !errors.Is(err, deltalite.ErrInvalidArgument) {
				t.Fatalf("want an invalid-argument error, got %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not name %q: %v", w, err)
				}
			}
			f.check("after the refused batch", 0)
			if after := dataFiles(t, f.uri); !slices.Equal(before, after) {
				t.Errorf("files left behind: before %v, after %v", before, after)
			}
		})
	}
	t.Run("not_duplicates", func(t *testing.T) {
		sc := base("dup_not", column{name: "id", kind: kString}, column{name: "n", kind: kInt64})
		f := newFixture(t, sc, func(g *gen) [][]any {
			return [][]any{g.fixedRow("a", int64(1), "2026-07-20", int64(0))}
		})
		g := f.g
		batch := [][]any{
			g.fixedRow("a", int64(1), "2026-07-20", int64(1)),
			g.fixedRow("a", int64(1), "2026-07-21", int64(2)), // same key, other partition
			g.fixedRow(nil, int64(1), "2026-07-20", int64(3)), // null keys never collide
			g.fixedRow(nil, int64(1), "2026-07-20", int64(4)),
			g.fixedRow("a", nil, "2026-07-20", int64(5)),
			g.fixedRow(nil, nil, "2026-07-20", int64(6)),
		}
		st, err := f.upsert(deltalite.UpsertOptions{}, f.source(plain, nil, batch))
		if err != nil {
			t.Fatal(err)
		}
		want := g.m.apply(batch, nil)
		if st.RowsUpdated != want.updated || st.RowsInserted != want.inserted || st.NullPKRows != want.nullKeys {
			t.Errorf("stats %v, want %+v", st, want)
		}
		f.check("after the batch", 1)
	})
}

// appVersion is the version of appID the table's log records.
func appVersion(t testing.TB, uri, appID string) (int64, bool) {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	return tb.Snapshot().AppTransactionVersion(appID)
}

// TestRedelivery: an upsert carrying (AppID, AppVersion) commits a txn
// action; delivering it again, or an older version, is skipped and changes
// nothing, null-key rows included; a newer version and another AppID
// apply. Without an AppID, running a null-free batch again updates every
// row and changes nothing either.
func TestRedelivery(t *testing.T) {
	sc := base("redelivery", column{name: "id", kind: kString})
	f := newFixture(t, sc, func(g *gen) [][]any {
		return [][]any{g.fixedRow("a", "2026-07-20", int64(1)), g.fixedRow("b", "2026-07-20", int64(1)),
			g.fixedRow("c", "2026-07-21", int64(1))}
	})
	g := f.g
	b1 := [][]any{g.fixedRow("a", "2026-07-20", int64(2)), g.fixedRow("d", "2026-07-20", int64(2)),
		g.fixedRow(nil, "2026-07-21", int64(2))}
	opts := deltalite.UpsertOptions{AppID: "sync", AppVersion: 1, CommitMetadata: map[string]any{"batch": "b1"}}
	st, err := f.upsert(opts, f.source(plain, nil, b1))
	if err != nil || st.Skipped || st.Version != 1 || st.RowsUpdated != 1 || st.RowsInserted != 2 || st.NullPKRows != 1 {
		t.Fatalf("first delivery: %v, %v", st, err)
	}
	g.m.apply(b1, nil)
	f.check("after the first delivery", 1)
	if v, ok := appVersion(t, f.uri, "sync"); !ok || v != 1 {
		t.Fatalf("txn version %d, %t", v, ok)
	}

	// The same batch again: skipped, the null-key row is not inserted twice.
	st, err = f.upsert(opts, f.source(plain, nil, b1))
	if err != nil || !st.Skipped || st.Version != 1 || st.FilesAdded != 0 {
		t.Fatalf("redelivery: %v, %v", st, err)
	}
	f.check("after the redelivery", 1)
	// An older version with other rows: skipped as well.
	old := deltalite.UpsertOptions{AppID: "sync", AppVersion: 0}
	st, err = f.upsert(old, f.source(plain, nil, [][]any{g.fixedRow("z", "2026-07-20", int64(9))}))
	if err != nil || !st.Skipped {
		t.Fatalf("older version: %v, %v", st, err)
	}
	f.check("after an older version", 1)

	// A newer version applies; so does another application at version 1.
	b2 := [][]any{g.fixedRow("b", "2026-07-20", int64(3))}
	st, err = f.upsert(deltalite.UpsertOptions{AppID: "sync", AppVersion: 2}, f.source(plain, nil, b2))
	if err != nil || st.Skipped || st.Version != 2 || st.RowsUpdated != 1 {
		t.Fatalf("version 2: %v, %v", st, err)
	}
	g.m.apply(b2, nil)
	b3 := [][]any{g.fixedRow("c", "2026-07-21", int64(4))}
	st, err = f.upsert(deltalite.UpsertOptions{AppID: "other", AppVersion: 1}, f.source(plain, nil, b3))
	if err != nil || st.Skipped || st.Version != 3 {
		t.Fatalf("other app: %v, %v", st, err)
	}
	g.m.apply(b3, nil)
	f.check("after versions 2 and other/1", 3)

	// An empty batch commits nothing, unless asked; the tagged empty
	// commit records the txn, so its redelivery is skipped.
	st, err = f.upsert(deltalite.UpsertOptions{AppID: "sync", AppVersion: 3}, f.source(plain, nil))
	if err != nil || st.Skipped || st.Version != 3 {
		t.Fatalf("empty batch: %v, %v", st, err)
	}
	f.check("after an empty batch", 3)
	empty := deltalite.UpsertOptions{AppID: "sync", AppVersion: 3, AllowEmptyCommit: true, CommitMetadata: map[string]any{"batch": "empty"}}
	st, err = f.upsert(empty, f.source(plain, nil, [][]any{}))
	if err != nil || st.Skipped || st.Version != 4 || st.FilesAdded != 0 || st.FilesRemoved != 0 {
		t.Fatalf("empty commit: %v, %v", st, err)
	}
	if v, _ := appVersion(t, f.uri, "sync"); v != 3 {
		t.Fatalf("txn version after the empty commit: %d", v)
	}
	st, err = f.upsert(empty, f.source(plain, nil))
	if err != nil || !st.Skipped || st.Version != 4 {
		t.Fatalf("empty commit redelivered: %v, %v", st, err)
	}
	f.check("after the empty commit", 4)

	// The commit metadata is in the history.
	h, err := f.tb.History(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	tags := map[int64]any{}
	for _, c := range h {
		if c.Info != nil {
			tags[c.Version] = c.Info.Raw["batch"]
		}
	}
	if tags[1] != "b1" || tags[4] != "empty" {
		t.Errorf("commit metadata: %v", tags)
	}

	// Without an AppID a null-free batch runs again as updates only.
	b4 := [][]any{g.fixedRow("a", "2026-07-20", int64(5)), g.fixedRow("e", "2026-07-22", int64(5))}
	for round, want := range []counts{{updated: 1, inserted: 1}, {updated: 2}} {
		st, err = f.upsert(deltalite.UpsertOptions{}, f.source(plain, nil, b4))
		if err != nil || st.RowsUpdated != want.updated || st.RowsInserted != want.inserted {
			t.Fatalf("plain rerun %d: %v, %v", round, st, err)
		}
	}
	g.m.apply(b4, nil)
	f.check("after the reruns", 6)
}

// TestDeleteSemantics: delete rows remove their key in their partition
// only; deleting an absent key or a null key does nothing; deletes and
// upserts land in one commit with exact counts.
func TestDeleteSemantics(t *testing.T) {
	sc := base("deletes", column{name: "id", kind: kInt64}, column{name: "sub", kind: kString})
	f := newFixture(t, sc, func(g *gen) [][]any {
		var rows [][]any
		for i := range 10 {
			rows = append(rows, g.fixedRow(int64(i), "x", "2026-07-20", int64(0)), g.fixedRow(int64(i), "x", "2026-07-21", int64(0)))
		}
		return append(rows, g.fixedRow(nil, "x", "2026-07-20", int64(0)))
	})
	g := f.g
	upserts := [][]any{g.fixedRow(int64(1), "x", "2026-07-20", int64(1)), g.fixedRow(int64(42), "x", "2026-07-20", int64(1))}
	deletes := [][]any{
		g.fixedRow(int64(2), "x", "2026-07-20", int64(0)),  // deletes in 07-20 only
		g.fixedRow(int64(3), "y", "2026-07-21", int64(0)),  // absent: other sub
		g.fixedRow(int64(99), "x", "2026-07-22", int64(0)), // absent partition
		g.fixedRow(nil, "x", "2026-07-20", int64(0)),       // a null key matches nothing
	}
	rows := append(slices.Clone(upserts), deletes...)
	flags := []bool{false, false, true, true, true, true}
	st, err := f.upsert(deltalite.UpsertOptions{DeleteColumn: deleteColumn, CommitMetadata: map[string]any{"k": "v"}},
		f.source(plain, [][]bool{flags}, rows))
	if err != nil {
		t.Fatal(err)
	}
	want := g.m.apply(upserts, deletes)
	if st.RowsDeleted != want.deleted || st.RowsUpdated != want.updated || st.RowsInserted != want.inserted ||
		st.Version != 1 || st.SourceRows != int64(len(rows)) {
		t.Errorf("stats %v, want %+v", st, want)
	}
	f.check("after deletes", 1)
	// Deleting every row of a partition leaves it empty.
	var all [][]any
	for i := range 10 {
		all = append(all, g.fixedRow(int64(i), "x", "2026-07-21", int64(0)))
	}
	fl := make([]bool, len(all))
	for i := range fl {
		fl[i] = true
	}
	st, err = f.upsert(deltalite.UpsertOptions{DeleteColumn: deleteColumn}, f.source(plain, [][]bool{fl}, all))
	if err != nil || st.RowsDeleted != 10 || st.FilesAdded != 0 {
		t.Fatalf("delete a partition: %v, %v", st, err)
	}
	g.m.apply(nil, all)
	f.check("after emptying a partition", 2)
}
