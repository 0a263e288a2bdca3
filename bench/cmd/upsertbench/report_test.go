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

// TestRenderDVGolden holds the dv suite's report to testdata and judges
// issue 26's targets from made-up results: at 0.1% every target met, at
// 1% the wall and bytes-written targets missed, DELETE's bytes written
// its DV files alone, and the scan after the DV upserts within 1.2x.
func TestRenderDVGolden(t *testing.T) {
	const kib = 1 << 10
	vol := func(r Run, v runproc.Volume) Run {
		r.Volume = v
		return r
	}
	cowVol := runproc.Volume{Commits: 1, FilesAdded: 2, FilesRemoved: 80, BytesAdded: 2 << 30, BytesRemoved: 2 << 30}
	up := func(f float64, batchBytes int64, dvWall float64, dvAdded int64) *Size {
		s := size(1_000_000, detailed(run(engineMerge, 60, 50, 3000, "h"), 1, 1, ""),
			detailed(vol(run(engineRust, 40, 35, 900, "h"), cowVol), 1, 2, ""),
			detailed(vol(run(engineUpsertCoW, 20, 18, 300, "h"), cowVol), 1, 3, ""),
			detailed(vol(run(engineUpsertDV, dvWall, 1, 120, "h"), runproc.Volume{Commits: 1, FilesAdded: 2, BytesAdded: dvAdded,
				DVsAdded: 80, DVFiles: 1, DVBytes: 40 * kib}), 1, 4, "upsert stats"))
		s.Case, s.Fraction, s.Batch = caseDVUpsert, f, Batch{Rows: 2000, Updates: 1800, Inserts: 200, Bytes: batchBytes / 2, PartitionBytes: batchBytes}
		return s
	}
	del := size(1_000_000, detailed(run(engineDelete, 50, 40, 1500, "d"), 1, 1, ""),
		detailed(vol(run(engineGoDeleteCoW, 18, 16, 250, "d"), cowVol), 1, 2, ""),
		detailed(vol(run(engineGoDeleteDV, 1, 1, 60, "d"), runproc.Volume{Commits: 1, DVsAdded: 80, DVFiles: 1, DVBytes: 30 * kib}), 1, 3, ""))
	del.Case, del.Fraction, del.DeleteWhere = caseDVDelete, 0.001, "id < '0041'"
	del.WantRows = 2_000_000 - 2057
	for i := range del.Runs {
		del.Runs[i].Checksum.Rows = del.WantRows
	}
	scan := size(1_000_000, detailed(vol(run(engineScanCoW, 10, 12, 200, "s"), runproc.Volume{Commits: 30}), 1, 1, ""),
		detailed(vol(run(engineScanDV, 11, 13, 210, "s"), runproc.Volume{Commits: 11, DVsAdded: 800}), 1, 2, ""))
	scan.Case, scan.Fraction, scan.Batch, scan.ScanUpserts = caseScanAfter, 0.01, Batch{Bytes: 25 << 20}, 10
	r := &Report{Header: testHeaderUpsert, RustDeltalite: "0.1.15", RustPython: "3.12.1", Suite: suiteDV, Payload: 1000, Partitions: 2,
		FileRows: 25_000, Reps: 1, Sizes: []*Size{up(0.001, 2<<20, 1, 2<<20), up(0.01, 20<<20, 6, 30<<20), del, scan}}
	for _, s := range r.Sizes {
		s.Problems = verify(s)
	}
	out := r.markdown()
	for _, want := range []string{
		"- dv-upsert, 1M, 0.1%: process wall at most 0.1x copy-on-write's: 0.05 — met.",
		"- dv-upsert, 1M, 0.1%: peak RSS at most copy-on-write's: 120 vs 300 MiB, 0.40 — met.",
		"- dv-upsert, 1M, 0.1%: bytes written at most 1.2x the batch's bytes per partition plus the DV bytes: 2.0 MiB written, 2.4 MiB + 40.0 KiB allowed — met.",
		"- dv-upsert, 1M, 1%: process wall at most 0.25x copy-on-write's: 0.30 — **not met**.",
		"- dv-upsert, 1M, 1%: bytes written at most 1.2x the batch's bytes per partition plus the DV bytes: 30.0 MiB written, 24.0 MiB + 40.0 KiB allowed — **not met**.",
		"- dv-delete, 1M, 0.1%: process wall at most 0.1x copy-on-write's: 0.06 — met.",
		"- dv-delete, 1M, 0.1%: bytes written at most 1.2x the batch's bytes plus the DV bytes: 30.0 KiB written, 0.0 KiB + 30.0 KiB allowed — met.",
		"- scan-after, 1M, 1%: scan wall after the DV upserts at most 1.2x the scan after the copy-on-write ones: 1.10 — met.",
		"- 0.1%: `WHERE id < '0041'` deletes 2057 rows.",
		"| 1M | 0.1% | deltalite upsert, DV | 0.8 | 1.0 | 1.5 | 120 | 0 / 2 | 80 | 2.0 MiB (40.0 KiB) | 0.0 KiB | 1.0 MiB (2.0 MiB per partition) |",
		"| 1M | 0.1% | Rust deltalite upsert | 0.13 | 0.03 | 0.04 | 0.00 | yes |",
		"Each table had 10 upserts of a 1% batch",
		"| dv-delete 0.1% | 1M | deltalite DELETE, DV |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	report.Golden(t, "testdata/dv.md", out)
}

// TestDVSuiteHelpers: the batch of a fraction keeps the default batch's
// nine updates to one insert, the DELETE's prefix is that fraction of the
// hex keys, -fractions refuses what is no fraction, and a run's deletion
// vectors are checked against its engine.
func TestDVSuiteHelpers(t *testing.T) {
	if u, i := fractionBatch(1_000_000, 0.001); u != 900 || i != 100 {
		t.Errorf("fractionBatch(1M, 0.1%%) = %d updates, %d inserts; want 900, 100", u, i)
	}
	if u, i := fractionBatch(100, 0.001); u != 1 || i != 0 {
		t.Errorf("fractionBatch(100, 0.1%%) = %d, %d; want one update", u, i)
	}
	for f, want := range map[float64]string{0.001: "0042", 0.01: "028f", 0.1: "199a", 1: "ffff"} {
		if got := deletePrefix(f); got != want {
			t.Errorf("deletePrefix(%g) = %q, want %q", f, got, want)
		}
	}
	if got, err := parseFractions("0.01, 0.001,0.01"); err != nil || len(got) != 2 || got[0] != 0.01 || got[1] != 0.001 {
		t.Errorf("parseFractions = %v, %v", got, err)
	}
	for _, bad := range []string{"0", "1.5", "x", "-0.1"} {
		if _, err := parseFractions("0.01," + bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("parseFractions(%q): %v, want an error naming it", bad, err)
		}
	}
	if got := checkDV(engineUpsertDV, runproc.Volume{FilesAdded: 2}); !strings.Contains(got, "no deletion vector") {
		t.Errorf("a DV run without DVs: %q", got)
	}
	if got := checkDV(engineUpsertCoW, runproc.Volume{DVsAdded: 3, DVFiles: 1}); !strings.Contains(got, "3 files given deletion vectors") {
		t.Errorf("a copy-on-write run with DVs: %q", got)
	}
	if got := checkDV(engineGoDeleteDV, runproc.Volume{DVsAdded: 3}); got != "" {
		t.Errorf("a DV run with DVs: %q", got)
	}
	if got := checkDV(engineMerge, runproc.Volume{FilesAdded: 2}); got != "" {
		t.Errorf("delta-rs without DVs: %q", got)
	}
}
