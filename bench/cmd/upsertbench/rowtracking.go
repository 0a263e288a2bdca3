package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/bench/internal/report"
)

// suiteRowTracking is the -suite value of the row tracking benchmark.
const suiteRowTracking = "rowtracking"

// The rowtracking suite's cases, on the upsert's spread batch.
const (
	// caseRTUpsert: this engine's upsert on a plain copy and on a copy
	// with row tracking.
	caseRTUpsert = "rt-upsert"
	// caseRTMerge: this engine's upsert MERGE (caseMergeUpsert's) on a
	// plain copy and on a copy with row tracking.
	caseRTMerge = "rt-merge"
)

// rtCases is every case of the rowtracking suite in the order they run.
var rtCases = []string{caseRTUpsert, caseRTMerge}

// rtEngines is the engines that run on a copy with row tracking on
// (enableProperty: the protocol upgrade, the backfill and the property,
// not measured).
var rtEngines = []string{engineUpsertRT, engineGoMergeRT}

// rtOpposites is, per case, this engine without and with row tracking.
func rtOpposites(cs string) (plain, tracked string) {
	if cs == caseRTUpsert {
		return engineUpsert, engineUpsertRT
	}
	return engineGoMerge, engineGoMergeRT
}

var rtCaseTitle = map[string]string{
	caseRTUpsert: cdfCaseTitle[caseCDFUpsert],
	caseRTMerge:  cdfCaseTitle[caseCDFMerge],
}

// renderRowTracking is the rowtracking suite's report: per case the
// engines' medians, the ratios with row tracking over without, then issue
// 27's target (at most 1.1x wall and peak RSS) and every run.
func renderRowTracking(all *Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Row tracking: upsert and MERGE with and without it\n\n")
	b.WriteString(all.markdownHeader())
	p("Tables and batch are the upsert benchmark's (bench/UPSERT.md): %d partitions of the given rows, payload ~%d characters, "+
		"appends of %d rows; the batch updates %d and inserts %d keys in each of the first two partitions. Every engine runs "+
		"on its own copy of the table; on a copy marked row tracking this engine first set `delta.enableRowTracking=true` "+
		"(`Table.SetProperties`: protocol upgrade, backfill of row ids, property; not measured), so the operation reads each "+
		"rewritten file with its rows' ids and writes them into the materialized columns. Each engine runs %d time(s) per "+
		"size and case, in its own process, the engines' order rotating per rep. Before every run the page cache was %s.\n\n",
		all.Partitions, all.Payload, all.FileRows, all.Updates, all.Inserts, all.Reps, cmp.Or(all.PageCache, "not recorded"))
	for _, cs := range rtCases {
		r := all.only(cs)
		if len(r.Sizes) == 0 {
			continue
		}
		plain, tracked := rtOpposites(cs)
		p("## %s\n\n", rtCaseTitle[cs])
		medians(&b, r, []string{plain, tracked}, "files added (bytes)", func(a agg) string { return fmt.Sprintf("%.0f (%s)", a.filesAdded, bytesLabel(a.bytesAdded)) })
		p("\n")
		ratiosTitled(&b, r, plain, tracked, "deltalite with row tracking / without")
	}
	p("## Targets (issue 27)\n\n")
	for _, cs := range rtCases {
		r := all.only(cs)
		if len(r.Sizes) == 0 {
			continue
		}
		plain, tracked := rtOpposites(cs)
		for _, t := range []struct {
			what string
			of   func(agg) float64
		}{{"process wall", func(a agg) float64 { return a.wall }}, {"peak RSS", func(a agg) float64 { return a.rss }}} {
			parts, ok := sizeRatios(r, tracked, plain, 1.1, t.of)
			p("- %s: %s with row tracking at most 1.1x without: %s — %s.\n", cs, t.what, parts, report.Verdict(ok))
		}
	}
	p("\n")
	everyRun(&b, all)
	p("\nExpected content as the upsert's, the same with and without row tracking.\n")
	details(&b, all)
	return b.String()
}
