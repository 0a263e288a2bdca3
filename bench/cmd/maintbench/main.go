// Command maintbench compares this engine's table maintenance (the
// deltalite command's optimize and vacuum) with delta-rs's
// (DeltaTable.optimize.compact, optimize.z_order, vacuum) on identical
// copies of generated tables of many small files, in one invocation. Each
// run is its own process, the engines alternating; it records wall time,
// CPU time and peak RSS from wait4, the files before and after (from the
// _delta_log), the bytes written, the data files deleted, and checks that
// every run leaves the table's content as it was. It writes a Markdown
// report and the raw results as JSON.
//
//	maintbench [-gib 1] [-files 2000] [-partitions 10] [-reps 3] [-cases compact,compact-one,zorder,zorder-big,vacuum]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/optimize"
)

// The cases, in the order they run.
const (
	caseCompact    = "compact"
	caseCompactOne = "compact-one"
	caseZOrder     = "zorder"
	caseZOrderBig  = "zorder-big"
	caseVacuum     = "vacuum"
)

var allCases = []string{caseCompact, caseCompactOne, caseZOrder, caseZOrderBig, caseVacuum}

// The engines. A case runs delta-rs and deltalite alternating; the large
// z-order also runs delta-rs with its address space capped.
const (
	engineDeltaRS = "delta-rs"
	engineOurs    = "deltalite"
	engineCapped  = "delta-rs, memory capped"
)

type config struct {
	gib, oneGiB                               float64
	files, partitions, oneFiles, bigFiles     int
	budgetMiB, bigFactor, capMiB, capFraction int64
	targetSize                                int64
	cases                                     []string
	zorderBy                                  string
	oursBudgetArgs                            []string
	deltalite, script                         string
	report.Flags
}

func main() {
	var c config
	var cases, budgetArgs string
	flag.Float64Var(&c.gib, "gib", 1, "compact: size of the table of many small files over -partitions partitions (GiB)")
	flag.IntVar(&c.files, "files", 2000, "compact: its data files")
	flag.IntVar(&c.partitions, "partitions", 10, "compact: its partitions")
	flag.Float64Var(&c.oneGiB, "one-gib", 1, "compact-one and zorder: size of the table of one partition of small files (GiB)")
	flag.IntVar(&c.oneFiles, "one-files", 2000, "compact-one and zorder: its data files")
	flag.Int64Var(&c.budgetMiB, "budget-mib", optimize.DefaultMaxSortBytes>>20,
		"zorder-big: this engine's z-order sort budget (MiB): the partition is -big-factor times it, delta-rs gets it as max_spill_size; "+
			"the deltalite command gets it as --max-sort-bytes unless -ours-budget-args says otherwise")
	flag.Int64Var(&c.bigFactor, "big-factor", 10, "zorder-big: the partition's size as a multiple of -budget-mib")
	flag.IntVar(&c.bigFiles, "big-files", 2000, "zorder-big: the partition's data files")
	flag.StringVar(&budgetArgs, "ours-budget-args", "", "zorder-big: arguments of deltalite optimize that set its sort budget, space-separated (default --max-sort-bytes of -budget-mib)")
	flag.Int64Var(&c.capMiB, "cap-mib", 0, "zorder-big: address-space cap of the capped delta-rs run (MiB; 0: see -cap-fraction)")
	flag.Int64Var(&c.capFraction, "cap-fraction", defaultCapFraction, "zorder-big: without -cap-mib, cap the capped delta-rs run at 1/N of the peak address space of its "+
		"uncapped run of the same case, at least its baseline after opening the table plus -budget-mib")
	flag.StringVar(&c.zorderBy, "zorder-by", "x,y", "z-order columns")
	flag.Int64Var(&c.targetSize, "target-size", 0, "target file size in bytes for both engines (0: each engine's default)")
	flag.StringVar(&cases, "cases", strings.Join(allCases, ","), "cases to run: "+strings.Join(allCases, ", "))
	c.Register(flag.CommandLine, 3, "bench/out/maintenance", "the tables, the runs' copies and the reports")
	flag.StringVar(&c.deltalite, "deltalite", "bench/out/bin/deltalite", "the deltalite command")
	flag.StringVar(&c.script, "script", "bench/py/maint_bench.py", "the delta-rs maintenance program")
	flag.Parse()
	var err error
	if c.cases, err = parseCases(cases); err != nil {
		fail(err)
	}
	c.oursBudgetArgs = budgetArgsOf(budgetArgs, c.budgetMiB)
	if c.capFraction < 1 {
		fail(fmt.Errorf("-cap-fraction %d: want 1 or more", c.capFraction))
	}
	if err := c.Init(); err != nil {
		fail(err)
	}
	if c.ReportOnly {
		var r Report
		if err := c.Outputs.Rerender(&r, func() string { return render(&r) }); err != nil {
			fail(err)
		}
		return
	}
	r := &Report{Header: report.NewHeader(c.Work, c.Python), Reps: c.Reps, BudgetMiB: c.budgetMiB, OursBudgetArgs: c.oursBudgetArgs,
		ZOrderBy: c.zorderBy, TargetSize: c.targetSize}
	save := func() error { return c.Outputs.Save(r, render(r)) }
	if err := measure(c, r, save); err != nil {
		fail(err)
	}
	r.Finish()
	if err := save(); err != nil {
		fail(err)
	}
	fmt.Print(render(r))
	logf("report: %s, results: %s", c.Outputs.Markdown, c.Outputs.JSON)
	if len(r.Problems) > 0 {
		fail(errors.New("some runs failed or disagreed; see the report"))
	}
}

func parseCases(s string) ([]string, error) {
	var out []string
	for _, cs := range strings.Split(s, ",") {
		cs = strings.TrimSpace(cs)
		if !slices.Contains(allCases, cs) {
			return nil, fmt.Errorf("unknown case %q: the cases are %s", cs, strings.Join(allCases, ", "))
		}
		if !slices.Contains(out, cs) {
			out = append(out, cs)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(allCases, a) - slices.Index(allCases, b) })
	return out, nil
}

var logf, fail = report.Log("maintbench").Printf, report.Log("maintbench").Fail

// measure prepares every case's table and runs the case's engines on
// copies of it, calling saved after each run.
func measure(c config, r *Report, saved func() error) error {
	missing := oursMissing(c)
	if missing != "" {
		r.Notes = append(r.Notes, "deltalite not measured: "+missing)
		logf("deltalite not measured: %s", missing)
	}
	for _, cs := range c.cases {
		cr := &Case{Name: cs}
		r.Cases = append(r.Cases, cr)
		var err error
		if cr.Table, err = prepare(c, cs); err != nil {
			return fmt.Errorf("%s: %w", cs, err)
		}
		base := filepath.Join(c.Work, "tables", cr.Table.Name)
		var floorMiB int64
		if cs == caseZOrderBig && c.capMiB == 0 {
			if floorMiB, err = capFloorMiB(c, base); err != nil {
				return fmt.Errorf("%s: %w", cs, err)
			}
		}
		for rep := range c.Reps {
			for i, e := range runOrder(cs, rep) {
				if e == engineOurs && missing != "" {
					continue
				}
				if e == engineCapped && cr.CapMiB == 0 {
					cr.CapMiB, cr.CapFrom = capOf(c, cr, floorMiB)
					logf("%s: capping delta-rs at %d MiB (%s)", cs, cr.CapMiB, cr.CapFrom)
				}
				run := runEngine(c, cr, e, base)
				run.Rep, run.Order = rep+1, i+1
				if run.Error != "" && e != engineCapped {
					r.Problems = append(r.Problems, fmt.Sprintf("%s, %s rep %d: %s", cs, e, rep+1, run.Error))
				}
				cr.Runs = append(cr.Runs, run)
				if err := saved(); err != nil {
					return err
				}
			}
		}
		r.Problems = append(r.Problems, verify(cr)...)
	}
	return nil
}

// oursMissing says why this engine cannot run (its command lacks optimize
// or vacuum, as before they landed), or "" when it can.
func oursMissing(c config) string {
	for _, sub := range []string{"optimize", "vacuum"} {
		if _, err := runproc.Output([]string{c.deltalite, sub, "--help"}, nil); err != nil {
			return fmt.Sprintf("`%s %s --help` failed (%s)", filepath.Base(c.deltalite), sub, runproc.ErrorSummary(err))
		}
	}
	return ""
}

// runOrder is the engines of a case in the order of repetition rep: the
// order alternates, so that a change in the machine's load hits all alike.
// The first repetition runs delta-rs uncapped before the capped run, whose
// cap it sets.
func runOrder(cs string, rep int) []string {
	order := []string{engineDeltaRS, engineOurs}
	if cs == caseZOrderBig {
		order = append(order, engineCapped)
	}
	k := rep % len(order)
	return append(order[k:len(order):len(order)], order[:k]...)
}

// argv is the command line of engine e for case cs on the table at dir.
func argv(c config, cr *Case, e, dir string) (args, env []string) {
	cs := cr.Name
	if e == engineOurs {
		if cs == caseVacuum {
			return []string{c.deltalite, "vacuum", dir, "--retention-hours", "0", "--no-enforce-retention", "--json"}, nil
		}
		args = []string{c.deltalite, "optimize", dir, "--json"}
		if c.targetSize > 0 {
			args = append(args, "--target-size", strconv.FormatInt(c.targetSize, 10))
		}
		if cs == caseZOrder || cs == caseZOrderBig {
			args = append(args, "--zorder-by", c.zorderBy)
		}
		if cs == caseZOrderBig {
			args = append(args, c.oursBudgetArgs...)
		}
		return args, nil
	}
	op := map[string]string{caseCompact: "compact", caseCompactOne: "compact", caseZOrder: "zorder", caseZOrderBig: "zorder", caseVacuum: "vacuum"}[cs]
	args = []string{c.Python, c.script, op, dir}
	if op == "zorder" {
		args = append(args, "--columns", c.zorderBy)
	}
	if c.targetSize > 0 && op != "vacuum" {
		args = append(args, "--target-size", strconv.FormatInt(c.targetSize, 10))
	}
	if e == engineCapped {
		// delta-rs's own knob for the memory of its sort, set to our
		// budget, and the address space capped at cr.CapMiB.
		args = append(args, "--max-spill-size", strconv.FormatInt(c.budgetMiB<<20, 10), "--as-limit", strconv.FormatInt(cr.CapMiB<<20, 10))
		env = cappedEnv
	}
	return args, env
}

// cappedEnv keeps glibc from reserving 64 MiB of address space per thread
// arena, which RLIMIT_AS would count although nothing uses it.
var cappedEnv = []string{"MALLOC_ARENA_MAX=2"}

// budgetArgsOf is the arguments that give the deltalite command its sort
// budget in zorder-big: the flag's, else --max-sort-bytes of budgetMiB.
func budgetArgsOf(flagValue string, budgetMiB int64) []string {
	if args := strings.Fields(flagValue); len(args) > 0 {
		return args
	}
	return []string{"--max-sort-bytes", strconv.FormatInt(budgetMiB<<20, 10)}
}

// defaultCapFraction caps delta-rs at a third of its uncapped peak: far
// above its start-up, far below what holding the partition takes.
const defaultCapFraction = 3

// capFloorMiB is the least cap the capped run may get: the peak address
// space of a delta-rs process that opened the table, plus the budget.
// Below it the run fails at start-up and shows nothing about the sort.
func capFloorMiB(c config, base string) (int64, error) {
	s, err := runproc.Run([]string{c.Python, c.script, "probe", base}, cappedEnv, os.Stderr)
	if err != nil {
		return 0, fmt.Errorf("probing delta-rs's baseline: %w", err)
	}
	var d struct {
		VMPeakKiB int64 `json:"vmPeakKiB"`
	}
	if err := json.Unmarshal([]byte(s.Result.Detail), &d); err != nil || d.VMPeakKiB <= 0 {
		return 0, fmt.Errorf("probing delta-rs's baseline: no VmPeak in %q", s.Result.Detail)
	}
	return d.VMPeakKiB>>10 + c.budgetMiB, nil
}

// capOf is the capped run's address-space cap and how it was set: the
// flag; else 1/capFraction of the peak address space of the case's first
// uncapped delta-rs run, so that the capped run shows whether delta-rs's
// sort needs memory for all of the partition; never below floorMiB.
func capOf(c config, cr *Case, floorMiB int64) (int64, string) {
	if c.capMiB > 0 {
		return c.capMiB, "-cap-mib"
	}
	if c.capFraction < 1 {
		c.capFraction = defaultCapFraction
	}
	for _, r := range cr.Runs {
		if r.Engine != engineDeltaRS || r.Error != "" {
			continue
		}
		var out struct {
			VMPeakKiB int64 `json:"vmPeakKiB"`
		}
		if json.Unmarshal([]byte(r.Output), &out) != nil || out.VMPeakKiB <= 0 {
			continue
		}
		peak := out.VMPeakKiB >> 10
		if cap := peak / c.capFraction; cap > floorMiB {
			return cap, fmt.Sprintf("1/%d of the %d MiB peak address space of delta-rs's uncapped run", c.capFraction, peak)
		}
		return floorMiB, fmt.Sprintf("its start-up address space plus the budget, above 1/%d of the %d MiB peak address space of its uncapped run",
			c.capFraction, peak)
	}
	return floorMiB, "its start-up address space plus the budget: no uncapped run gave its peak"
}

// runEngine runs engine e once on a fresh copy of the case's table.
func runEngine(c config, cr *Case, e, base string) Run {
	run := Run{Engine: e}
	dir := filepath.Join(c.Work, "run-"+cr.Name)
	if err := os.RemoveAll(dir); err != nil {
		run.Error = err.Error()
		return run
	}
	defer os.RemoveAll(dir)
	if err := runproc.LinkCopy(base, dir); err != nil {
		run.Error = err.Error()
		return run
	}
	_ = os.Remove(filepath.Join(dir, manifestCopyName))
	syscall.Sync()
	if _, err := runproc.ReadTree(dir); err != nil { // the table in the page cache for every run alike
		run.Error = err.Error()
		return run
	}
	before, err := dataFiles(dir)
	if err != nil {
		run.Error = err.Error()
		return run
	}
	args, env := argv(c, cr, e, dir)
	logf("%s, %s", cr.Name, e)
	s, line, err := runproc.RunLine(args, env, os.Stderr)
	run.Measured = s.Measured()
	if err != nil {
		run.Error = failureReason(err)
		logf("%s, %s: failed after %.1fs, peak RSS %d MiB: %s", cr.Name, e, run.WallS, run.MaxRSSKiB/1024, run.Error)
		return run
	}
	run.Output = string(line)
	if e != engineOurs {
		var res runproc.Result
		if err := json.Unmarshal(line, &res); err != nil {
			run.Error = fmt.Sprintf("result %q: %v", line, err)
			return run
		}
		run.OpS = res.Seconds
	}
	logf("%s, %s: wall %.1fs cpu %.1fs rss %d MiB", cr.Name, e, run.WallS, run.CPUS(), run.MaxRSSKiB/1024)
	syscall.Sync()
	if run.Volume, err = runproc.LogVolume(dir, cr.Table.Version); err != nil {
		run.Error = err.Error()
		return run
	}
	run.FilesAfter = cr.Table.Files - run.Volume.FilesRemoved + run.Volume.FilesAdded
	after, err := dataFiles(dir)
	if err != nil {
		run.Error = err.Error()
		return run
	}
	run.Deleted = deleted(before, after)
	var ck report.Checksum
	if err := runproc.OutputJSON([]string{c.Python, c.Checksum, dir}, os.Stderr, &ck); err != nil {
		run.Error = "checksum: " + err.Error()
		return run
	}
	run.Checksum = &ck
	return run
}

// dataFiles lists the files of the table at dir outside _delta_log, by
// path relative to dir.
func dataFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if rel == "_delta_log" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".parquet") {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
}

// deleted is the files of before that are not in after, sorted.
func deleted(before, after []string) []string {
	have := map[string]bool{}
	for _, f := range after {
		have[f] = true
	}
	var out []string
	for _, f := range before {
		if !have[f] {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// verify checks every successful run of a case: the content as the
// table's before the run, the deleted files of a vacuum those the
// compaction removed, the same for every engine.
func verify(cr *Case) []string {
	var problems []string
	var firstDeleted []string
	firstEngine := ""
	for _, run := range cr.Runs {
		if run.Error != "" || run.Checksum == nil {
			continue
		}
		where := fmt.Sprintf("%s, %s rep %d", cr.Name, run.Engine, run.Rep)
		if run.Checksum.Rows != cr.Table.Rows || run.Checksum.Hash != cr.Table.Hash {
			problems = append(problems, fmt.Sprintf("%s: content %d rows, hash %s; the table had %d rows, hash %s",
				where, run.Checksum.Rows, run.Checksum.Hash, cr.Table.Rows, cr.Table.Hash))
		}
		if cr.Name != caseVacuum {
			if len(run.Deleted) > 0 {
				problems = append(problems, fmt.Sprintf("%s: deleted %d data files (%s, ...)", where, len(run.Deleted), run.Deleted[0]))
			}
			if run.Volume.FilesRemoved == 0 {
				problems = append(problems, where+": removed no file")
			}
			continue
		}
		if int64(len(run.Deleted)) != cr.Table.Tombstones {
			problems = append(problems, fmt.Sprintf("%s: deleted %d data files, want the %d the compaction removed", where, len(run.Deleted), cr.Table.Tombstones))
		}
		if firstEngine == "" {
			firstDeleted, firstEngine = run.Deleted, run.Engine
		} else if !slices.Equal(run.Deleted, firstDeleted) {
			problems = append(problems, fmt.Sprintf("%s: deleted other files than %s rep 1", where, firstEngine))
		}
	}
	return problems
}

// failureSigns are the lines that say why a run failed, most telling
// first: the Rust allocator's abort, DataFusion's memory pool, Python's
// MemoryError, a panic, an error raised to Python.
var failureSigns = []string{"memory allocation of", "Resources exhausted", "MemoryError", "Cannot allocate memory", "panicked at", "Error:"}

// failureReason is a failed run's error in one line: how the process
// ended and the stderr line that says why (the last line of a Rust abort
// or a Python traceback is often a note, not the cause).
func failureReason(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	status := lines[0]
	if i := strings.Index(status, ": "); i >= 0 { // after the command line
		status = status[i+2:]
	}
	for _, sign := range failureSigns {
		for _, l := range lines[1:] {
			if strings.Contains(l, sign) {
				return status + ": " + strings.TrimSpace(l)
			}
		}
	}
	return runproc.ErrorSummary(err)
}
