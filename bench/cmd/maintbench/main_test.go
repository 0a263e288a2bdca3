package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/bench/internal/gen"
	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

func TestRunOrderAlternates(t *testing.T) {
	for rep, want := range [][]string{{engineDeltaRS, engineOurs}, {engineOurs, engineDeltaRS}, {engineDeltaRS, engineOurs}} {
		if got := runOrder(caseCompact, rep); !slices.Equal(got, want) {
			t.Errorf("compact rep %d: %v, want %v", rep, got, want)
		}
	}
	want := [][]string{{engineDeltaRS, engineOurs, engineCapped}, {engineOurs, engineCapped, engineDeltaRS}, {engineCapped, engineDeltaRS, engineOurs}}
	for rep, w := range want {
		if got := runOrder(caseZOrderBig, rep); !slices.Equal(got, w) {
			t.Errorf("zorder-big rep %d: %v, want %v", rep, got, w)
		}
	}
}

func TestParseCases(t *testing.T) {
	got, err := parseCases(" vacuum,compact,vacuum ")
	if err != nil || !slices.Equal(got, []string{caseCompact, caseVacuum}) {
		t.Errorf("parseCases = %v, %v; want compact, vacuum in the run order", got, err)
	}
	if _, err := parseCases("compact,zorderbig"); err == nil || !strings.Contains(err.Error(), `"zorderbig"`) ||
		!strings.Contains(err.Error(), strings.Join(allCases, ", ")) {
		t.Errorf("parseCases of an unknown case: %v, want an error naming it and listing the cases", err)
	}
}

// TestArgvPassesTheKnobs: each engine's command line carries the case's
// operation, the target size, the z-order columns and, for the large
// z-order, the budget (ours through the environment and the extra flags,
// delta-rs's as max_spill_size with the address-space cap).
func TestArgvPassesTheKnobs(t *testing.T) {
	c := config{Flags: report.Flags{Python: "py"}, script: "m.py", deltalite: "dl", zorderBy: "x,y", targetSize: 1000, budgetMiB: 4,
		oursBudgetArgs: []string{"--sort-budget", "4MiB"}}
	for _, tc := range []struct {
		cs, engine string
		want       []string
		env        []string
	}{
		{caseCompact, engineOurs, []string{"dl", "optimize", "T", "--json", "--target-size", "1000"}, nil},
		{caseZOrder, engineOurs, []string{"dl", "optimize", "T", "--json", "--target-size", "1000", "--zorder-by", "x,y"}, nil},
		{caseZOrderBig, engineOurs, []string{"dl", "optimize", "T", "--json", "--target-size", "1000", "--zorder-by", "x,y", "--sort-budget", "4MiB"},
			nil},
		{caseVacuum, engineOurs, []string{"dl", "vacuum", "T", "--retention-hours", "0", "--no-enforce-retention", "--json"}, nil},
		{caseCompactOne, engineDeltaRS, []string{"py", "m.py", "compact", "T", "--target-size", "1000"}, nil},
		{caseZOrder, engineDeltaRS, []string{"py", "m.py", "zorder", "T", "--columns", "x,y", "--target-size", "1000"}, nil},
		{caseZOrderBig, engineCapped, []string{"py", "m.py", "zorder", "T", "--columns", "x,y", "--target-size", "1000",
			"--max-spill-size", "4194304", "--as-limit", "209715200"}, cappedEnv},
		{caseVacuum, engineDeltaRS, []string{"py", "m.py", "vacuum", "T"}, nil},
	} {
		args, env := argv(c, &Case{Name: tc.cs, CapMiB: 200}, tc.engine, "T")
		if !slices.Equal(args, tc.want) || !slices.Equal(env, tc.env) {
			t.Errorf("%s, %s: %q %q, want %q %q", tc.cs, tc.engine, args, env, tc.want, tc.env)
		}
	}
}

func TestFailureReasonNamesTheCause(t *testing.T) {
	for in, want := range map[string]string{
		"py m.py zorder T: signal: aborted\nmemory allocation of 4 bytes failed\nnote: Some details are omitted":                             "signal: aborted: memory allocation of 4 bytes failed",
		"py m.py zorder T: exit status 1\nTraceback\n_internal.DeltaError: Failed\ncaused by\nResources exhausted: Failed to allocate 10 MB": "exit status 1: Resources exhausted: Failed to allocate 10 MB",
		"dl optimize T: exit status 2\nsomething else": "dl optimize T: exit status 2 / something else",
	} {
		if got := failureReason(errors.New(in)); got != want {
			t.Errorf("failureReason(%q) = %q, want %q", in, got, want)
		}
	}
}

func okRun(engine string, op, wall float64, rssMiB int64) Run {
	return Run{Engine: engine, Measured: runproc.Measured{OpS: op, WallS: wall, UserS: wall, MaxRSSKiB: rssMiB << 10}, FilesAfter: 2,
		Volume:   runproc.Volume{Commits: 1, FilesAdded: 2, FilesRemoved: 20, BytesAdded: 1 << 30},
		Checksum: &report.Checksum{Rows: 100, Hash: "h"}}
}

// TestRenderJudgesTargets renders made-up runs: the ratios take our
// process wall against delta-rs's operation time, each target is judged,
// and a failed capped delta-rs run is reported as that case's result,
// not as a problem.
func TestRenderJudgesTargets(t *testing.T) {
	table := &Table{Name: "spread", Options: gen.SmallFilesOptions{Files: 20, Partitions: 2}, Files: 20, Bytes: 10 << 30, Rows: 100, Hash: "h"}
	compact := &Case{Name: caseCompact, Table: table, Runs: []Run{okRun(engineDeltaRS, 10, 10.5, 1000), okRun(engineOurs, 0, 5, 250)}}
	zbig := &Case{Name: caseZOrderBig, Table: &Table{Name: "big", Options: gen.SmallFilesOptions{Files: 20, Partitions: 1}, Files: 20, Bytes: 2560 << 20, Rows: 100, Hash: "h"},
		CapMiB: 512, CapFrom: "1/3 of the 1536 MiB peak address space of delta-rs's uncapped run", Runs: []Run{okRun(engineDeltaRS, 10, 11, 1000), okRun(engineOurs, 0, 12, 600),
			{Engine: engineCapped, Measured: runproc.Measured{WallS: 1}, Error: "signal: aborted: memory allocation of 4 bytes failed"}}}
	r := &Report{BudgetMiB: 256, Reps: 1, Cases: []*Case{compact, zbig}}
	r.Problems = append(verify(compact), verify(zbig)...)
	if len(r.Problems) > 0 {
		t.Fatalf("problems %q", r.Problems)
	}
	out := render(r)
	for _, want := range []string{
		"| compact | 0.50 | 0.48 | 0.48 | 0.25 | 0.50 — met | 0.25 — met | yes |",
		"| zorder-big | 1.20 | 1.09 | 1.09 | 0.60 | 1.20 — **not met** | 0.60 — **not met** | yes |",
		"| compact | deltalite | 1 of 1 | 5.00 | — | 5.00 | 250 | 20 → 2 (20 / 2) | 1.00 GiB | 0 |",
		"| zorder-big | delta-rs, memory capped | 0 of 1 | failed: signal: aborted: memory allocation of 4 bytes failed |",
		"**Z-order of a partition 10.0× our budget under a memory cap.** delta-rs ran with `max_spill_size` set to the budget (256 MiB) " +
			"and its address space capped (RLIMIT_AS, as `prlimit --as`) at 512 MiB (1/3 of the 1536 MiB peak address space of delta-rs's uncapped run): **failed in 1 of 1 runs**: signal: aborted: memory allocation of 4 bytes failed",
		"deltalite ran with its default sort budget (`optimize.DefaultMaxSortBytes`, 64 MiB).",
		"| zorder-big | z-order, one partition many times our memory budget | 20 files in 1 partition(s), 2.50 GiB, 100 rows (10.0× the budget of 256 MiB) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestVerifyCatchesChangedContentAndWrongDeletions(t *testing.T) {
	table := &Table{Name: "spread", Files: 20, Rows: 100, Hash: "h"}
	bad := okRun(engineOurs, 0, 1, 10)
	bad.Checksum = &report.Checksum{Rows: 99, Hash: "other"}
	bad.Deleted = []string{"part=p00/a.parquet"}
	compact := &Case{Name: caseCompact, Table: table, Runs: []Run{okRun(engineDeltaRS, 1, 1, 10), bad}}
	problems := verify(compact)
	if len(problems) != 2 || !strings.Contains(problems[0], "content 99 rows, hash other; the table had 100 rows, hash h") ||
		!strings.Contains(problems[1], "deleted 1 data files (part=p00/a.parquet, ...)") {
		t.Errorf("compaction problems %q", problems)
	}
	if out := render(&Report{Cases: []*Case{compact}}); !strings.Contains(out, " | NO: deltalite rep 0 |\n") {
		t.Errorf("ratio table does not say the content changed:\n%s", out)
	}
	compact.Runs[1] = Run{Engine: engineOurs, Error: "exit status 1"}
	if out := render(&Report{Cases: []*Case{compact}}); !strings.Contains(out, " | yes, where the run finished |\n") {
		t.Errorf("ratio table does not qualify a failed run:\n%s", out)
	}

	vt := &Table{Name: "vacuum", Files: 2, Rows: 100, Hash: "h", Tombstones: 2}
	rs, ours := okRun(engineDeltaRS, 1, 1, 10), okRun(engineOurs, 0, 1, 10)
	rs.Deleted, ours.Deleted = []string{"a", "b"}, []string{"a", "c"}
	problems = verify(&Case{Name: caseVacuum, Table: vt, Runs: []Run{rs, ours}})
	if len(problems) != 1 || !strings.Contains(problems[0], "vacuum, deltalite rep 0: deleted other files than delta-rs rep 1") {
		t.Errorf("vacuum problems %q", problems)
	}
	ours.Deleted = []string{"a"}
	problems = verify(&Case{Name: caseVacuum, Table: vt, Runs: []Run{rs, ours}})
	if len(problems) != 2 || !strings.Contains(problems[0], "deleted 1 data files, want the 2 the compaction removed") {
		t.Errorf("vacuum problems %q", problems)
	}
}

// TestCasesOnTinyTables runs every case on tiny tables: both engines
// compact each partition into one file, z-order and vacuum, every run
// keeps the content, the vacuum deletes exactly the files the compaction
// removed. Where the deltalite command lacks optimize and vacuum the
// report says it was not measured.
func TestCasesOnTinyTables(t *testing.T) {
	py := peers.Python(t)
	root := peers.Root(t)
	dir := t.TempDir()
	dl := filepath.Join(dir, "deltalite")
	build := exec.Command("go", "build", "-o", dl, "./cmd/deltalite")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the deltalite command: %v\n%s", err, out)
	}
	c := config{gib: 0.002, files: 8, partitions: 2, oneGiB: 0.001, oneFiles: 4, budgetMiB: 1, bigFactor: 1, bigFiles: 4,
		zorderBy: "x,y", cases: allCases, deltalite: dl, script: filepath.Join(root, "bench", "py", "maint_bench.py"),
		Flags: report.Flags{Reps: 1, Work: dir, Python: py, Checksum: filepath.Join(root, "bench", "py", "checksum.py")}}
	r := &Report{}
	if err := measure(c, r, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		t.Errorf("problem: %s", p)
	}
	ours := len(r.Notes) == 0
	if !ours && !strings.Contains(r.Notes[0], `unknown command "optimize"`) {
		t.Errorf("notes %q, want the missing optimize command named", r.Notes)
	}
	wantFiles := map[string]int64{caseCompact: 2, caseCompactOne: 1, caseZOrder: 1, caseZOrderBig: 1, caseVacuum: 2}
	for _, cr := range r.Cases {
		for _, e := range engines(cr.Name) {
			a := aggregate(cr, e)
			switch {
			case e == engineCapped:
				if a.n+a.failed != 1 {
					t.Errorf("%s: %d capped runs", cr.Name, a.n+a.failed)
				}
				continue
			case e == engineOurs && !ours:
				if a.n+a.failed != 0 {
					t.Errorf("%s: deltalite ran without its commands", cr.Name)
				}
				continue
			}
			if a.n != 1 {
				t.Fatalf("%s, %s: %d successful runs: %+v", cr.Name, e, a.n, cr.Runs)
			}
			if a.filesAfter != float64(wantFiles[cr.Name]) {
				t.Errorf("%s, %s: %v files after, want %d", cr.Name, e, a.filesAfter, wantFiles[cr.Name])
			}
			if cr.Name == caseVacuum && (a.deleted != 8 || cr.Table.Tombstones != 8) {
				t.Errorf("vacuum, %s: deleted %v files of %d tombstones, want 8", e, a.deleted, cr.Table.Tombstones)
			}
		}
		if cr.Table.Rows == 0 || cr.Table.Hash == "" {
			t.Errorf("%s: table %+v has no fingerprint", cr.Name, cr.Table)
		}
	}
	if !strings.Contains(render(r), "| compact | delta-rs | 1 of 1 |") {
		t.Errorf("report lacks the compaction's delta-rs row:\n%s", render(r))
	}
}

// TestCapFromTheUncappedPeak: the capped run's cap is a fraction of the
// uncapped delta-rs run's peak address space, never below the start-up
// floor; the flag wins; the first repetition runs delta-rs uncapped
// before the capped run; the deltalite command gets the budget.
func TestCapFromTheUncappedPeak(t *testing.T) {
	c := config{capFraction: 3}
	uncapped := okRun(engineDeltaRS, 10, 11, 1000)
	uncapped.Output = `{"engine": "delta-rs", "vmPeakKiB": 3145728}`
	cr := &Case{Name: caseZOrderBig, Runs: []Run{okRun(engineOurs, 0, 12, 600), uncapped}}
	if got, from := capOf(c, cr, 400); got != 1024 || !strings.Contains(from, "1/3 of the 3072 MiB peak") {
		t.Errorf("cap %d MiB (%s), want 1024 from a third of the peak", got, from)
	}
	if got, _ := capOf(c, cr, 1500); got != 1500 {
		t.Errorf("cap %d MiB below the floor of 1500", got)
	}
	if got, from := capOf(c, &Case{Name: caseZOrderBig}, 400); got != 400 || !strings.Contains(from, "no uncapped run") {
		t.Errorf("without an uncapped run: cap %d MiB (%s), want the floor", got, from)
	}
	if got, _ := capOf(config{capMiB: 700, capFraction: 3}, cr, 400); got != 700 {
		t.Errorf("cap %d MiB, want the flag's 700", got)
	}
	if order := runOrder(caseZOrderBig, 0); slices.Index(order, engineDeltaRS) > slices.Index(order, engineCapped) {
		t.Errorf("first repetition %q runs the capped delta-rs before the uncapped one", order)
	}
	if got := budgetArgsOf("", 64); !slices.Equal(got, []string{"--max-sort-bytes", "67108864"}) {
		t.Errorf("default budget arguments %q", got)
	}
	if got := budgetArgsOf("--x 1", 64); !slices.Equal(got, []string{"--x", "1"}) {
		t.Errorf("budget arguments from the flag %q", got)
	}
}
