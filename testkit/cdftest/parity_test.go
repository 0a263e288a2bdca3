package cdftest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/testkit/peers"
)

// same reports whether two sorted sets of change rows are equal as
// multisets, and fails t with the rows only one side has when not.
func same(t *testing.T, gotName string, got []string, wantName string, want []string) bool {
	t.Helper()
	if slices.Equal(got, want) {
		return true
	}
	var onlyGot, onlyWant []string
	for len(got) > 0 || len(want) > 0 {
		switch {
		case len(want) == 0 || len(got) > 0 && got[0] < want[0]:
			onlyGot, got = append(onlyGot, got[0]), got[1:]
		case len(got) == 0 || want[0] < got[0]:
			onlyWant, want = append(onlyWant, want[0]), want[1:]
		default:
			got, want = got[1:], want[1:]
		}
	}
	t.Errorf("%s and %s differ\n  only in %s:\n    %s\n  only in %s:\n    %s",
		gotName, wantName, gotName, clip(onlyGot), wantName, clip(onlyWant))
	return false
}

func clip(rows []string) string {
	if len(rows) == 0 {
		return "(none)"
	}
	if len(rows) > 12 {
		return strings.Join(rows[:12], "\n    ") + fmt.Sprintf("\n    ... (%d more)", len(rows)-12)
	}
	return strings.Join(rows, "\n    ")
}

// written is a table a sequence wrote and the change rows the model
// expects of it.
type written struct {
	sq   *sequence
	dir  string
	want []string
	err  error
}

// writeAll runs every seed's sequence with the engine, two at a time.
func writeAll(root string, seeds []uint64) []*written {
	out := make([]*written, len(seeds))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, seed := range seeds {
		w := &written{sq: newSequence(seed, opsPerSequence), dir: filepath.Join(root, fmt.Sprintf("seed%d", seed))}
		out[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			w.want, w.err = writeOurs(context.Background(), w.dir, w.sq)
		}()
	}
	wg.Wait()
	return out
}

// TestChangesMatchModel (no peers): on tables the engine writes with
// random sequences, Table.Changes shows exactly the change rows the model
// expects, version by version.
func TestChangesMatchModel(t *testing.T) {
	for _, w := range writeAll(t.TempDir(), seeds(*nSeeds, 100, 10)) {
		t.Run(fmt.Sprintf("seed=%d", w.sq.seed), func(t *testing.T) {
			if w.err != nil {
				t.Fatalf("%v\n%s", w.err, reproduce("TestChangesMatchModel", w.sq))
			}
			got, err := ourChanges(context.Background(), w.dir)
			if err != nil {
				t.Fatalf("Changes: %v\n%s", err, reproduce("TestChangesMatchModel", w.sq))
			}
			if !same(t, "Changes", got, "the model", w.want) {
				t.Log(reproduce("TestChangesMatchModel", w.sq))
			}
		})
	}
}

// TestPeersReadOurChangeFeed: on the same tables, Spark's table_changes
// (one Spark session reads every table) and delta-rs's load_cdf (one
// Python process) show the model's change rows, and so the engine's.
func TestPeersReadOurChangeFeed(t *testing.T) {
	spark := peers.Spark(t)
	tables := writeAll(t.TempDir(), seeds(*nSeeds, 100, 10))
	var dirs []string
	for _, w := range tables {
		if w.err != nil {
			t.Fatalf("seed %d: %v\n%s", w.sq.seed, w.err, reproduce("TestChangesMatchModel", w.sq))
		}
		dirs = append(dirs, w.dir)
	}
	started := time.Now()
	res := spark.Try(t, sparkChangesOp(dirs, filepath.Join(t.TempDir(), "spark.json")))
	sparkTime := time.Since(started)
	if !res[0].OK {
		t.Fatalf("Spark's table_changes failed: %s", res[0].Error)
	}
	sparkRows := sparkLines(t, res[0], len(dirs))
	started = time.Now()
	rs, rsErrs := deltaRSChanges(t, dirs)
	t.Logf("%d tables: Spark's table_changes %v, delta-rs's load_cdf %v", len(tables),
		sparkTime.Round(time.Millisecond), time.Since(started).Round(time.Millisecond))
	for i, w := range tables {
		t.Run(fmt.Sprintf("seed=%d", w.sq.seed), func(t *testing.T) {
			ok := same(t, "Spark's table_changes", sparkRows[i], "the model", w.want)
			ours, err := ourChanges(context.Background(), w.dir)
			if err != nil {
				t.Fatalf("Changes: %v\n%s", err, reproduce("TestPeersReadOurChangeFeed", w.sq))
			}
			ok = same(t, "Changes", ours, "Spark's table_changes", sparkRows[i]) && ok
			if rsErrs[i] != "" {
				t.Errorf("delta-rs's load_cdf failed: %s", rsErrs[i])
				ok = false
			} else {
				ok = same(t, "delta-rs's load_cdf", rs[i], "the model", w.want) && ok
			}
			if !ok {
				t.Log(reproduce("TestPeersReadOurChangeFeed", w.sq))
			}
		})
	}
}

// TestChangesReadSparkChangeFeed: Spark runs random sequences (the same
// generator, upserts as their MERGE) on change-data-feed tables in one
// session; the engine's Changes, Spark's table_changes and delta-rs's
// load_cdf all show the model's change rows.
func TestChangesReadSparkChangeFeed(t *testing.T) {
	spark := peers.Spark(t)
	root := t.TempDir()
	type sparkTable struct {
		sq  *sequence
		dir string
		// ops[i] is the index of the history read after op i.
		after []int
	}
	var tables []*sparkTable
	var batch []peers.Op
	for _, seed := range seeds(*nSparkSeeds, 3, 1) {
		st := &sparkTable{sq: newSequence(seed, opsPerSequence), dir: filepath.Join(root, fmt.Sprintf("spark%d", seed))}
		for _, o := range st.sq.ops {
			for _, s := range o.sql(st.sq.partitioned) {
				batch = append(batch, peers.Op{"op": "sql", "path": st.dir, "sql": s, "collect": false})
			}
			st.after = append(st.after, len(batch))
			batch = append(batch, peers.Op{"op": "history", "path": st.dir, "limit": 1})
		}
		tables = append(tables, st)
	}
	dirs := make([]string, len(tables))
	for i, st := range tables {
		dirs[i] = st.dir
	}
	batch = append(batch, sparkChangesOp(dirs, filepath.Join(root, "spark.json")))
	started := time.Now()
	res := spark.Try(t, batch...)
	sparkTime := time.Since(started)
	read := res[len(res)-1]
	if !read.OK {
		t.Fatalf("Spark's table_changes failed: %s\n(a sequence's statement may have failed: see the subtests)", read.Error)
	}
	sparkRows := sparkLines(t, read, len(tables))
	started = time.Now()
	rs, rsErrs := deltaRSChanges(t, dirs)
	t.Logf("%d tables, %d Spark operations: Spark %v, delta-rs's load_cdf %v", len(tables), len(batch),
		sparkTime.Round(time.Millisecond), time.Since(started).Round(time.Millisecond))
	for i, st := range tables {
		t.Run(fmt.Sprintf("seed=%d", st.sq.seed), func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Log(reproduce("TestChangesReadSparkChangeFeed", st.sq))
				}
			}()
			// CREATE TABLE commits version 0 without rows; the first rows
			// land in version 1.
			e := &expected{version: 0}
			var table []row
			for j, o := range st.sq.ops {
				var ch []change
				table, ch = apply(table, o)
				h := res[st.after[j]]
				if !h.OK {
					t.Fatalf("Spark failed on op %d (%s): %s", j, o.kind, failedStatement(res[:st.after[j]], batch))
				}
				vs := h.Table(t).Int64s(t, "version")
				if len(vs) != 1 {
					t.Fatalf("Spark's history after op %d: versions %v", j, vs)
				}
				if err := e.landed(j, o, ch, vs[0]); err != nil {
					t.Fatalf("Spark: %v", err)
				}
			}
			want := e.lines()
			same(t, "Spark's table_changes", sparkRows[i], "the model", want)
			got, err := ourChanges(context.Background(), st.dir)
			if err != nil {
				t.Fatalf("Changes: %v", err)
			}
			same(t, "Changes", got, "the model", want)
			if rsErrs[i] != "" {
				t.Errorf("delta-rs's load_cdf failed: %s", rsErrs[i])
			} else {
				same(t, "delta-rs's load_cdf", rs[i], "the model", want)
			}
		})
	}
}

// failedStatement names the last failed statement among results, for the
// message of a Spark sequence that broke.
func failedStatement(res []peers.Result, batch []peers.Op) string {
	for i := len(res) - 1; i >= 0; i-- {
		if !res[i].OK {
			return fmt.Sprintf("%v: %s", batch[i]["sql"], res[i].Error)
		}
	}
	return "(no statement failed; the history read did)"
}
