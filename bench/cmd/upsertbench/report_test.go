package main

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

var testHeaderUpsert = report.Header{Command: "bench/upsert.sh --reps 1", Started: "2026-01-01T00:00:00Z", Finished: "2026-01-01T01:00:00Z",
	Machine: "test machine", Git: "abc1234", Deltalake: "1.0.0", LoadStart: "0.10 0.20 0.30", LoadEnd: "1.00 2.00 3.00"}

// detailed is r with the figures the every-run table shows beyond run's.
func detailed(r Run, rep, order int, detail string) Run {
	r.Rep, r.Order, r.OpS, r.SysS, r.LoadBefore, r.LoadAfter = rep, order, r.WallS-0.25, 0.5, 0.75, 1.5
	r.Result = runproc.Result{RowsUpdated: 9000, RowsInserted: 1000, RowsCopied: 5000, Detail: detail}
	return r
}

// TestRenderGolden holds the upsert suite's report (spread and clustered
// cases, the Rust deltalite, a failed run, a problem) and the merge
// suite's report to testdata.
func TestRenderGolden(t *testing.T) {
	const mib = 1 << 20
	one := []PartitionFiles{{Partition: "2026-01-01", Files: 1, MinBytes: 100 * mib, MaxBytes: 100 * mib}}
	failed := detailed(Run{Engine: engineRust, Error: "exit status 1 / boom"}, 1, 2, "")
	spread := size(250_000, detailed(run(engineMerge, 8, 9, 2000, "h"), 1, 1, "merge stats"), failed,
		detailed(run(engineUpsert, 3, 4, 200, "h"), 1, 3, "upsert stats"))
	spread.Case = caseSpread
	big := size(1_000_000, detailed(run(engineMerge, 20, 30, 3000, "h"), 1, 1, ""), detailed(run(engineRust, 10, 10, 1000, "x"), 1, 2, ""),
		detailed(run(engineUpsert, 6, 9, 400, "h"), 1, 3, ""))
	big.Case = caseSpread
	cl := size(250_000, withMetrics(detailed(run(engineMerge, 6, 8, 7000, "c"), 1, 1, ""), 8000, EngineMetrics{FilesScanned: i64(90), FilesSkipped: i64(0)}, one...),
		withMetrics(detailed(run(engineUpsert, 1, 0.6, 219, "c"), 1, 2, ""), 150,
			EngineMetrics{FilesProbed: i64(3), FilesCarriedOver: i64(88), FilesRemoved: i64(2)}, one...))
	cl.Case = caseClustered
	cl.Batch = Batch{Updates: 18_000, Clustered: []ClusterFile{{Partition: "2026-01-01", Rows: 22_000, Bytes: 100 * mib, FilesInPartition: 45}}}
	r := &Report{Header: testHeaderUpsert, RustDeltalite: "0.1.15", RustPython: "3.12.1", Payload: 4500, Partitions: 2, FileRows: 25_000,
		PoolMiB: 64, Updates: 9000, Inserts: 1000, Reps: 1, PageCache: "emptied", Sizes: []*Size{spread, big, cl}}
	for _, s := range r.Sizes {
		s.Problems = verify(s)
	}
	report.Golden(t, "testdata/upsert.md", r.markdown())

	mk := func(engine string, wall float64, rss int64, scanned int64, order int) Run {
		return withMetrics(detailed(run(engine, wall, wall, rss, "h"), 1, order, ""), 10, EngineMetrics{FilesScanned: i64(scanned)})
	}
	var sizes []*Size
	for _, cs := range mergeCases {
		theirs, ours := mergeOpposite(cs)
		s := size(250_000, mk(theirs, 10, 1000, 32, 1), mk(ours, 5, 200, 8, 2))
		s.Case = cs
		sizes = append(sizes, s)
	}
	m := &Report{Header: testHeaderUpsert, Suite: suiteMerge, ScopedPartitions: 8, Payload: 4500, Partitions: 2, FileRows: 25_000,
		Updates: 9000, Inserts: 1000, Reps: 1, Sizes: sizes}
	report.Golden(t, "testdata/merge.md", m.markdown())
}

// TestRenderCDFGolden holds the cdf suite's report to testdata and judges
// issue 25's targets from made-up results: the upsert with the feed within
// both bounds, MERGE with it over the wall bound and within delta-rs's.
func TestRenderCDFGolden(t *testing.T) {
	withCDC := func(r Run, files, bytes int64) Run {
		r.Volume.CDCFiles, r.Volume.CDCBytes = files, bytes
		return r
	}
	up := size(250_000, detailed(run(engineUpsert, 4, 4, 200, "h"), 1, 1, ""),
		detailed(withCDC(run(engineUpsertCDF, 5, 5, 210, "h"), 2, 3<<20), 1, 2, "upsert stats"))
	up.Case = caseCDFUpsert
	mg := size(250_000, detailed(run(engineGoMerge, 4, 4, 200, "h"), 1, 1, ""),
		detailed(withCDC(run(engineGoMergeCDF, 6, 5, 230, "h"), 2, 3<<20), 1, 2, ""),
		detailed(withCDC(run(engineMergeCDF, 10, 8, 1000, "h"), 4, 4<<20), 1, 3, ""))
	mg.Case = caseCDFMerge
	r := &Report{Header: testHeaderUpsert, Suite: suiteCDF, Payload: 4500, Partitions: 2, FileRows: 25_000,
		Updates: 9000, Inserts: 1000, Reps: 1, Sizes: []*Size{up, mg}}
	out := r.markdown()
	for _, want := range []string{
		"- cdf-upsert: process wall with the change data feed at most 1.3x without the change data feed: 250k 1.25 — met.",
		"- cdf-upsert: peak RSS with the change data feed at most 1.1x without the change data feed: 250k 1.05 — met.",
		"- cdf-merge: process wall with the change data feed at most 1.3x without the change data feed: 250k 1.50 — **not met**.",
		"- cdf-merge: peak RSS with the change data feed at most 1.1x without the change data feed: 250k 1.15 — **not met**.",
		"- cdf-merge: peak RSS with the change data feed at most 0.3x delta-rs MERGE's on the CDF table: 250k 0.23 — met.",
		"- cdf-merge: process wall with the change data feed at most 1.0x delta-rs MERGE's on the CDF table: 250k 0.60 — met.",
		"| 250k | 0.0 GiB, 0 files | delta-rs MERGE, CDF | 9.8 | 10.0 | 8.5 | 1000 | 1.00 GiB | 1.00 GiB | 4 / 4 | 4 (4.0 MiB) | — |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	report.Golden(t, "testdata/cdf.md", out)

	if got := checkCDC(true, runproc.Volume{}); !strings.Contains(got, "no cdc action") {
		t.Errorf("a CDF run without cdc actions: %q", got)
	}
	if got := checkCDC(false, runproc.Volume{CDCFiles: 2}); !strings.Contains(got, "2 cdc actions on a table without") {
		t.Errorf("a plain run with cdc actions: %q", got)
	}
	if got := checkCDC(true, runproc.Volume{CDCFiles: 2}); got != "" {
		t.Errorf("a CDF run with cdc actions: %q", got)
	}
}
