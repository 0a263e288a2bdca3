package mergetest

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/merge"
)

// moreSeeds adds random scenarios beyond the fixed seeds:
// go test ./testkit/mergetest -mergetest.seeds=50.
var moreSeeds = flag.Int("mergetest.seeds", 0, "run this many more seeds of each parity test")

// seeds are the fixed seeds of a parity test (the first two in -short
// mode), then -mergetest.seeds more.
func seeds(fixed []uint64) []uint64 {
	if testing.Short() {
		fixed = fixed[:min(2, len(fixed))]
	}
	out := append([]uint64(nil), fixed...)
	for i := range *moreSeeds {
		out = append(out, uint64(1_000_000+i))
	}
	return out
}

func runSeeds(t *testing.T, fixed []uint64, ops []string, steps int) {
	runSeedsIn(t, fixed, ops, steps, false)
}

// runSeedsIn runs the scenarios of the seeds, with deletion vectors on in
// our copy of the table when dvs (delta-rs rewrites files in its own).
func runSeedsIn(t *testing.T, fixed []uint64, ops []string, steps int, dvs bool) {
	for _, seed := range seeds(fixed) {
		sc := newScenario(seed, ops, steps)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			for _, st := range sc.steps {
				t.Log(st.label)
			}
			runScenario(t, sc, dvs)
		})
	}
}

// TestDeleteParity: random DELETE predicates (partition-only, data, both,
// none) on partitioned and unpartitioned tables.
func TestDeleteParity(t *testing.T) {
	runSeeds(t, []uint64{1, 2, 3}, []string{opDelete}, 4)
}

// TestUpdateParity: random UPDATE assignments (casts, NULLs, partition
// moves) and predicates, DELETE between them, on partitioned and
// unpartitioned tables.
func TestUpdateParity(t *testing.T) {
	runSeeds(t, []uint64{1, 2, 3, 4, 5, 6}, []string{opUpdate, opUpdate, opDelete}, 4)
}

// TestMergeParity: random MERGE clause sets, DELETE between them.
func TestMergeParity(t *testing.T) {
	runSeeds(t, mergeSeeds, mergeOps, mergeSteps)
}

// TestDeletionVectorParity: the DELETE, UPDATE and MERGE scenarios with
// deletion vectors on in our table: the same rows and counts as delta-rs's
// copy-on-write after every step.
func TestDeletionVectorParity(t *testing.T) {
	t.Run("delete", func(t *testing.T) { runSeedsIn(t, []uint64{1, 2, 3}, []string{opDelete}, 4, true) })
	t.Run("update", func(t *testing.T) {
		runSeedsIn(t, []uint64{1, 2, 3, 4}, []string{opUpdate, opUpdate, opDelete}, 4, true)
	})
	t.Run("merge", func(t *testing.T) { runSeedsIn(t, mergeSeeds, mergeOps, mergeSteps, true) })
	if !t.Failed() && dvScenarios.Load() == 0 {
		t.Error("deletion vectors on, and no scenario's commit added one")
	}
}

// The MERGE parity scenarios: three MERGE steps in four, DELETE between.
var (
	mergeSeeds = []uint64{1, 2, 4, 6, 7, 13, 299}
	mergeOps   = []string{opMerge, opMerge, opMerge, opDelete}
	mergeSteps = 4
)

// TestSeedsCover: the fixed seeds of TestMergeParity use every clause kind,
// with and without a condition, at least twice, and every ON predicate,
// schema evolution, legal duplicate source keys, both table layouts and
// every multiple-match variant.
func TestSeedsCover(t *testing.T) {
	seen := map[string]int{}
	for _, seed := range mergeSeeds {
		for f, n := range features(newScenario(seed, mergeOps, mergeSteps)) {
			seen[f] += n
		}
	}
	for _, w := range wantFeatures() {
		need := 2
		if strings.HasPrefix(w, "every key twice") {
			need = 1 // the last step of a scenario: one each
		}
		if seen[w] < need {
			t.Errorf("the fixed seeds cover %q %d times, want at least %d", w, seen[w], need)
		}
	}
}

// features counts what a scenario's MERGE steps exercise.
func features(sc *scenario) map[string]int {
	seen := map[string]int{fmt.Sprintf("partitioned=%t", sc.partitioned): 1}
	if sc.partitioned && slices.ContainsFunc(sc.initRows, func(r []any) bool { return r[1] == nil }) {
		seen["a NULL partition value"]++
	}
	for _, st := range sc.steps {
		if st.op != opMerge {
			continue
		}
		if st.multiMatch != "" {
			seen["every key twice, "+st.multiMatch+" "+st.clauses[0].String()]++
			continue
		}
		seen["on "+st.predicate]++
		if st.schemaMode != "" {
			seen["schema evolution"]++
		}
		if dupKeys(st) {
			seen["duplicate source keys"]++
		}
		for _, c := range st.clauses {
			seen[clauseFeature(c.When, c.Action, c.Predicate != "")]++
		}
	}
	return seen
}

func clauseFeature(w merge.When, a merge.Action, cond bool) string {
	with := "without"
	if cond {
		with = "with"
	}
	return fmt.Sprintf("%s %s %s a condition", w, a, with)
}

// wantFeatures are the features the fixed seeds must cover.
func wantFeatures() []string {
	want := []string{"partitioned=true", "partitioned=false", "a NULL partition value", "schema evolution", "duplicate source keys",
		"every key twice, refuse WHEN MATCHED THEN UPDATE SET *", "every key twice, refuse WHEN MATCHED THEN UPDATE SET n = s.n",
		"every key twice, refuse WHEN MATCHED AND s.id >= 0 THEN DELETE", "every key twice, allow WHEN MATCHED THEN DELETE",
		"every key twice, spark refuses WHEN MATCHED AND s.n IS NOT NULL THEN UPDATE SET n = s.n + 100",
		"every key twice, spark refuses WHEN NOT MATCHED BY SOURCE THEN UPDATE SET n = t.n + 1",
		"every key twice, allow WHEN NOT MATCHED THEN INSERT *"}
	for _, p := range onPredicates {
		want = append(want, "on "+p)
	}
	for _, k := range clauseKinds {
		want = append(want, clauseFeature(k.when, k.action, true), clauseFeature(k.when, k.action, false))
	}
	return want
}

// dupKeys reports a source with a non-null key twice.
func dupKeys(st step) bool {
	seen := map[any]bool{}
	for _, r := range st.srcRows {
		if r[0] != nil && seen[r[0]] {
			return true
		}
		seen[r[0]] = true
	}
	return false
}
