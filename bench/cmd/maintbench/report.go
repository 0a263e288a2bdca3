package main

import (
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/optimize"
)

// Run is one measured process.
type Run struct {
	Engine string `json:"engine"`
	Rep    int    `json:"rep"`
	Order  int    `json:"order"`
	// Measured: OpS is delta-rs's operation timed inside its process,
	// zero for the deltalite command, which does not time itself.
	runproc.Measured
	// Volume is what the run's commits added and removed.
	Volume     runproc.Volume `json:"volume"`
	FilesAfter int64          `json:"files_after"`
	// Deleted is the data files gone from disk after the run.
	Deleted  []string         `json:"deleted,omitempty"`
	Output   string           `json:"output,omitempty"` // the program's last line (its metrics)
	Checksum *report.Checksum `json:"checksum,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// Case is one case's table and runs.
type Case struct {
	Name   string `json:"name"`
	Table  *Table `json:"table"`
	CapMiB int64  `json:"cap_mib,omitempty"` // zorder-big: the capped delta-rs run's address space
	// CapFrom says how CapMiB was set.
	CapFrom string `json:"cap_from,omitempty"`
	Runs    []Run  `json:"runs"`
}

// Report is the whole invocation.
type Report struct {
	report.Header
	Reps      int   `json:"reps"`
	BudgetMiB int64 `json:"budget_mib"`
	// OursBudgetArgs set the deltalite command's sort budget; none: it
	// ran with its default.
	OursBudgetArgs []string `json:"ours_budget_args,omitempty"`
	ZOrderBy       string   `json:"zorder_by"`
	TargetSize     int64    `json:"target_size"`
	Cases          []*Case  `json:"cases"`
	Notes          []string `json:"notes,omitempty"`
	Problems       []string `json:"problems,omitempty"`
}

// The targets against delta-rs.
const (
	targetWall = 1.0
	targetRSS  = 0.5
)

type agg struct {
	n, failed                           int
	op, wall, cpu, rss, bytes, deleted  float64
	filesAfter, filesAdded, filesRemove float64
	lastError                           string
}

func aggregate(cr *Case, engine string) agg {
	var a agg
	var s runproc.Samples
	var del, after []float64
	for _, run := range cr.Runs {
		if run.Engine != engine {
			continue
		}
		if run.Error != "" {
			a.failed++
			a.lastError = run.Error
			continue
		}
		s.Add(run.Measured, run.Volume)
		del = append(del, float64(len(run.Deleted)))
		after = append(after, float64(run.FilesAfter))
	}
	m := s.Medians()
	a.n = m.N
	a.op, a.wall, a.cpu, a.rss, a.bytes = m.OpS, m.WallS, m.CPUS, m.RSSMiB, m.BytesAdded
	a.filesAdded, a.filesRemove = m.FilesAdded, m.FilesRemoved
	a.deleted, a.filesAfter = runproc.Median(del), runproc.Median(after)
	return a
}

func caseTitle(cs string) string {
	return map[string]string{
		caseCompact:    "compaction, many small files over partitions",
		caseCompactOne: "compaction, one large partition",
		caseZOrder:     "z-order, one large partition",
		caseZOrderBig:  "z-order, one partition many times our memory budget",
		caseVacuum:     "vacuum after compaction",
	}[cs]
}

func tableLine(cr *Case, r *Report) string {
	t := cr.Table
	s := fmt.Sprintf("%d files in %d partition(s), %.2f GiB, %d rows", t.Files, t.Options.Partitions, float64(t.Bytes)/(1<<30), t.Rows)
	switch cr.Name {
	case caseZOrderBig:
		s += fmt.Sprintf(" (%.1f× the budget of %d MiB)", float64(t.Bytes)/float64(r.BudgetMiB<<20), r.BudgetMiB)
	case caseVacuum:
		s = fmt.Sprintf("the compaction case's table (%d files) compacted once by delta-rs: %d live files, %d removed files still on disk",
			t.Options.Files, t.Files, t.Tombstones)
	}
	return s
}

func render(r *Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Table maintenance: deltalite vs delta-rs\n\n")
	b.WriteString(r.Markdown())
	target := "each engine's default"
	if r.TargetSize > 0 {
		target = fmt.Sprintf("%d bytes", r.TargetSize)
	}
	p("Each run is one process on its own copy of the case's table (data files hard-linked, the log copied), with the "+
		"table in the page cache; %d run(s) per engine and case, the order of the engines alternating. Target file "+
		"size: %s. Z-order columns: %s.\n\n", r.Reps, target, r.ZOrderBy)
	for _, n := range r.Notes {
		p("**Note:** %s\n\n", n)
	}
	p("| case | what | table |\n|---|---|---|\n")
	for _, cr := range r.Cases {
		p("| %s | %s | %s |\n", cr.Name, caseTitle(cr.Name), tableLine(cr, r))
	}
	p("\n| case | engine | runs ok | process wall (s) | op (s) | CPU user+sys (s) | peak RSS (MiB) | files before → after (removed / added) | bytes added | data files deleted |\n")
	p("|---|---|---:|---:|---:|---:|---:|---|---:|---:|\n")
	for _, cr := range r.Cases {
		for _, e := range engines(cr.Name) {
			a := aggregate(cr, e)
			if a.n == 0 {
				if a.failed > 0 {
					p("| %s | %s | 0 of %d | failed: %s | | | | | | |\n", cr.Name, e, a.failed, a.lastError)
				}
				continue
			}
			op := "—"
			if e != engineOurs {
				op = fmt.Sprintf("%.2f", a.op)
			}
			p("| %s | %s | %d of %d | %.2f | %s | %.2f | %.0f | %d → %.0f (%.0f / %.0f) | %.2f GiB | %.0f |\n", cr.Name, e, a.n, a.n+a.failed,
				a.wall, op, a.cpu, a.rss, cr.Table.Files, a.filesAfter, a.filesRemove, a.filesAdded, a.bytes/(1<<30), a.deleted)
		}
	}
	p("\nMedians over the successful runs. process wall, CPU and peak RSS (`ru_maxrss`) from `wait4`; op: delta-rs's " +
		"operation timed inside its process (opening the table and the operation, imports excluded); files from the " +
		"runs' commits in the `_delta_log`; data files deleted: `.parquet` files on disk before the run and not after.\n\n")
	p("**Ratios deltalite / delta-rs and the targets** (wall: our whole process against delta-rs's operation alone, " +
		"the stricter comparison for us; below 1: deltalite takes less)\n\n")
	p("| case | wall (ours process / delta-rs op) | process wall | CPU | peak RSS | wall ≤ %.1fx | peak RSS ≤ %.1fx | same content |\n", targetWall, targetRSS)
	p("|---|---:|---:|---:|---:|---|---|---|\n")
	for _, cr := range r.Cases {
		d, o := aggregate(cr, engineDeltaRS), aggregate(cr, engineOurs)
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", cr.Name, report.Ratio(o.wall, d.op), report.Ratio(o.wall, d.wall), report.Ratio(o.cpu, d.cpu),
			report.Ratio(o.rss, d.rss), report.Judge(o.wall, d.op, targetWall), report.Judge(o.rss, d.rss, targetRSS), sameContent(cr))
	}
	for _, cr := range r.Cases {
		if cr.Name != caseZOrderBig {
			continue
		}
		c := aggregate(cr, engineCapped)
		p("\n**Z-order of a partition %.1f× our budget under a memory cap.** delta-rs ran with `max_spill_size` set to the "+
			"budget (%d MiB) and its address space capped (RLIMIT_AS, as `prlimit --as`) at %d MiB (%s): ",
			float64(cr.Table.Bytes)/float64(r.BudgetMiB<<20), r.BudgetMiB, cr.CapMiB, cr.CapFrom)
		switch {
		case c.n+c.failed == 0:
			p("not run.\n")
		case c.failed > 0:
			p("**failed in %d of %d runs**: %s\n", c.failed, c.n+c.failed, c.lastError)
		default:
			p("succeeded in every run (%d), wall %.2f s, peak RSS %.0f MiB.\n", c.n, c.wall, c.rss)
		}
		if len(r.OursBudgetArgs) > 0 {
			p("\ndeltalite ran with `%s`.\n", strings.Join(r.OursBudgetArgs, " "))
		} else {
			p("\ndeltalite ran with its default sort budget (`optimize.DefaultMaxSortBytes`, %d MiB).\n",
				optimize.DefaultMaxSortBytes>>20)
		}
	}
	report.Problems(&b, r.Problems)
	t := report.EveryRun(&b, 2, []report.Column{report.Text("case"), report.Text("engine")}, []report.Column{report.Text("removed / added"),
		report.Number("bytes added"), report.Number("deleted"), report.Text("content (rows, hash)")})
	for _, cr := range r.Cases {
		for _, run := range cr.Runs {
			t.Row([]string{cr.Name, run.Engine}, run.Rep, run.Order, run.Measured, fmt.Sprintf("%d / %d", run.Volume.FilesRemoved, run.Volume.FilesAdded),
				fmt.Sprint(run.Volume.BytesAdded), fmt.Sprint(len(run.Deleted)), report.Content(run.Error, run.Checksum.Fields()...))
		}
	}
	p("\nThe content hash is DuckDB's `hash()` of every column summed over the rows, read through delta-rs; every run " +
		"must leave the hash the table had.\n")
	return b.String()
}

// sameContent says whether every run that finished left the table's
// content as it was.
func sameContent(cr *Case) string {
	ran, failed := false, false
	for _, run := range cr.Runs {
		switch {
		case run.Checksum != nil && (run.Checksum.Rows != cr.Table.Rows || run.Checksum.Hash != cr.Table.Hash):
			return "NO: " + run.Engine + " rep " + fmt.Sprint(run.Rep)
		case run.Checksum != nil:
			ran = true
		case run.Error != "" && run.Engine != engineCapped:
			failed = true
		}
	}
	switch {
	case !ran:
		return "—"
	case failed:
		return "yes, where the run finished"
	}
	return "yes"
}

// engines is the engines of case cs, in the report's order.
func engines(cs string) []string { return runOrder(cs, 0) }
