package deltalite_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// firstCommitBy is a store on which another writer commits version v
// (by calling create; v 0 creates the table) just before this writer's
// first attempt to commit it, so the race a writer can lose is lost every
// time.
type firstCommitBy struct {
	storage.Store
	v      int64
	once   sync.Once
	create func(storage.Store) error
	err    error
}

func (s *firstCommitBy) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if key == protocol.CommitKey(s.v) {
		s.once.Do(func() { s.err = s.create(s.Store) })
		if s.err != nil {
			return s.err
		}
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

// winner writes rows as the other creator.
func winner(t *testing.T, src func() array.RecordReader, wo deltalite.WriteOptions) func(storage.Store) error {
	return func(st storage.Store) error {
		wo.Mode, wo.Store = deltalite.ModeAppend, st
		_, err := deltalite.Write(context.Background(), st.URL(), src(), wo)
		return err
	}
}

// TestCreatorsRaceAsAppends: a writer in mode append (or overwrite) that
// loses the race to create the table commits on top of the winner's
// table instead of failing; mode ignore skips; an incompatible schema is
// refused naming the cause, and the loser leaves no files behind.
func TestCreatorsRaceAsAppends(t *testing.T) {
	ctx := context.Background()
	theirs := func() array.RecordReader { return people(t, []int64{1}, []string{"w"}, []string{"d1"}) }
	mine := func() array.RecordReader { return people(t, []int64{2}, []string{"l"}, []string{"d2"}) }
	for _, c := range []struct {
		mode deltalite.WriteMode
		want []string
		skip bool
	}{
		{deltalite.ModeAppend, []string{row(1, "w", "d1"), row(2, "l", "d2")}, false},
		{deltalite.ModeOverwrite, []string{row(2, "l", "d2")}, false},
		{deltalite.ModeIgnore, []string{row(1, "w", "d1")}, true},
	} {
		t.Run(string(c.mode), func(t *testing.T) {
			st := &firstCommitBy{Store: storage.NewMemory(), create: winner(t, theirs, deltalite.WriteOptions{PartitionBy: []string{"day"}})}
			res, err := deltalite.Write(ctx, st.URL(), mine(), deltalite.WriteOptions{Mode: c.mode, PartitionBy: []string{"day"}, Store: st})
			if err != nil {
				t.Fatalf("the losing creator failed: %v", err)
			}
			if res.Created || res.Skipped != c.skip || (!c.skip && res.Version != 1) {
				t.Errorf("result %+v", res)
			}
			if got := readRows(t, st.URL(), deltalite.WithStore(st.Store)); strings.Join(got, "\n") != strings.Join(sortedCopy(c.want), "\n") {
				t.Errorf("rows:\n%s", strings.Join(got, "\n"))
			}
			assertNoOrphans(t, st.Store)
		})
	}
	// Another schema: the loser fails, naming why, and leaves nothing.
	other := func() array.RecordReader {
		sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
		return fromJSON(t, sc, `[{"id":"x"}]`)
	}
	st := &firstCommitBy{Store: storage.NewMemory(), create: winner(t, other, deltalite.WriteOptions{})}
	_, err := deltalite.Write(ctx, st.URL(), mine(), deltalite.WriteOptions{Mode: deltalite.ModeAppend, Store: st})
	if !errors.Is(err, deltalite.ErrSchemaMismatch) || !strings.Contains(err.Error(), "another writer created the table first") {
		t.Fatalf("incompatible loser: %v", err)
	}
	assertNoOrphans(t, st.Store)
}

// TestUpsertCreatesInOneCommit: an upsert into a missing table creates it
// in the same commit as its rows (version 0); a failed or empty first
// upsert leaves no table; a creator that loses the race upserts into the
// winner's table.
func TestUpsertCreatesInOneCommit(t *testing.T) {
	ctx := context.Background()
	opts := deltalite.UpsertOptions{PrimaryKeys: []string{"id"}, PartitionBy: []string{"day"}, CreateIfMissing: true,
		Properties: map[string]string{"owner": "sync"}}
	uri := t.TempDir()
	s, err := deltalite.Upsert(ctx, uri, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"}), opts)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 0 || tb.Version() != 0 || s.RowsInserted != 2 {
		t.Fatalf("stats %v, table at version %d", s, tb.Version())
	}
	if got := tb.PartitionColumns(); len(got) != 1 || got[0] != "day" || tb.Metadata().Configuration["owner"] != "sync" {
		t.Errorf("partitions %v, properties %v", got, tb.Metadata().Configuration)
	}
	h, err := tb.History(ctx, 0)
	if err != nil || len(h) != 1 || h[0].Info.Operation != "MERGE" {
		t.Fatalf("history %v (%v)", h, err)
	}
	want := sortedCopy([]string{row(1, "a", "d1"), row(2, "b", "d2")})
	if got := readRows(t, uri); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s", strings.Join(got, "\n"))
	}

	// Duplicate keys, no rows, or no CreateIfMissing: no table.
	for name, c := range map[string]struct {
		src  array.RecordReader
		opts deltalite.UpsertOptions
		kind error
	}{
		"duplicate keys": {people(t, []int64{7, 7}, []string{"a", "b"}, []string{"d", "d"}), opts, deltalite.ErrInvalidArgument},
		"no rows":        {people(t, nil, nil, nil), opts, nil},
		"not asked":      {people(t, []int64{1}, []string{"a"}, []string{"d"}), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}}, deltalite.ErrTableNotFound},
		"bad key":        {people(t, []int64{1}, []string{"a"}, []string{"d"}), deltalite.UpsertOptions{PrimaryKeys: []string{"nope"}, CreateIfMissing: true}, deltalite.ErrSchemaMismatch},
	} {
		dir := t.TempDir()
		_, err := deltalite.Upsert(ctx, dir, c.src, c.opts)
		if (c.kind == nil) != (err == nil) || (c.kind != nil && !errors.Is(err, c.kind)) {
			t.Errorf("%s: err = %v, want %v", name, err, c.kind)
		}
		if ok, _ := deltalite.IsDeltaTable(ctx, dir); ok {
			t.Errorf("%s: a table was left behind", name)
		}
		assertNoOrphans(t, mustStore(t, dir))
	}

	// Losing the race to create: the upsert goes into the winner's table.
	st := &firstCommitBy{Store: storage.NewMemory(), create: func(st storage.Store) error {
		o := opts
		o.Store = st
		_, err := deltalite.Upsert(ctx, st.URL(), people(t, []int64{1, 3}, []string{"w", "w"}, []string{"d1", "d1"}), o)
		return err
	}}
	opts.Store = st
	s, err = deltalite.Upsert(ctx, st.URL(), people(t, []int64{1, 2}, []string{"l", "l"}, []string{"d1", "d2"}), opts)
	if err != nil {
		t.Fatalf("losing creator: %v", err)
	}
	if s.Version != 1 || s.RowsUpdated != 1 || s.RowsInserted != 1 {
		t.Errorf("losing creator's stats %v", s)
	}
	want = sortedCopy([]string{row(1, "l", "d1"), row(3, "w", "d1"), row(2, "l", "d2")})
	if got := readRows(t, st.URL(), deltalite.WithStore(st.Store)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows after the race:\n%s", strings.Join(got, "\n"))
	}
	assertNoOrphans(t, st.Store)
}

func mustStore(t *testing.T, dir string) storage.Store {
	t.Helper()
	st, err := storage.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// assertNoOrphans fails when a data file is neither live nor removed in
// the table (or exists with no table).
func assertNoOrphans(t *testing.T, st storage.Store) {
	t.Helper()
	live := map[string]bool{}
	if tb, err := deltalite.Open(context.Background(), st.URL(), deltalite.WithStore(st)); err == nil {
		for _, a := range tb.Snapshot().Files() {
			k, _ := protocol.DecodePath(a.Path)
			live[k] = true
		}
		for _, r := range tb.Snapshot().Tombstones() {
			k, _ := protocol.DecodePath(r.Path)
			live[k] = true
		}
	}
	for o, err := range st.List(context.Background(), "", "") {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(o.Key, ".parquet") && !live[o.Key] {
			t.Errorf("orphan data file %s", o.Key)
		}
	}
}
