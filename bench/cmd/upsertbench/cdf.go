package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/protocol"
)

// suiteCDF is the -suite value of the change data feed benchmark.
const suiteCDF = "cdf"

// The cdf suite's cases, on the upsert's spread batch.
const (
	// caseCDFUpsert: this engine's upsert on a plain copy and on a CDF copy.
	caseCDFUpsert = "cdf-upsert"
	// caseCDFMerge: this engine's upsert MERGE (caseMergeUpsert's) on a
	// plain copy and on a CDF copy, and delta-rs's on a CDF copy.
	caseCDFMerge = "cdf-merge"
)

// cdfCases is every case of the cdf suite in the order they run.
var cdfCases = []string{caseCDFUpsert, caseCDFMerge}

// cdfEngines is the engines that run on a copy with the change data feed.
var cdfEngines = []string{engineUpsertCDF, engineGoMergeCDF, engineMergeCDF}

// enableProperty sets the table property prop to true on the table at dir
// with this engine (one metadata commit, adding the feature the protocol
// needs) and returns the version it committed, after which the measured
// operation's commits are counted.
func enableProperty(dir, prop string) (int64, error) {
	ctx := context.Background()
	t, err := deltalite.Open(ctx, dir)
	if err != nil {
		return 0, err
	}
	if err := t.SetProperties(ctx, map[string]string{prop: "true"}, deltalite.PropertiesOptions{}); err != nil {
		return 0, err
	}
	return t.Version(), nil
}

// copyProperty is the property an engine's copy of the table gets before
// its run (enableProperty), and what it is called in errors; "" for none.
func copyProperty(engine string) (prop, what string) {
	switch {
	case slices.Contains(cdfEngines, engine):
		return protocol.PropEnableChangeDataFeed, "the change data feed"
	case slices.Contains(dvEngines, engine):
		return protocol.PropEnableDeletionVectors, "deletion vectors"
	case slices.Contains(rtEngines, engine):
		return protocol.PropEnableRowTracking, "row tracking"
	}
	return "", ""
}

// checkCDC is the problem with a run's change data files, "" when none:
// a run on a CDF copy must have written some (the batch updates and
// inserts rows), a run on a plain copy none.
func checkCDC(cdf bool, v runproc.Volume) string {
	switch n := v.CDCFiles; {
	case cdf && n == 0:
		return "no cdc action in the commits on a table with the change data feed on"
	case !cdf && n > 0:
		return fmt.Sprintf("%d cdc actions on a table without the change data feed", n)
	}
	return ""
}

// cdfOpposites is, per case, this engine without and with the change data
// feed, and the other engine on the CDF table ("" for none).
func cdfOpposites(cs string) (plain, withCDF, theirs string) {
	if cs == caseCDFUpsert {
		return engineUpsert, engineUpsertCDF, ""
	}
	return engineGoMerge, engineGoMergeCDF, engineMergeCDF
}

var cdfCaseTitle = map[string]string{
	caseCDFUpsert: "Upsert (`Table.Upsert`, keys `id`, partition key `" + partitionColumn + "`)",
	caseCDFMerge:  "MERGE upsert (`ON " + mergeOn + "`, `WHEN MATCHED UPDATE SET * WHEN NOT MATCHED INSERT *`)",
}

// renderCDF is the cdf suite's report: per case the engines' medians with
// the change data files written, the ratios with the feed over without it
// and against delta-rs, then the targets and every run.
func renderCDF(all *Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Change data feed: upsert and MERGE with and without it, and against delta-rs MERGE\n\n")
	b.WriteString(all.markdownHeader())
	p("Tables and batch are the upsert benchmark's (bench/UPSERT.md): %d partitions of the given rows, payload ~%d characters, "+
		"appends of %d rows; the batch updates %d and inserts %d keys in each of the first two partitions. Every engine runs "+
		"on its own copy of the table; on a copy marked CDF this engine first set `delta.enableChangeDataFeed=true` "+
		"(`Table.SetProperties`, one metadata commit, not measured), so the operation writes change data files (`cdc` actions "+
		"under `_change_data/`). Each engine runs %d time(s) per size and case, in its own process, the engines' order "+
		"rotating per rep. Before every run the page cache was %s. deltalite runs `dlops upsert` and `dlops merge` (a merge "+
		"spec), delta-rs `bench/py/merge_bench.py`.\n\n",
		all.Partitions, all.Payload, all.FileRows, all.Updates, all.Inserts, all.Reps, cmp.Or(all.PageCache, "not recorded"))
	for _, cs := range cdfCases {
		r := all.only(cs)
		if len(r.Sizes) == 0 {
			continue
		}
		plain, withCDF, theirs := cdfOpposites(cs)
		engines := []string{plain, withCDF}
		if theirs != "" {
			engines = append(engines, theirs)
		}
		p("## %s\n\n", cdfCaseTitle[cs])
		medians(&b, r, engines, "cdc files (bytes)", func(a agg) string { return fmt.Sprintf("%.0f (%s)", a.cdcFiles, bytesLabel(a.cdcBytes)) })
		p("\n")
		ratiosTitled(&b, r, plain, withCDF, "deltalite with the change data feed / without")
		if theirs != "" {
			ratiosTitled(&b, r, theirs, withCDF, "deltalite / delta-rs MERGE, both with the change data feed")
		}
	}
	cdfTargets(&b, all)
	everyRun(&b, all)
	p("\nExpected content as the upsert's (rows = partitions x rows per partition + inserts; sum(counter) = rows before - " +
		"updates + 2 x batch rows), the same with and without the change data feed. A run on a CDF copy that committed no " +
		"`cdc` action fails, as does one on a plain copy that committed any.\n")
	details(&b, all)
	return b.String()
}

// cdfTargets judges issue 25's targets on the cdf suite's results: with
// the feed against without, wall at most 1.3x and peak RSS at most 1.1x;
// MERGE with the feed against delta-rs's, peak RSS at most 0.3x and wall
// at most 1.0x.
func cdfTargets(b *strings.Builder, all *Report) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Targets (issue 25)\n\n")
	type target struct {
		what   string
		max    float64
		of     func(agg) float64
		versus string // the engine the CDF run is held against
	}
	for _, cs := range cdfCases {
		r := all.only(cs)
		if len(r.Sizes) == 0 {
			continue
		}
		plain, withCDF, theirs := cdfOpposites(cs)
		ts := []target{
			{"process wall", 1.3, func(a agg) float64 { return a.wall }, plain},
			{"peak RSS", 1.1, func(a agg) float64 { return a.rss }, plain},
		}
		if theirs != "" {
			ts = append(ts, target{"peak RSS", 0.3, func(a agg) float64 { return a.rss }, theirs},
				target{"process wall", 1.0, func(a agg) float64 { return a.wall }, theirs})
		}
		for _, t := range ts {
			against := "without the change data feed"
			if t.versus == theirs {
				against = "delta-rs MERGE's on the CDF table"
			}
			parts, ok := sizeRatios(r, withCDF, t.versus, t.max, t.of)
			p("- %s: %s with the change data feed at most %.1fx %s: %s — %s.\n", cs, t.what, t.max, against, parts, report.Verdict(ok))
		}
	}
	p("\n")
}

// sizeRatios gives, per size of r, engine u's figure over engine o's
// ("62.5k 1.12", or "failed" where either has no run), joined, and
// whether every one is at most max.
func sizeRatios(r *Report, u, o string, max float64, of func(agg) float64) (string, bool) {
	var parts []string
	ok := true
	for _, s := range r.Sizes {
		a, b := aggregate(s, u), aggregate(s, o)
		if a.n == 0 || b.n == 0 {
			parts = append(parts, rowsLabel(s.RowsPerPartition)+" failed")
			ok = false
			continue
		}
		parts = append(parts, rowsLabel(s.RowsPerPartition)+" "+report.Ratio(of(a), of(b)))
		ok = ok && of(a) <= max*of(b)
	}
	return strings.Join(parts, ", "), ok
}
