package cloudtest

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
)

// TestProcessAppendRace: four writer processes append five rows each, one
// row per commit, to one table at the same time. Every version is won by
// exactly one writer: the versions are contiguous, each reported version
// holds its writer's row and the one before does not, and every row lands
// exactly once.
func TestProcessAppendRace(t *testing.T) {
	const writers, appends = 4, 5
	eachCloud(t, false, func(t *testing.T, c *cloud) {
		uri := c.tableURI("race-")
		seed := person{-1, "seed", "seed"}
		c.write(t, uri, people(seed), deltalite.WriteOptions{PartitionBy: []string{"day"}})

		results := raceWriters(t, "append", uri, c.opts, []int{0, 1, 2, 3}, appends)
		byVersion := map[int64]int64{} // version -> id
		want := []person{seed}
		conflicts := 0
		for _, r := range results {
			if len(r.committed) != appends {
				t.Fatalf("writer %d committed %d appends, want %d:\n%v", r.writer, len(r.committed), appends, r.lines)
			}
			for id, v := range r.committed {
				if other, dup := byVersion[v]; dup {
					t.Fatalf("version %d reported by the writers of rows %d and %d", v, other, id)
				}
				byVersion[v] = id
			}
			for i := range appends {
				want = append(want, person{int64(r.writer*1000 + i), fmt.Sprintf("w%d", r.writer), fmt.Sprintf("p%d", r.writer)})
			}
			conflicts += r.conflicts
		}
		t.Logf("%d commits, %d writes gave up a commit with ErrCommitConflict and were retried", len(byVersion), conflicts)
		versions := slices.Sorted(maps.Keys(byVersion))
		for i, v := range versions {
			if v != int64(i+1) {
				t.Fatalf("reported versions %v are not 1..%d", versions, writers*appends)
			}
		}

		tb := c.open(t, uri)
		if tb.Version() != writers*appends {
			t.Fatalf("table at version %d, want %d", tb.Version(), writers*appends)
		}
		sameLines(t, "rows after the race", scanLines(t, tb), lines(want...))
		hist, err := tb.History(ctxFor(t, 30*time.Second), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != writers*appends+1 {
			t.Fatalf("history has %d commits, want %d", len(hist), writers*appends+1)
		}
		retried := 0 // commits made after losing the race for an earlier version
		for i, h := range hist {
			if h.Version != int64(writers*appends-i) {
				t.Fatalf("history[%d] is version %d", i, h.Version)
			}
			if h.Info.ReadVersion != nil && *h.Info.ReadVersion < h.Version-1 {
				retried++
			}
			if h.Version > 0 && (h.Info.Operation != "WRITE" || h.Info.IsBlindAppend == nil || !*h.Info.IsBlindAppend) {
				t.Fatalf("version %d: operation %s, blind append %v", h.Version, h.Info.Operation, h.Info.IsBlindAppend)
			}
		}
		t.Logf("%d of %d commits were won after losing the race for an earlier version", retried, writers*appends)
		if retried == 0 {
			t.Fatalf("no writer ever lost a race: the writers did not overlap, so this run proves nothing")
		}
		// Each version adds exactly the row of the writer that reported it.
		byID := map[int64]string{}
		for _, p := range want {
			byID[p.id] = p.line()
		}
		prev := lines(seed)
		for _, v := range versions {
			_, rows := c.readLines(t, uri, deltalite.WithVersion(v))
			sameLines(t, fmt.Sprintf("version %d", v), rows, slices.Sorted(slices.Values(append(slices.Clone(prev), byID[byVersion[v]]))))
			prev = rows
		}
	})
}

// TestProcessOverwriteRace: three writer processes overwrite the same
// partition by replace-where, four times each, while a fourth overwrites
// another partition. Every attempt commits or fails with
// ErrCommitConflict; the writer of its own partition never conflicts; the
// shared partition ends with the row of the last committed overwrite and
// the untouched partition with its seed row.
func TestProcessOverwriteRace(t *testing.T) {
	const attempts = 4
	eachCloud(t, false, func(t *testing.T, c *cloud) {
		uri := c.tableURI("overwrite-race-")
		seeds := []person{{-1, "seed", "p0"}, {-2, "seed", "p1"}, {-3, "seed", "p2"}}
		c.write(t, uri, people(seeds...), deltalite.WriteOptions{PartitionBy: []string{"day"}})

		partitions := []int{0, 0, 0, 1} // writers 0-2 share p0, writer 3 has p1
		results := raceWriters(t, "overwrite", uri, c.opts, partitions, attempts)
		byVersion := map[int64]person{}
		conflicts := 0
		for _, r := range results {
			if len(r.committed)+r.conflicts != attempts {
				t.Fatalf("writer %d: %d commits and %d conflicts of %d attempts:\n%v", r.writer, len(r.committed), r.conflicts, attempts, r.lines)
			}
			if partitions[r.writer] == 1 && r.conflicts > 0 {
				t.Errorf("the writer of its own partition hit %d conflicts", r.conflicts)
			}
			for id, v := range r.committed {
				if _, dup := byVersion[v]; dup {
					t.Fatalf("version %d reported twice", v)
				}
				byVersion[v] = person{id, fmt.Sprintf("w%d", r.writer), fmt.Sprintf("p%d", partitions[r.writer])}
			}
			conflicts += r.conflicts
		}
		t.Logf("%d overwrites committed, %d failed with ErrCommitConflict", len(byVersion), conflicts)
		versions := slices.Sorted(maps.Keys(byVersion))
		for i, v := range versions {
			if v != int64(i+1) {
				t.Fatalf("reported versions %v are not contiguous from 1", versions)
			}
		}
		last := map[string]person{"p2": seeds[2]}
		for _, v := range versions {
			last[byVersion[v].day] = byVersion[v]
		}
		if _, ok := last["p0"]; !ok {
			t.Fatalf("no overwrite of the shared partition committed")
		}
		v, rows := c.readLines(t, uri)
		if v != int64(len(versions)) {
			t.Fatalf("table at version %d, but %d commits were reported", v, len(versions))
		}
		sameLines(t, "rows after the race", rows, lines(slices.Collect(maps.Values(last))...))
		// Every committed overwrite is visible at its version.
		for _, v := range versions {
			tb := c.open(t, uri, deltalite.WithVersion(v))
			if !slices.Contains(scanLines(t, tb), byVersion[v].line()) {
				t.Fatalf("version %d lacks the row of its overwrite %s", v, byVersion[v].line())
			}
		}
	})
}
