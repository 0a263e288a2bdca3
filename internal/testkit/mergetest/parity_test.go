package mergetest

import (
	"flag"
	"fmt"
	"strings"
	"testing"
)

// moreSeeds adds random scenarios beyond the fixed seeds:
// go test ./internal/testkit/mergetest -mergetest.seeds=50.
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
	for _, seed := range seeds(fixed) {
		sc := newScenario(seed, ops, steps)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			for _, st := range sc.steps {
				t.Log(st.label)
			}
			runScenario(t, sc)
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

// The MERGE parity scenarios: three MERGE steps in four, DELETE between.
var (
	mergeSeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 14}
	mergeOps   = []string{opMerge, opMerge, opMerge, opDelete}
	mergeSteps = 4
)

// TestSeedsCover: the fixed seeds of TestMergeParity use every clause kind,
// with and without a condition, at least twice, and every ON predicate,
// schema evolution, legal duplicate source keys and both table layouts.
func TestSeedsCover(t *testing.T) {
	seen := map[string]int{}
	for _, seed := range mergeSeeds {
		sc := newScenario(seed, mergeOps, mergeSteps)
		seen[fmt.Sprintf("partitioned=%t", sc.partitioned)]++
		for _, st := range sc.steps {
			if st.op != opMerge {
				continue
			}
			seen["on "+st.predicate]++
			if st.schemaMode != "" {
				seen["schema evolution"]++
			}
			if st.multiMatch != "" {
				seen["every key twice, "+st.multiMatch+" "+st.clauses[0].String()]++
				continue
			}
			if dupKeys(st) {
				seen["duplicate source keys"]++
			}
			for _, c := range st.clauses {
				cond := "with"
				if c.Predicate == "" {
					cond = "without"
				}
				seen[fmt.Sprintf("%s %s %s a condition", c.When, c.Action, cond)]++
			}
		}
	}
	want := []string{"partitioned=true", "partitioned=false", "schema evolution", "duplicate source keys",
		"every key twice, refuse WHEN MATCHED THEN UPDATE SET *", "every key twice, refuse WHEN MATCHED THEN UPDATE SET n = s.n",
		"every key twice, refuse WHEN MATCHED AND s.id >= 0 THEN DELETE", "every key twice, allow WHEN MATCHED THEN DELETE"}
	for _, p := range onPredicates {
		want = append(want, "on "+p)
	}
	for _, k := range clauseKinds {
		for _, cond := range []string{"with", "without"} {
			want = append(want, fmt.Sprintf("%s %s %s a condition", k.when, k.action, cond))
		}
	}
	for _, w := range want {
		if seen[w] < 1 || seen[w] < 2 && !strings.HasPrefix(w, "every key twice") {
			t.Errorf("the fixed seeds cover %q %d times, want at least 2", w, seen[w])
		}
	}
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
