package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

// agg is the medians of one engine's runs at one size.
type agg struct {
	engine                            string
	n                                 int
	op, wall, cpu, rss                float64 // seconds, seconds, seconds, MiB
	bytesAdded, bytesRemoved          float64
	filesAdded, filesRemoved, commits float64
	cdcFiles, cdcBytes                float64 // change data files the commits wrote
	dvsAdded, dvBytes                 float64 // files given a DV; the DV files' bytes
	// From the engines' metrics files; unknown for older results and for
	// counts an engine does not report.
	bytesRead, bytesWritten   known
	probed, scanned           known // files whose keys the upsert read; files MERGE scanned
	skippedStats, skippedScan known // upserts: not probed; MERGE: skipped during its scan
	skippedProbe              known // probed and found holding no batch key
}

// known is a median that some runs may not have.
type known struct {
	v  float64
	ok bool
}

func (k known) count() string {
	if !k.ok {
		return "—"
	}
	return fmt.Sprintf("%.0f", k.v)
}

func (k known) bytes() string {
	if !k.ok {
		return "—"
	}
	return bytesLabel(k.v)
}

// upsertFiles splits an upsert's files of the touched partitions by what
// decided them. Both upserts probe every file statistics leave before
// rewriting it, so the probed files are the rewritten ones and those the
// probe cleared; counts that break this give ok false.
func upsertFiles(m *EngineMetrics) (skippedStats, skippedProbe int64, ok bool) {
	if m == nil || m.FilesProbed == nil || m.FilesCarriedOver == nil || m.FilesRemoved == nil {
		return 0, 0, false
	}
	p, c, r := *m.FilesProbed, *m.FilesCarriedOver, *m.FilesRemoved
	if p < r || p > r+c {
		return 0, 0, false
	}
	return r + c - p, p - r, true
}

func aggregate(s *Size, engine string) agg {
	var op, wall, cpu, rss, ba, br, fa, fr, cm, cf, cb, dva, dvb []float64
	var read, written, probed, scanned, skStats, skScan, skProbe []float64
	some := func(xs *[]float64, v *int64) {
		if v != nil {
			*xs = append(*xs, float64(*v))
		}
	}
	for _, r := range s.Runs {
		if r.Engine != engine || r.Error != "" {
			continue
		}
		op = append(op, r.OpS)
		wall = append(wall, r.WallS)
		cpu = append(cpu, r.UserS+r.SysS)
		rss = append(rss, float64(r.MaxRSSKiB)/1024)
		ba = append(ba, float64(r.Volume.BytesAdded))
		br = append(br, float64(r.Volume.BytesRemoved))
		fa = append(fa, float64(r.Volume.FilesAdded))
		fr = append(fr, float64(r.Volume.FilesRemoved))
		cm = append(cm, float64(r.Volume.Commits))
		cf = append(cf, float64(r.Volume.CDCFiles))
		cb = append(cb, float64(r.Volume.CDCBytes))
		dva = append(dva, float64(r.Volume.DVsAdded))
		dvb = append(dvb, float64(r.Volume.DVBytes))
		if m := r.Metrics; m != nil {
			read = append(read, float64(m.ReadBytes))
			written = append(written, float64(m.WrittenBytes))
			some(&probed, m.FilesProbed)
			some(&scanned, m.FilesScanned)
			some(&skScan, m.FilesSkipped)
			if st, pr, ok := upsertFiles(m); ok {
				skStats, skProbe = append(skStats, float64(st)), append(skProbe, float64(pr))
			}
		}
	}
	m := runproc.Median
	k := func(xs []float64) known { return known{m(xs), len(xs) > 0} }
	return agg{engine: engine, n: len(op), op: m(op), wall: m(wall), cpu: m(cpu), rss: m(rss), bytesAdded: m(ba), bytesRemoved: m(br),
		filesAdded: m(fa), filesRemoved: m(fr), commits: m(cm), cdcFiles: m(cf), cdcBytes: m(cb), dvsAdded: m(dva), dvBytes: m(dvb),
		bytesRead: k(read), bytesWritten: k(written), probed: k(probed), scanned: k(scanned),
		skippedStats: k(skStats), skippedScan: k(skScan), skippedProbe: k(skProbe)}
}

func rowsLabel(n int64) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000_000:
		return fmt.Sprintf("%.2gM", float64(n)/1e6)
	case n >= 1000:
		return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), "0"), ".") + "k"
	}
	return fmt.Sprint(n)
}

// caseOf is a size's case; results saved before the cases hold the
// spread case alone.
func caseOf(s *Size) string { return cmp.Or(s.Case, caseSpread) }

// sizeCase is a size's case with its batch fraction, when it has one.
func sizeCase(s *Size) string {
	if s.Fraction > 0 {
		return caseOf(s) + " " + fractionLabel(s.Fraction)
	}
	return caseOf(s)
}

// only is r with the sizes of one case.
func (r *Report) only(cs string) *Report {
	o := *r
	o.Sizes = nil
	for _, s := range r.Sizes {
		if caseOf(s) == cs {
			o.Sizes = append(o.Sizes, s)
		}
	}
	return &o
}

// engines is the engines that ran at any size, in the order of allEngines
// (a report saved before the Rust deltalite joined has two).
func (r *Report) engines() []string {
	var out []string
	for _, e := range allEngines {
		for _, s := range r.Sizes {
			if slices.ContainsFunc(s.Runs, func(run Run) bool { return run.Engine == e }) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

func render(all *Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	// The spread case's tables, ratios and targets are the ones reports
	// before the clustered case had; the clustered case has its own.
	r := all.only(caseSpread)
	engines := r.engines()
	rust := slices.Contains(all.engines(), engineRust)
	if rust {
		p("# Upsert: deltalite vs the Rust deltalite and delta-rs MERGE\n\n")
	} else {
		p("# Upsert: deltalite vs delta-rs MERGE\n\n")
	}
	b.WriteString(r.markdownHeader())
	p("Table: %d partitions (`_ph_partition_key`), each holding the given rows; rows of a random UUID-shaped string key `id`, "+
		"`tenant` int64, `counter` int32, `created_at`/`updated_at` timestamp(us, UTC), `amount` decimal(38,10) and a "+
		"`payload` string of ~%d random characters (cut from a %d MiB pool); built with delta-rs `write_deltalake` appends of %d rows (delta-rs "+
		"splits each at its 100 MiB file target). Batch: %d updates spread evenly over each of the 2 touched partitions "+
		"plus %d inserts each. Each engine runs %d time(s) per size on its own copy of the table (data files shared by "+
		"hard links, log copied), in its own process. Before every run the page cache was %s.\n\n",
		r.Partitions, r.Payload, r.PoolMiB, r.FileRows, r.Updates, r.Inserts, r.Reps, cmp.Or(r.PageCache, "not recorded"))
	if rust {
		p("The Rust deltalite runs `DeltaLiteTable.open(table).upsert(batch, primary_keys=[\"id\"], " +
			"partition_key=\"_ph_partition_key\")` with its defaults, in its own virtual environment " +
			"(`bench/py/rust_deltalite_bench.py`); MERGE runs `when_matched_update_all().when_not_matched_insert_all()` " +
			"with delta-rs's defaults; deltalite runs `Table.Upsert` with its defaults (`dlops upsert`). " +
			"The engines' order rotates by one place per rep.\n\n")
	}

	medians(&b, r, engines, "commits", func(a agg) string { return fmt.Sprintf("%.0f", a.commits) })
	if len(r.Sizes) > 0 {
		p("\nMedians over the runs. op: the operation timed inside the process (reading the batch, opening the table, " +
			"upserting, committing); process wall and CPU (user + system) and peak RSS (`ru_maxrss`) from `wait4`. " +
			"Bytes removed and added from the `add` and `remove` actions of every commit after the base version; bytes " +
			"read: what the process passed through read system calls during the operation (`/proc/self/io` rchar: " +
			"page-cache hits and the batch included, memory-mapped reads not).\n\n")
	}

	ratios(&b, r, engineMerge, engineUpsert, "delta-rs MERGE")
	if rust {
		ratios(&b, r, engineRust, engineUpsert, "Rust deltalite")
	}
	targets(&b, r)
	if rust {
		rustTargets(&b, r)
	}

	clustered(&b, all.only(caseClustered))
	filesAdded(&b, all)

	everyRun(&b, all)
	p("\nExpected content per size and case: rows = partitions x rows per partition + inserts; sum(counter) = rows before - updates + 2 x batch rows; " +
		"every key distinct; the hash is DuckDB's `hash()` of every column summed over the rows, read through delta-rs.\n")
	details(&b, all)
	return b.String()
}

// medians renders the engines' medians per size; the column named col
// holds val's figure.
func medians(b *strings.Builder, r *Report, engines []string, col string, val func(agg) string) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if len(r.Sizes) == 0 {
		return
	}
	p("| rows / partition | table | engine | op (s) | process wall (s) | CPU user+sys (s) | peak RSS (MiB) | bytes removed | bytes added | files removed / added | %s | bytes read |\n", col)
	p("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Sizes {
		for _, e := range engines {
			a := aggregate(s, e)
			if a.n == 0 {
				p("| %s | %s | %s | failed | | | | | | | | |\n", rowsLabel(s.RowsPerPartition), tableLabel(s), e)
				continue
			}
			p("| %s | %s | %s | %.1f | %.1f | %.1f | %.0f | %s | %s | %.0f / %.0f | %s | %s |\n", rowsLabel(s.RowsPerPartition),
				tableLabel(s), e, a.op, a.wall, a.cpu, a.rss, gibLabel(a.bytesRemoved), gibLabel(a.bytesAdded),
				a.filesRemoved, a.filesAdded, val(a), a.bytesRead.bytes())
		}
	}
}

// markdownHeader is the header with the Rust deltalite's version, when it ran.
func (r *Report) markdownHeader() string {
	if r.RustDeltalite == "" {
		return r.Markdown()
	}
	return r.Markdown(fmt.Sprintf("Rust deltalite (PyPI `deltalite`) %s on CPython %s", r.RustDeltalite, cmp.Or(r.RustPython, "?")))
}

// everyRun renders the table of every run of every case.
func everyRun(b *strings.Builder, all *Report) {
	t := report.EveryRun(b, 1, []report.Column{report.Text("case"), report.Number("rows / partition"), report.Text("engine")},
		[]report.Column{report.Text("rows updated / inserted / copied"), report.Text("content (rows, sum(counter), hash)")})
	for _, s := range all.Sizes {
		for _, run := range s.Runs {
			var ck []any
			if c := run.Checksum; c != nil {
				ck = []any{c.Rows, c.SumCounter, c.Hash}
			}
			t.Row([]string{sizeCase(s), rowsLabel(s.RowsPerPartition), run.Engine}, run.Rep, run.Order, run.Measured,
				fmt.Sprintf("%d / %d / %d", run.Result.RowsUpdated, run.Result.RowsInserted, run.Result.RowsCopied), report.Content(run.Error, ck...))
		}
	}
}

// details renders each run's stats line.
func details(b *strings.Builder, all *Report) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	for _, s := range all.Sizes {
		for _, run := range s.Runs {
			if run.Result.Detail != "" {
				p("\n%s, %s, %s rep %d: `%s`\n", sizeCase(s), rowsLabel(s.RowsPerPartition), run.Engine, run.Rep, run.Result.Detail)
			}
		}
	}
}

// clustered renders the clustered case: what each engine read, skipped and
// rewrote, and this engine's ratios against each other one.
func clustered(b *strings.Builder, r *Report) {
	if len(r.Sizes) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	engines := r.engines()
	p("\n## Clustered keys\n\n")
	p("The same tables, with a batch whose updated keys all lie in one data file of each touched partition (its largest; " +
		"the updates are spread evenly over that file's rows), plus the same inserts:\n\n")
	for _, s := range r.Sizes {
		var files []string
		for _, f := range s.Batch.Clustered {
			files = append(files, fmt.Sprintf("%s: %d of the file's %d rows, %s, one of %d files", f.Partition,
				s.Batch.Updates/int64(max(len(s.Batch.Clustered), 1)), f.Rows, sizeLabel(f.Bytes), f.FilesInPartition))
		}
		p("- %s rows per partition: %s.\n", rowsLabel(s.RowsPerPartition), cmp.Or(strings.Join(files, "; "), "no batch"))
	}
	if slices.Contains(engines, engineMergeLiteral) {
		p("\n%s runs the same MERGE with `AND t._ph_partition_key IN (...)` listing the batch's partitions added to "+
			"its predicate", engineMergeLiteral)
		if r.Partitions > 0 && r.Partitions <= 2 {
			p(" (the batch touches all %d partitions of these tables, so the term leaves no partition to skip)", r.Partitions)
		}
		p(".\n")
	}
	p("\n| rows / partition | engine | op (s) | process wall (s) | CPU user+sys (s) | peak RSS (MiB) | files probed / scanned | " +
		"files skipped by stats / by probe | files removed / added | bytes read | bytes written | bytes removed / added |\n")
	p("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Sizes {
		for _, e := range engines {
			a := aggregate(s, e)
			if a.n == 0 {
				p("| %s | %s | failed | | | | | | | | | |\n", rowsLabel(s.RowsPerPartition), e)
				continue
			}
			probed, skipped := a.probed.count(), a.skippedStats.count()+" / "+a.skippedProbe.count()
			if a.scanned.ok { // MERGE: it scans what its predicate leaves, no probe
				probed, skipped = a.scanned.count(), a.skippedScan.count()+" / —"
			}
			p("| %s | %s | %.1f | %.1f | %.1f | %.0f | %s | %s | %.0f / %.0f | %s | %s | %s / %s |\n", rowsLabel(s.RowsPerPartition), e,
				a.op, a.wall, a.cpu, a.rss, probed, skipped, a.filesRemoved, a.filesAdded, a.bytesRead.bytes(), a.bytesWritten.bytes(),
				bytesLabel(a.bytesRemoved), bytesLabel(a.bytesAdded))
		}
	}
	p("\nMedians over the runs, measured as in the first table. Files probed: the upserts' files of the touched partitions whose " +
		"key columns they read; skipped by stats: files of the touched partitions they did not probe; skipped by probe: " +
		"probed files holding no key of the batch, kept as they are. For MERGE, its own metrics over the whole table: " +
		"`num_target_files_scanned` and `num_target_files_skipped_during_scan`. Bytes written: what the process passed " +
		"through write system calls (`/proc/self/io` wchar: data files and log).\n\n")
	p("**Ratios deltalite / each engine, clustered keys** (below 1: deltalite uses less)\n\n")
	p("| rows / partition | against | peak RSS | process wall | CPU | bytes read | bytes added | same content |\n|---:|---|---:|---:|---:|---:|---:|---|\n")
	for _, s := range r.Sizes {
		u := aggregate(s, engineUpsert)
		for _, e := range engines {
			if e == engineUpsert {
				continue
			}
			o := aggregate(s, e)
			p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", rowsLabel(s.RowsPerPartition), e, report.Ratio(u.rss, o.rss), report.Ratio(u.wall, o.wall),
				report.Ratio(u.cpu, o.cpu), report.Ratio(u.bytesRead.v, o.bytesRead.v), report.Ratio(u.bytesAdded, o.bytesAdded), sameContent(s, o, u))
		}
	}
	p("\n")
}

// filesAdded renders, per case, size and engine, the data files each run
// added to each partition, so a small tail file shows. Runs that added
// the same files are shown once.
func filesAdded(b *strings.Builder, r *Report) {
	var rows []string
	for _, cs := range allCases {
		for _, s := range r.only(cs).Sizes {
			for _, e := range r.engines() {
				var layouts []string
				for _, run := range s.Runs {
					if run.Engine != e || run.Error != "" || run.Added == nil {
						continue
					}
					if l := layoutLabel(run.Added); !slices.Contains(layouts, l) {
						layouts = append(layouts, l)
					}
				}
				if len(layouts) > 0 {
					rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |\n", cs, rowsLabel(s.RowsPerPartition), e, strings.Join(layouts, " / ")))
				}
			}
		}
	}
	if len(rows) == 0 {
		return // results saved before the harness read them
	}
	fmt.Fprintf(b, "**Files added per partition** (count, smallest – largest; runs that differ are separated by /)\n\n")
	fmt.Fprintf(b, "| case | rows / partition | engine | files added |\n|---|---:|---|---|\n%s\n", strings.Join(rows, ""))
}

// layoutLabel is one run's added files, partition by partition.
func layoutLabel(parts []PartitionFiles) string {
	var out []string
	for _, p := range parts {
		out = append(out, fmt.Sprintf("%s: %d, %s – %s", cmp.Or(p.Partition, "(null)"), p.Files, sizeLabel(p.MinBytes), sizeLabel(p.MaxBytes)))
	}
	return strings.Join(out, "; ")
}

// sizeLabel is a file size in MiB, or KiB below one MiB.
func sizeLabel(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// bytesLabel is a byte count in GiB, or in MiB or KiB below one GiB.
func bytesLabel(b float64) string {
	if b >= 1<<30 {
		return gibLabel(b)
	}
	return sizeLabel(int64(b))
}

// ratios renders ours's medians over other's (labelled label) per size.
func ratios(b *strings.Builder, r *Report, other, ours, label string) {
	ratiosTitled(b, r, other, ours, "deltalite / "+label)
}

// ratiosTitled is ratios under the title "Ratios <title>".
func ratiosTitled(b *strings.Builder, r *Report, other, ours, title string) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("**Ratios %s** (below 1: deltalite uses less)\n\n", title)
	p("| rows / partition | peak RSS | process wall | CPU | bytes added | bytes removed | same content |\n|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range r.Sizes {
		o, u := aggregate(s, other), aggregate(s, ours)
		p("| %s | %s | %s | %s | %s | %s | %s |\n", rowsLabel(s.RowsPerPartition), report.Ratio(u.rss, o.rss), report.Ratio(u.wall, o.wall),
			report.Ratio(u.cpu, o.cpu), report.Ratio(u.bytesAdded, o.bytesAdded), report.Ratio(u.bytesRemoved, o.bytesRemoved), sameContent(s, o, u))
	}
	p("\n")
}

// sameContent says whether the engines of a ratio ended with the content
// every engine at that size should have (verify's problems cover them all).
// Another engine's failed runs are not theirs: a refusal of the batch by
// one engine says nothing of what two others wrote.
func sameContent(s *Size, a, b agg) string {
	others := map[string]bool{}
	for _, r := range s.Runs {
		if r.Error != "" && r.Engine != a.engine && r.Engine != b.engine {
			others[failure(r.Engine, r.Rep, r.Error)] = true
		}
	}
	var problems []string
	for _, p := range s.Problems {
		if !others[p] {
			problems = append(problems, p)
		}
	}
	switch {
	case len(problems) > 0:
		return "NO: " + strings.Join(problems, "; ")
	case a.n == 0 || b.n == 0:
		return "n/a"
	}
	return "yes"
}

func targets(b *strings.Builder, r *Report) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	var small, oneM *Size
	for _, s := range r.Sizes {
		if aggregate(s, engineUpsert).n == 0 {
			continue
		}
		if small == nil || s.RowsPerPartition < small.RowsPerPartition {
			small = s
		}
		if s.RowsPerPartition <= 1_000_000 && (oneM == nil || s.RowsPerPartition > oneM.RowsPerPartition) {
			oneM = s
		}
	}
	if small == nil || oneM == nil {
		return
	}
	us, ul := aggregate(small, engineUpsert), aggregate(oneM, engineUpsert)
	ml := aggregate(oneM, engineMerge)
	p("**Targets** (issue 4)\n\n")
	flat := ul.rss / us.rss
	p("- deltalite peak RSS flat from %s to %s rows per partition, at most 1.15x: %.0f → %.0f MiB, %.2fx — %s.\n",
		rowsLabel(small.RowsPerPartition), rowsLabel(oneM.RowsPerPartition), us.rss, ul.rss, flat, report.Verdict(flat <= 1.15))
	if ml.n > 0 {
		q := ul.rss / ml.rss
		p("- at most 1/4 of MERGE's peak RSS at %s rows: %.0f vs %.0f MiB, %.2fx — %s.\n", rowsLabel(oneM.RowsPerPartition), ul.rss, ml.rss, q, report.Verdict(q <= 0.25))
	}
	var walls, bytes []string
	wallOK, bytesOK := true, true
	for _, s := range r.Sizes {
		m, u := aggregate(s, engineMerge), aggregate(s, engineUpsert)
		if m.n == 0 || u.n == 0 {
			continue
		}
		walls = append(walls, fmt.Sprintf("%s %s", rowsLabel(s.RowsPerPartition), report.Ratio(u.wall, m.wall)))
		bytes = append(bytes, fmt.Sprintf("%s %s", rowsLabel(s.RowsPerPartition), report.Ratio(u.bytesAdded+u.bytesRemoved, m.bytesAdded+m.bytesRemoved)))
		wallOK = wallOK && u.wall <= m.wall
		bytesOK = bytesOK && u.bytesAdded <= m.bytesAdded*1.01 && u.bytesRemoved <= m.bytesRemoved
	}
	p("- process wall time no worse than MERGE (ratio ≤ 1): %s — %s.\n", strings.Join(walls, ", "), report.Verdict(wallOK))
	p("- bytes rewritten (removed + added) no more than MERGE's: %s — %s (bytes added within 1%%, as Parquet encoders differ).\n", strings.Join(bytes, ", "), report.Verdict(bytesOK))
}

// rustTargets judges the targets against the Rust deltalite at the sizes
// they are set for (250k and 1M rows per partition); a run of other sizes
// gets the ratios above and no verdict.
func rustTargets(b *strings.Builder, r *Report) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n**Targets against the Rust deltalite** (issue 12, at 250k and 1M rows per partition)\n\n")
	type target struct {
		what  string
		max   float64
		value func(u, rs agg) (float64, float64)
	}
	ts := []target{
		{"CPU (user + sys)", 0.8, func(u, rs agg) (float64, float64) { return u.cpu, rs.cpu }},
		{"process wall", 0.7, func(u, rs agg) (float64, float64) { return u.wall, rs.wall }},
		{"peak RSS", 0.5, func(u, rs agg) (float64, float64) { return u.rss, rs.rss }},
	}
	measured := false
	for _, t := range ts {
		var parts []string
		ok := true
		for _, s := range r.Sizes {
			if s.RowsPerPartition != 250_000 && s.RowsPerPartition != 1_000_000 {
				continue
			}
			u, rs := aggregate(s, engineUpsert), aggregate(s, engineRust)
			if u.n == 0 || rs.n == 0 {
				parts = append(parts, rowsLabel(s.RowsPerPartition)+" failed")
				ok = false
				continue
			}
			a, c := t.value(u, rs)
			parts = append(parts, fmt.Sprintf("%s %s", rowsLabel(s.RowsPerPartition), report.Ratio(a, c)))
			ok = ok && c > 0 && a/c <= t.max
		}
		if len(parts) == 0 {
			continue
		}
		measured = true
		p("- %s at most %.1fx the Rust deltalite's: %s — %s.\n", t.what, t.max, strings.Join(parts, ", "), report.Verdict(ok))
	}
	if !measured {
		p("- not judged: this run measured neither 250k nor 1M rows per partition.\n")
	}
}

func tableLabel(s *Size) string {
	return fmt.Sprintf("%s GiB, %d files", strings.TrimSuffix(fmt.Sprintf("%.2f", gib(s.Base.Bytes)), "0"), s.Base.Files)
}

func gibLabel(b float64) string {
	return fmt.Sprintf("%.2f GiB", b/(1<<30))
}

// chart draws four panels (peak RSS, process wall time, CPU time, bytes
// added) of every engine against rows per partition, on a logarithmic x
// axis, for the spread case.
func chart(all *Report) string {
	r := all.only(caseSpread)
	type panel struct {
		title, unit string
		val         func(agg) float64
	}
	panels := []panel{
		{"peak RSS", "MiB", func(a agg) float64 { return a.rss }},
		{"process wall time", "s", func(a agg) float64 { return a.wall }},
		{"CPU time (user + sys)", "s", func(a agg) float64 { return a.cpu }},
		{"bytes written (adds)", "GiB", func(a agg) float64 { return a.bytesAdded / (1 << 30) }},
	}
	// MERGE is drawn widest and lightest, the Rust deltalite between, so
	// equal values stay visible.
	type line struct {
		name, color string
		width       float64
	}
	var engines []line
	for _, l := range []line{{engineMerge, "#e8a05c", 5}, {engineRust, "#8fbf7f", 3.5}, {engineUpsert, "#2b6cb0", 2}} {
		if slices.Contains(r.engines(), l.name) {
			engines = append(engines, l)
		}
	}
	const pw, ph, ml, mt, mb, mr = 300.0, 250.0, 58.0, 34.0, 42.0, 14.0
	w := float64(len(panels))*(pw+ml+mr) + 10
	h := ph + mt + mb + 40
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", w, h)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	var xs []int64
	for _, s := range r.Sizes {
		xs = append(xs, s.RowsPerPartition)
	}
	if len(xs) == 0 {
		p("</svg>\n")
		return b.String()
	}
	lx0, lx1 := math.Log10(float64(xs[0])), math.Log10(float64(xs[len(xs)-1]))
	if lx1 == lx0 {
		lx0, lx1 = lx0-0.5, lx1+0.5
	}
	for i, pn := range panels {
		x0 := 10 + float64(i)*(pw+ml+mr) + ml
		y0 := mt
		maxV := 0.0
		for _, s := range r.Sizes {
			for _, e := range engines {
				if a := aggregate(s, e.name); a.n > 0 {
					maxV = math.Max(maxV, pn.val(a))
				}
			}
		}
		if maxV == 0 {
			maxV = 1
		}
		step := niceStep(maxV / 5)
		top := math.Ceil(maxV/step) * step
		px := func(n int64) float64 {
			return x0 + 12 + (math.Log10(float64(n))-lx0)/(lx1-lx0)*(pw-24)
		}
		py := func(v float64) float64 { return y0 + ph - v/top*ph }
		p(`<text x="%.1f" y="%.1f" font-size="13" font-weight="bold">%s (%s)</text>`+"\n", x0, y0-12, pn.title, pn.unit)
		for v := 0.0; v <= top+step/2; v += step {
			p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e2e2e2"/>`+"\n", x0, py(v), x0+pw, py(v))
			p(`<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-4, py(v)+4, trimNum(v))
		}
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x0, y0+ph, x0+pw, y0+ph)
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x0, y0, x0, y0+ph)
		for _, n := range xs {
			p(`<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px(n), y0+ph+16, rowsLabel(n))
		}
		p(`<text x="%.1f" y="%.1f" text-anchor="middle">rows per partition (log scale)</text>`+"\n", x0+pw/2, y0+ph+32)
		for _, e := range engines {
			var pts []string
			for _, s := range r.Sizes {
				a := aggregate(s, e.name)
				if a.n == 0 {
					continue
				}
				x, y := px(s.RowsPerPartition), py(pn.val(a))
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
				p(`<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>`+"\n", x, y, 1.5+e.width, e.color)
			}
			if len(pts) > 1 {
				p(`<polyline points="%s" fill="none" stroke="%s" stroke-width="%.0f"/>`+"\n", strings.Join(pts, " "), e.color, e.width)
			}
		}
	}
	ly := h - 12
	lx := 10 + ml
	for _, e := range engines {
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.0f"/>`+"\n", lx, ly-4, lx+24, ly-4, e.color, e.width)
		p(`<text x="%.1f" y="%.1f">%s</text>`+"\n", lx+30, ly, e.name)
		lx += 190
	}
	p(`<text x="%.1f" y="%.1f" fill="#555">%d partitions, ~%d-char payload, batch %d+%d rows per partition; medians of %d run(s)</text>`+"\n",
		lx+20, ly, r.Partitions, r.Payload, r.Updates, r.Inserts, r.Reps)
	p("</svg>\n")
	return b.String()
}

func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*e >= x {
			return m * e
		}
	}
	return 10 * e
}

func trimNum(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
