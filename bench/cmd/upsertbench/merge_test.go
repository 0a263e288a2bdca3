package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// TestMergeSpecIsTheEnginesUpsert parses each MERGE case's spec as the
// engine does: ON without a literal partition term, UPDATE SET * (with the
// condition in the conditional case) and INSERT *.
func TestMergeSpecIsTheEnginesUpsert(t *testing.T) {
	for cs, cond := range map[string]string{caseMergeUpsert: "", caseMergeConditional: mergeCondition, caseMergeScoped: ""} {
		b, err := mergeSpec(cs)
		if err != nil {
			t.Fatal(err)
		}
		opts, err := merge.ParseSpec(b)
		if err != nil {
			t.Fatalf("%s: %v\n%s", cs, err, b)
		}
		want := []merge.Clause{{When: merge.Matched, Action: merge.UpdateAll, Predicate: cond}, {When: merge.NotMatched, Action: merge.InsertAll}}
		if opts.Predicate != mergeOn || len(opts.Clauses) != 2 {
			t.Fatalf("%s: options %+v", cs, opts)
		}
		for i, c := range opts.Clauses {
			if c.When != want[i].When || c.Action != want[i].Action || c.Predicate != want[i].Predicate {
				t.Errorf("%s: clause %d %+v, want %+v", cs, i, c, want[i])
			}
		}
	}
	if _, err := mergeSpec(caseDelete); err == nil {
		t.Error("mergeSpec(delete) made a spec")
	}
}

func TestMergeSuiteCasesAndEngines(t *testing.T) {
	got, err := parseCases("delete, merge-upsert,delete", mergeCases)
	if err != nil || !slices.Equal(got, []string{caseMergeUpsert, caseDelete}) {
		t.Errorf("parseCases = %v, %v", got, err)
	}
	if _, err := parseCases("spread", mergeCases); err == nil || !strings.Contains(err.Error(), "merge-upsert, merge-conditional, merge-scoped, delete") {
		t.Errorf("parseCases(spread) in the merge suite: %v, want an error listing its cases", err)
	}
	c := config{rustPython: "py", partitions: 2, scopedPartitions: 8}
	if got := runOrder(c, caseMergeConditional, 1); !slices.Equal(got, []string{engineGoMerge, engineMerge}) {
		t.Errorf("rep 2 of the conditional MERGE runs %v", got)
	}
	if got := caseEngines(c, caseDelete); !slices.Equal(got, []string{engineDelete, engineGoDelete}) {
		t.Errorf("the delete case runs %v", got)
	}
	if got := caseEngines(c, caseSpread); slices.Contains(got, engineGoMerge) {
		t.Errorf("the upsert's spread case runs %v", got)
	}
	if casePartitions(c, caseMergeScoped) != 8 || casePartitions(c, caseMergeUpsert) != 2 {
		t.Error("the scoped case's table does not have -scoped-partitions partitions")
	}
}

// TestRenderMergeTargets judges the targets from made-up results.
func TestRenderMergeTargets(t *testing.T) {
	mk := func(engine string, wall float64, rss int64, scanned int64) Run {
		return withMetrics(run(engine, wall, wall, rss, "h"), 10, EngineMetrics{FilesScanned: i64(scanned)})
	}
	upsert := func(n int64, goRSS int64) *Size {
		s := size(n, mk(engineMerge, 10, 1000, 8), mk(engineGoMerge, 5, goRSS, 8))
		s.Case = caseMergeUpsert
		return s
	}
	scoped := size(250_000, mk(engineMerge, 10, 1000, 32), mk(engineGoMerge, 5, 200, 8))
	scoped.Case = caseMergeScoped
	del := size(250_000, mk(engineDelete, 1, 100, 0), mk(engineGoDelete, 1, 20, 0))
	del.Case = caseDelete
	r := &Report{Suite: suiteMerge, Sizes: []*Size{upsert(62_500, 150), upsert(250_000, 200), upsert(1_000_000, 240), scoped, del}}
	out := renderMerge(r)
	for _, want := range []string{
		"- merge-upsert: peak RSS flat from 250k to 1M rows, at most 1.15x: 200 → 240 MiB, 1.20x — **not met**.",
		"- merge-upsert: peak RSS at most 0.25x delta-rs's: 62.5k 0.15, 250k 0.20, 1M 0.24 — met.",
		"- merge-upsert: process wall at most 1.0x delta-rs's: 62.5k 0.50, 250k 0.50, 1M 0.50 — met.",
		"- merge-conditional: peak RSS flatness not judged",
		"- merge-scoped, 250k: files read ≪ delta-rs's (at most half): 8 vs 32 — met.",
		"- delete, 250k: DELETE of one partition reads no data file: 0 read — met.",
		"| 250k | 0.0 GiB, 0 files | deltalite DELETE | 0.0 | 1.0 | 1.0 | 20 | 1.00 GiB | 1.00 GiB | 4 / 4 | 0 | 10.0 MiB |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// delta-rs's streamed MERGE may count no file scanned: not judged.
	scoped.Runs[0].Metrics.FilesScanned = i64(0)
	if out := renderMerge(r); !strings.Contains(out, "files read not judged: delta-rs reported 0 files scanned while it removed 4") {
		t.Errorf("report judges a zero count of delta-rs's:\n%s", out)
	}
}

// TestMergeSuiteEnginesAgree runs every case of the merge suite on tiny
// tables: both engines end with the expected, equal content, and
// deltalite's DELETE of a partition reads no data file.
func TestMergeSuiteEnginesAgree(t *testing.T) {
	py := peers.Python(t)
	root := peers.Root(t)
	c := tinyConfig(t, py, root, t.TempDir())
	c.fileRows, c.updates, c.inserts, c.scopedPartitions = 100, 50, 5, 3
	c.cases, c.suite = mergeCases, suiteMerge
	r := &Report{Suite: suiteMerge}
	if err := measure(c, 200, r); err != nil {
		t.Fatal(err)
	}
	if len(r.Sizes) != len(mergeCases) {
		t.Fatalf("%d cases measured", len(r.Sizes))
	}
	for _, s := range r.Sizes {
		if len(s.Runs) != 2 || len(s.Problems) > 0 {
			t.Errorf("%s: %d runs, problems %v", s.Case, len(s.Runs), s.Problems)
			continue
		}
		if s.Runs[0].Checksum.Hash != s.Runs[1].Checksum.Hash {
			t.Errorf("%s: contents differ", s.Case)
		}
		if s.Case == caseDelete {
			if s.WantRows != 200 {
				t.Errorf("delete keeps %d rows, want one partition's 200", s.WantRows)
			}
			u := aggregate(s, engineGoDelete)
			if !u.scanned.ok || u.scanned.v != 0 || u.filesRemoved != 2 {
				t.Errorf("deltalite DELETE scanned %v files, removed %v; want 0 and the partition's 2", u.scanned, u.filesRemoved)
			}
		}
		if s.Case == caseMergeScoped && (s.Base.Partitions != 3 || aggregate(s, engineGoMerge).scanned.v != 4) {
			t.Errorf("scoped: %d partitions, deltalite scanned %v files; want 3 and the touched partitions' 4",
				s.Base.Partitions, aggregate(s, engineGoMerge).scanned)
		}
	}
}

// TestCDFSuiteEnginesAgree runs the cdf suite on tiny tables: every engine
// ends with the expected, equal content; the runs on a CDF copy committed
// change data files (delta-rs's too) after the one commit that enabled the
// feed, the plain runs none.
func TestCDFSuiteEnginesAgree(t *testing.T) {
	py := peers.Python(t)
	root := peers.Root(t)
	c := tinyConfig(t, py, root, t.TempDir())
	c.fileRows, c.updates, c.inserts = 100, 50, 5
	c.cases, c.suite = cdfCases, suiteCDF
	r := &Report{Suite: suiteCDF}
	if err := measure(c, 200, r); err != nil {
		t.Fatal(err)
	}
	if len(r.Sizes) != len(cdfCases) {
		t.Fatalf("%d cases measured", len(r.Sizes))
	}
	for _, s := range r.Sizes {
		want := caseEngines(c, s.Case)
		if len(s.Runs) != len(want) || len(s.Problems) > 0 {
			t.Errorf("%s: %d runs, want %d; problems %v", s.Case, len(s.Runs), len(want), s.Problems)
			continue
		}
		for _, run := range s.Runs {
			if run.Checksum.Hash != s.Runs[0].Checksum.Hash || run.Checksum.Rows != 410 {
				t.Errorf("%s, %s: %d rows, hash %s; want 410 rows (2 x 200 + 2 x 5 inserts), hash %s", s.Case, run.Engine, run.Checksum.Rows, run.Checksum.Hash, s.Runs[0].Checksum.Hash)
			}
			cdf := slices.Contains(cdfEngines, run.Engine)
			if cdf != (run.Volume.CDCFiles > 0) || cdf != (run.Volume.CDCBytes > 0) {
				t.Errorf("%s, %s: %d cdc files (%d bytes)", s.Case, run.Engine, run.Volume.CDCFiles, run.Volume.CDCBytes)
			}
			if run.Volume.Commits != 1 {
				t.Errorf("%s, %s: %d commits counted, want the operation's one", s.Case, run.Engine, run.Volume.Commits)
			}
		}
	}
	out := renderCDF(r)
	for _, want := range []string{"## Targets (issue 25)", "- cdf-merge: peak RSS with the change data feed at most 0.3x delta-rs MERGE's on the CDF table: 200 "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestRowTrackingSuiteEnginesAgree runs the rowtracking suite on tiny
// tables: every engine ends with the expected, equal content, each run's
// one commit counted after the commits that turned row tracking on, and
// the report judges issue 27's targets.
func TestRowTrackingSuiteEnginesAgree(t *testing.T) {
	py := peers.Python(t)
	root := peers.Root(t)
	c := tinyConfig(t, py, root, t.TempDir())
	c.fileRows, c.updates, c.inserts = 100, 50, 5
	c.cases, c.suite = rtCases, suiteRowTracking
	r := &Report{Suite: suiteRowTracking}
	if err := measure(c, 200, r); err != nil {
		t.Fatal(err)
	}
	if len(r.Sizes) != len(rtCases) {
		t.Fatalf("%d cases measured", len(r.Sizes))
	}
	for _, s := range r.Sizes {
		want := caseEngines(c, s.Case)
		if len(s.Runs) != len(want) || len(s.Problems) > 0 {
			t.Errorf("%s: %d runs, want %d; problems %v", s.Case, len(s.Runs), len(want), s.Problems)
			continue
		}
		for _, run := range s.Runs {
			if run.Checksum.Hash != s.Runs[0].Checksum.Hash || run.Checksum.Rows != 410 {
				t.Errorf("%s, %s: %d rows, hash %s; want 410 rows, hash %s", s.Case, run.Engine, run.Checksum.Rows, run.Checksum.Hash, s.Runs[0].Checksum.Hash)
			}
			if run.Volume.Commits != 1 {
				t.Errorf("%s, %s: %d commits counted, want the operation's one", s.Case, run.Engine, run.Volume.Commits)
			}
		}
	}
	out := renderRowTracking(r)
	for _, want := range []string{"## Targets (issue 27)", "- rt-merge: peak RSS with row tracking at most 1.1x without: 200 "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
