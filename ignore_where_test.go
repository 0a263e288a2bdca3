package deltalite_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/storage"
)

// TestIgnoreWhereDecidesAgain: an ignore-where write is pinned to the
// table it decided on. When another ignore of the same partition commits
// just before this write's first commit attempt, the write decides again
// on the newer table and skips, leaving no file behind; one of another
// partition does not stop it. Both on an existing table and on a missing
// one (the other writer creates it).
func TestIgnoreWhereDecidesAgain(t *testing.T) {
	ctx := context.Background()
	ignore := func(day string, st storage.Store) deltalite.WriteOptions {
		return deltalite.WriteOptions{Mode: deltalite.ModeIgnore, IgnoreWhere: "day = '" + day + "'", PartitionBy: []string{"day"}, Store: st}
	}
	seed := row(0, "seed", "d0")
	for _, c := range []struct {
		name   string
		seeded bool   // the table exists (version 0) before both writes
		theirs string // the partition the other ignore writes
		skip   bool
	}{
		{"same partition", true, "d1", true},
		{"another partition", true, "d2", false},
		{"same partition, creating", false, "d1", true},
		{"another partition, creating", false, "d2", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := storage.NewMemory()
			var want []string
			if c.seeded {
				mustWrite(t, mem.URL(), people(t, []int64{0}, []string{"seed"}, []string{"d0"}), deltalite.WriteOptions{PartitionBy: []string{"day"}, Store: mem})
				want = append(want, seed)
			}
			theirs := int64(len(want)) // the version the other write commits
			st := &firstCommitBy{Store: mem, v: theirs, create: func(st storage.Store) error {
				res, err := deltalite.Write(ctx, st.URL(), people(nil, []int64{1, 2}, []string{"w", "w"}, []string{c.theirs, c.theirs}), ignore(c.theirs, st))
				if err == nil && (res.Skipped || res.Version != theirs) {
					err = fmt.Errorf("the other ignore: %+v", res)
				}
				return err
			}}
			res, err := deltalite.Write(ctx, st.URL(), people(t, []int64{3, 4}, []string{"l", "l"}, []string{"d1", "d1"}), ignore("d1", st))
			if st.err != nil {
				t.Fatalf("the other ignore: %v", st.err)
			}
			if err != nil {
				t.Fatalf("the racing ignore: %v", err)
			}
			want = append(want, row(1, "w", c.theirs), row(2, "w", c.theirs))
			wantVersion := theirs + 1
			if c.skip {
				wantVersion = theirs
			} else {
				want = append(want, row(3, "l", "d1"), row(4, "l", "d1"))
			}
			if res.Skipped != c.skip || res.Version != wantVersion || res.Created || (c.skip && (res.RowsWritten != 0 || res.FilesAdded != 0)) {
				t.Errorf("result %+v, want skipped=%v at version %d", res, c.skip, wantVersion)
			}
			if got := readRows(t, mem.URL(), deltalite.WithStore(mem)); strings.Join(got, "\n") != strings.Join(sortedCopy(want), "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(sortedCopy(want), "\n"))
			}
			tb, err := deltalite.Open(ctx, mem.URL(), deltalite.WithStore(mem))
			if err != nil || tb.Version() != wantVersion {
				t.Fatalf("table at version %v (%v), want %d", tb.Version(), err, wantVersion)
			}
			assertNoOrphans(t, mem)
		})
	}
}

// TestIgnoreWhereOptions: an ignore-where predicate skips a write when
// the table holds a row it selects (decided by the log for a partition
// predicate, by reading for another), appends otherwise, and is refused
// with another mode or a column the table lacks, changing nothing.
func TestIgnoreWhereOptions(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	mustWrite(t, uri, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d1"}), deltalite.WriteOptions{PartitionBy: []string{"day"}})
	for _, c := range []struct {
		where string
		skip  bool
	}{
		{"day = 'd1'", true},
		{"day = 'd2'", false},
		{"name = 'b'", true},
		{"name = 'zz'", false},
	} {
		tb, err := deltalite.Open(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		before := tb.Version()
		res, err := tb.Write(ctx, people(t, []int64{9}, []string{"n"}, []string{"d9"}), deltalite.WriteOptions{Mode: deltalite.ModeIgnore, IgnoreWhere: c.where})
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		if res.Skipped != c.skip || (c.skip && res.Version != before) || (!c.skip && (res.Version != before+1 || res.RowsWritten != 1)) {
			t.Errorf("%s: result %+v, want skipped=%v", c.where, res, c.skip)
		}
	}
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	v := tb.Version()
	for _, c := range []struct {
		wo   deltalite.WriteOptions
		want string
	}{
		{deltalite.WriteOptions{Mode: deltalite.ModeAppend, IgnoreWhere: "day = 'd1'"}, `ignore-where predicate (Options.IgnoreWhere) needs mode ignore, not "append"`},
		{deltalite.WriteOptions{Mode: deltalite.ModeIgnore, IgnoreWhere: "nope = 1"}, "ignore-where predicate (Options.IgnoreWhere)"},
	} {
		_, err := tb.Write(ctx, people(t, []int64{9}, []string{"n"}, []string{"d9"}), c.wo)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, deltalite.ErrInvalidArgument) {
			t.Errorf("%+v: %v, want an invalid-argument error containing %q", c.wo, err, c.want)
		}
	}
	if tb, err := deltalite.Open(ctx, uri); err != nil || tb.Version() != v {
		t.Fatalf("a refused write committed (%v)", err)
	}
}
