// Command upsertbench compares this engine's upsert with delta-rs MERGE and
// with the Rust deltalite (PyPI `deltalite`) on the same table and batch, in
// one invocation: for every table size it builds a wide partitioned table
// once (with delta-rs, as production tables are written), makes a copy of it
// per engine that shares the data files, and runs delta-rs MERGE, the Rust
// deltalite's upsert and deltalite's Table.Upsert on their copies, each in
// its own process. It records wall time, CPU time and peak RSS from wait4,
// the bytes each engine's commits removed and added (read from the table's
// _delta_log), and checks that all tables end with the same content. It
// writes a Markdown report, the raw results as JSON and an SVG chart.
//
// Two cases share each base table (-cases): spread, a batch whose updated
// keys are spread evenly over each touched partition, and clustered, whose
// updated keys all come from one data file of each touched partition, where
// delta-rs MERGE also runs a second time with a literal partition term in
// its predicate. Each engine program writes its I/O and file counts to a
// metrics file (EngineMetrics), and the harness reads the files each run
// added per partition from the table's snapshot.
//
// With -suite merge (bench/merge.sh) it measures MERGE and DELETE instead,
// this engine's (dlops merge / delete) against delta-rs's on the same
// tables and batches (mergeCases): an upsert MERGE, a conditional MERGE
// (WHEN MATCHED AND s.updated_at > t.updated_at), the upsert MERGE on a
// table with more partitions than the batch touches (-scoped-partitions)
// and a DELETE of one partition; the report is renderMerge's.
//
// With -suite cdf it measures what the change data feed costs (cdf.go):
// this engine's upsert and upsert MERGE on a copy of the table with
// delta.enableChangeDataFeed=true against the same on a plain copy, and
// delta-rs MERGE on a CDF copy; the report is renderCDF's.
//
// With -suite dv it measures deletion vectors (dv.go): this engine's upsert
// and DELETE on a copy with delta.enableDeletionVectors=true, with DVs and
// copy-on-write, against the Rust deltalite's upsert, delta-rs MERGE and
// delta-rs DELETE, at batch fractions of a partition (-fractions), and a
// full scan after ten DV upserts against one after ten copy-on-write
// upserts; the report is renderDV's.
//
//	upsertbench -sizes 62500,250000,1000000 [-cases spread,clustered] [-reps 1] [-payload 4500] [-rust-python PY]
//	upsertbench -suite merge -sizes 62500,250000,1000000 [-cases merge-upsert,merge-conditional,merge-scoped,delete]
//	upsertbench -suite cdf -sizes 62500 [-cases cdf-upsert,cdf-merge]
//	upsertbench -suite dv -sizes 1000000 -payload 1000 [-fractions 0.001,0.01,0.1] [-cases dv-upsert,dv-delete,scan-after]
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

const (
	engineMerge        = "delta-rs MERGE"
	engineMergeLiteral = "delta-rs MERGE, partition literal"
	engineRust         = "Rust deltalite upsert"
	engineUpsert       = "deltalite upsert"
	engineGoMerge      = "deltalite MERGE"
	engineDelete       = "delta-rs DELETE"
	engineGoDelete     = "deltalite DELETE"
	// The cdf suite's engines: the same programs on a copy with the
	// change data feed enabled (enableProperty).
	engineUpsertCDF  = "deltalite upsert, CDF"
	engineGoMergeCDF = "deltalite MERGE, CDF"
	engineMergeCDF   = "delta-rs MERGE, CDF"
	// The dv suite's engines (dv.go).
	engineUpsertDV    = "deltalite upsert, DV"
	engineUpsertCoW   = "deltalite upsert, copy-on-write"
	engineGoDeleteDV  = "deltalite DELETE, DV"
	engineGoDeleteCoW = "deltalite DELETE, copy-on-write"
	engineScanDV      = "deltalite scan, after DV upserts"
	engineScanCoW     = "deltalite scan, after copy-on-write upserts"
	// The rowtracking suite's engines (rowtracking.go).
	engineUpsertRT  = "deltalite upsert, row tracking"
	engineGoMergeRT = "deltalite MERGE, row tracking"
)

// allEngines is every engine in the order of the report's tables.
var allEngines = []string{engineMerge, engineMergeLiteral, engineRust, engineUpsert, engineGoMerge, engineDelete, engineGoDelete,
	engineUpsertCDF, engineGoMergeCDF, engineMergeCDF,
	engineUpsertCoW, engineUpsertDV, engineGoDeleteCoW, engineGoDeleteDV, engineScanCoW, engineScanDV,
	engineUpsertRT, engineGoMergeRT}

// runDir is the suffix of an engine's copy of the base table.
var runDir = map[string]string{engineMerge: "merge", engineMergeLiteral: "merge-literal", engineRust: "rust", engineUpsert: "go",
	engineGoMerge: "go-merge", engineDelete: "delete", engineGoDelete: "go-delete",
	engineUpsertCDF: "go-cdf", engineGoMergeCDF: "go-merge-cdf", engineMergeCDF: "merge-cdf",
	engineUpsertDV: "go-dv", engineUpsertCoW: "go-cow", engineGoDeleteDV: "go-delete-dv", engineGoDeleteCoW: "go-delete-cow",
	engineScanDV: "scan-dv", engineScanCoW: "scan-cow", engineUpsertRT: "go-rt", engineGoMergeRT: "go-merge-rt"}

// The cases: where the batch's updated keys lie in each touched partition.
const (
	caseSpread    = "spread"    // evenly over the partition's rows
	caseClustered = "clustered" // all in one data file of the partition
)

// allCases is every case of the upsert suite in the order they run and
// are reported.
var allCases = []string{caseSpread, caseClustered}

// The merge suite's cases (-suite merge).
const (
	// caseMergeUpsert: MERGE ON t.id = s.id AND t.<part> = s.<part>,
	// WHEN MATCHED UPDATE SET * WHEN NOT MATCHED INSERT *.
	caseMergeUpsert = "merge-upsert"
	// caseMergeConditional: the same with WHEN MATCHED AND
	// s.updated_at > t.updated_at (every batch row is newer).
	caseMergeConditional = "merge-conditional"
	// caseMergeScoped: caseMergeUpsert on a table of -scoped-partitions
	// partitions, of which the batch touches two; the predicate has no
	// literal partition term.
	caseMergeScoped = "merge-scoped"
	// caseDelete: DELETE WHERE <part> = <the first partition>.
	caseDelete = "delete"
)

// mergeCases is every case of the merge suite in the order they run.
var mergeCases = []string{caseMergeUpsert, caseMergeConditional, caseMergeScoped, caseDelete}

// suiteMerge is the -suite value of the MERGE benchmark.
const suiteMerge = "merge"

// partitionColumn is the generated tables' partition column.
const partitionColumn = "_ph_partition_key"

type config struct {
	report.Flags
	sizes                                  []int64
	cases                                  []string
	payload, partitions, fileRows, poolMiB int
	updates, inserts                       int
	dlops, dlbench, deltalite, gen, merge  string
	rustPython, rustUpsert                 string
	chart                                  string
	keep, dropBase, warm, dropCaches       bool
	// suite is "" (upsert), suiteMerge or suiteCDF; scopedPartitions is the
	// partitions of caseMergeScoped's table.
	suite            string
	scopedPartitions int
	// The dv suite's batch fractions of a partition, the scan-after case's
	// fraction and upserts, the batch's round (upsert_gen.py --round) and
	// the DELETE's predicate ("" for the merge suite's deletePredicate).
	fractions    []float64
	scanFraction float64
	scanUpserts  int
	round        int
	deleteWhere  string
}

// Manifest describes a generated base table (upsert_gen.py build's output).
type Manifest struct {
	RowsPerPartition int64   `json:"rows_per_partition"`
	Partitions       int     `json:"partitions"`
	Payload          int     `json:"payload"`
	FileRows         int     `json:"file_rows"`
	PoolMiB          int     `json:"pool_mib"`
	Version          int64   `json:"version"`
	Files            int64   `json:"files"`
	Bytes            int64   `json:"bytes"`
	Seconds          float64 `json:"seconds"`
}

// Batch describes a generated upsert batch (upsert_gen.py batch's output).
type Batch struct {
	Rows    int64 `json:"rows"`
	Updates int64 `json:"updates"`
	Inserts int64 `json:"inserts"`
	Bytes   int64 `json:"bytes"`
	// PartitionBytes is the bytes of each touched partition's rows written
	// to a Parquet file of its own, summed (0 in batches made before it).
	PartitionBytes int64 `json:"partition_bytes,omitempty"`
	// Clustered names, for a clustered batch, the data file of each touched
	// partition its updated keys were taken from; BaseFiles and BaseBytes
	// are the base table's when it was made, so a rebuilt table gets a new
	// batch.
	Clustered []ClusterFile `json:"clustered,omitempty"`
	BaseFiles int64         `json:"base_files,omitempty"`
	BaseBytes int64         `json:"base_bytes,omitempty"`
}

// ClusterFile is the data file a clustered batch's updates of one
// partition come from.
type ClusterFile struct {
	Partition string `json:"partition"`
	Path      string `json:"path"`
	Rows      int64  `json:"rows"`
	Bytes     int64  `json:"bytes"`
	// FilesInPartition is how many data files the partition had.
	FilesInPartition int64 `json:"files_in_partition"`
}

// Checksum is checksum.py's fingerprint of a table with the key and the
// counter column it is asked about.
type Checksum struct {
	report.Checksum
	DistinctKeys int64   `json:"distinct_keys"`
	SumCounter   int64   `json:"sum_counter"`
	Seconds      float64 `json:"seconds"`
}

// Run is one measured process.
type Run struct {
	Engine string `json:"engine"`
	Rep    int    `json:"rep"`
	Order  int    `json:"order"` // 1: ran first of its pair
	runproc.Measured
	Result runproc.Result `json:"result"`
	Volume runproc.Volume `json:"volume"`
	// Metrics is what the engine program wrote to its metrics file; nil in
	// results saved before programs wrote one.
	Metrics *EngineMetrics `json:"metrics,omitempty"`
	// Added is the data files the run's commits added, per partition.
	Added    []PartitionFiles `json:"added,omitempty"`
	Checksum *Checksum        `json:"checksum,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// EngineMetrics is the JSON object every engine program writes to the file
// its -metrics / --metrics flag names (dlops, and bench/py/upsert_args.py
// for the Python programs). Counts an engine does not report are nil.
type EngineMetrics struct {
	// ReadBytes and WrittenBytes are what the process passed through read
	// and write system calls during the timed operation (/proc/self/io's
	// rchar and wchar, page-cache hits included; the batch's bytes too).
	ReadBytes    int64 `json:"read_bytes"`
	WrittenBytes int64 `json:"written_bytes"`
	// The upserts' own counts over the touched partitions' files.
	FilesProbed      *int64 `json:"files_probed,omitempty"`
	FilesCarriedOver *int64 `json:"files_carried_over,omitempty"`
	FilesRemoved     *int64 `json:"files_removed,omitempty"`
	// delta-rs MERGE's num_target_files_scanned and
	// num_target_files_skipped_during_scan, over the whole table.
	FilesScanned *int64 `json:"files_scanned,omitempty"`
	FilesSkipped *int64 `json:"files_skipped,omitempty"`
}

// PartitionFiles is the data files a run added to one partition.
type PartitionFiles struct {
	Partition string `json:"partition"`
	Files     int    `json:"files"`
	MinBytes  int64  `json:"min_bytes"`
	MaxBytes  int64  `json:"max_bytes"`
}

// Size is everything measured at one table size and case.
type Size struct {
	RowsPerPartition int64 `json:"rows_per_partition"`
	// Case is caseSpread or caseClustered; "" (results saved before the
	// cases) is caseSpread.
	Case           string   `json:"case,omitempty"`
	Base           Manifest `json:"base"`
	Batch          Batch    `json:"batch"`
	WantRows       int64    `json:"want_rows"`
	WantSumCounter int64    `json:"want_sum_counter"`
	Runs           []Run    `json:"runs"`
	Problems       []string `json:"problems,omitempty"`
	// Fraction is the dv suite's batch (or DELETE) as a fraction of a
	// partition's rows; DeleteWhere its DELETE's predicate.
	Fraction    float64 `json:"fraction,omitempty"`
	DeleteWhere string  `json:"delete_where,omitempty"`
	// ScanUpserts is the scan-after case's upserts before its scans.
	ScanUpserts int `json:"scan_upserts,omitempty"`
}

// Report is the whole invocation, as saved to JSON and rendered.
type Report struct {
	report.Header
	// RustDeltalite is the Rust deltalite's version; "" when it did not run.
	RustDeltalite string  `json:"rust_deltalite,omitempty"`
	RustPython    string  `json:"rust_python,omitempty"` // the CPython it ran on
	Payload       int     `json:"payload"`
	Partitions    int     `json:"partitions"`
	FileRows      int     `json:"file_rows"`
	PoolMiB       int     `json:"pool_mib"`
	Updates       int     `json:"updates"`
	Inserts       int     `json:"inserts"`
	Reps          int     `json:"reps"`
	PageCache     string  `json:"page_cache"`
	Sizes         []*Size `json:"sizes"`
	// Suite is "" (the upsert), suiteMerge or suiteCDF; ScopedPartitions the
	// merge suite's partitions of the merge-scoped table.
	Suite            string `json:"suite,omitempty"`
	ScopedPartitions int    `json:"scoped_partitions,omitempty"`
}

// pageCache says how each run's page cache was prepared.
func pageCache(c config) string {
	var parts []string
	if c.dropCaches {
		parts = append(parts, "emptied (`/proc/sys/vm/drop_caches`)")
	}
	if c.warm {
		parts = append(parts, "the base table's files read")
	}
	if len(parts) == 0 {
		return "left as the runs before left it"
	}
	return strings.Join(parts, ", then ")
}

func main() {
	var c config
	var sizes, cases, fractions string
	flag.StringVar(&sizes, "sizes", "62500,250000,1000000", "rows per touched partition, comma-separated")
	flag.StringVar(&cases, "cases", "", "where the batch's updated keys lie, comma-separated: "+
		"spread (evenly over each touched partition), clustered (all in one data file of each touched partition); "+
		"default both; with -suite merge: "+strings.Join(mergeCases, ", ")+" (default all); with -suite cdf: "+
		strings.Join(cdfCases, ", ")+" (default both); with -suite rowtracking: "+strings.Join(rtCases, ", ")+" (default both)")
	flag.StringVar(&c.suite, "suite", "", `"merge" measures MERGE and DELETE against delta-rs's (bench/merge.sh); `+
		`"cdf" the upsert and MERGE on a table with the change data feed against the same without it and against delta-rs MERGE; `+
		`"dv" the upsert, DELETE and scan with deletion vectors against copy-on-write, the Rust deltalite and delta-rs (bench/dv.sh); `+
		`"rowtracking" the upsert and MERGE on a table with row tracking against the same without it; default the upsert`)
	flag.StringVar(&fractions, "fractions", "0.001,0.01,0.1", "dv suite: batch sizes as fractions of a partition's rows, comma-separated "+
		"(9/10 updates, 1/10 inserts per touched partition; DELETE: that fraction of the keys); they replace -updates and -inserts")
	flag.Float64Var(&c.scanFraction, "scan-fraction", 0.01, "dv suite, scan-after: the fraction of each of the upserts before the scan")
	flag.IntVar(&c.scanUpserts, "scan-upserts", 10, "dv suite, scan-after: upserts (each a new batch) before the scan")
	flag.IntVar(&c.scopedPartitions, "scoped-partitions", 8, "merge suite: partitions of the merge-scoped case's table (the batch touches two)")
	flag.IntVar(&c.payload, "payload", 4500, "payload characters per row")
	flag.IntVar(&c.partitions, "partitions", 2, "partitions of the table (the batch touches the first two)")
	flag.IntVar(&c.poolMiB, "pool-mib", 64, "size of the random character pool payloads are cut from (MiB)")
	flag.IntVar(&c.fileRows, "file-rows", 25_000, "rows per append when the table is built (delta-rs splits files at its 100 MiB target)")
	flag.IntVar(&c.updates, "updates", 9_000, "updated keys per touched partition")
	flag.IntVar(&c.inserts, "inserts", 1_000, "inserted keys per touched partition")
	c.Register(flag.CommandLine, 1, "bench/out/upsert", "the tables, batches and reports")
	flag.StringVar(&c.dlops, "dlops", "bench/out/bin/dlops", "this engine's operation program")
	flag.StringVar(&c.dlbench, "dlbench", "bench/out/bin/dlbench", "dv suite: this engine's scan program")
	flag.StringVar(&c.deltalite, "deltalite", "bench/out/bin/deltalite", "dv suite: the deltalite command, whose scan exports tables with DVs for their checksum")
	flag.StringVar(&c.gen, "gen", "bench/py/upsert_gen.py", "table and batch generator")
	flag.StringVar(&c.merge, "merge", "bench/py/merge_bench.py", "the delta-rs MERGE program")
	flag.StringVar(&c.rustPython, "rust-python", "bench/out/venv-deltalite/bin/python",
		"Python (>= 3.12) with the Rust deltalite and pyarrow (bench/upsert.sh makes it); empty leaves that engine out")
	flag.StringVar(&c.rustUpsert, "rust-upsert", "bench/py/rust_deltalite_bench.py", "the Rust deltalite upsert program")
	flag.StringVar(&c.chart, "chart", "", "SVG chart (default WORK/upsert.svg)")
	flag.BoolVar(&c.keep, "keep", false, "keep each engine's table after its run")
	flag.BoolVar(&c.dropBase, "drop-base", false, "delete each base table after its size is measured (saves disk)")
	flag.BoolVar(&c.warm, "warm", true, "read the base table's files before every measured run, so each engine starts from the same page cache")
	flag.BoolVar(&c.dropCaches, "drop-caches", true, "empty the kernel's page cache before every measured run (needs root; without it the cache holds whatever earlier runs left)")
	flag.Parse()
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n <= 0 {
			fail(fmt.Errorf("bad size %q", s))
		}
		c.sizes = append(c.sizes, n)
	}
	known := allCases
	switch c.suite {
	case "":
	case suiteMerge:
		known = mergeCases
		c.rustPython = "" // the Rust deltalite has no MERGE
	case suiteCDF:
		known = cdfCases
		c.rustPython = "" // nor a change data feed
	case suiteRowTracking:
		known = rtCases
		c.rustPython = "" // the Rust deltalite does not track rows
	case suiteDV:
		known = dvCases
		var err error
		if c.fractions, err = parseFractions(fractions); err != nil {
			fail(err)
		}
		if c.scanFraction <= 0 || c.scanFraction > 1 || c.scanUpserts < 1 {
			fail(fmt.Errorf("-scan-fraction %g -scan-upserts %d: want a fraction in (0, 1] and at least one upsert", c.scanFraction, c.scanUpserts))
		}
	default:
		fail(fmt.Errorf("-suite %q: the suites are the upsert's (no -suite), %q, %q, %q and %q", c.suite, suiteMerge, suiteCDF, suiteDV, suiteRowTracking))
	}
	if c.suite == suiteMerge && c.scopedPartitions <= 2 {
		fail(fmt.Errorf("-scoped-partitions %d: the merge-scoped table needs more partitions than the 2 the batch touches", c.scopedPartitions))
	}
	var err error
	if c.cases, err = parseCases(cmp.Or(cases, strings.Join(known, ",")), known); err != nil {
		fail(err)
	}
	if c.chart == "" {
		c.chart = filepath.Join(c.Work, "upsert.svg")
	}
	if c.suite == suiteCDF || c.suite == suiteDV || c.suite == suiteRowTracking {
		// The merge suite's tables, in the same -work, keep its results.
		c.Outputs.Markdown = cmp.Or(c.Outputs.Markdown, filepath.Join(c.Work, "results-"+c.suite+".md"))
		c.Outputs.JSON = cmp.Or(c.Outputs.JSON, filepath.Join(c.Work, "results-"+c.suite+".json"))
	}
	if err := c.Init(); err != nil {
		fail(err)
	}
	if c.ReportOnly {
		var r Report
		if err := c.Outputs.Rerender(&r, func() string { return r.markdown() }); err != nil {
			fail(err)
		}
		if r.Suite != "" {
			return // the chart is the upsert's
		}
		if err := os.WriteFile(c.chart, []byte(chart(&r)), 0o644); err != nil {
			fail(err)
		}
		pngChart(c.chart)
		return
	}
	r := &Report{
		Header: report.NewHeader(c.Work, c.Python), Payload: c.payload, Partitions: c.partitions,
		FileRows: c.fileRows, PoolMiB: c.poolMiB, Updates: c.updates, Inserts: c.inserts, Reps: c.Reps,
		PageCache: pageCache(c), Suite: c.suite, ScopedPartitions: c.scopedPartitions,
	}
	if c.rustPython != "" {
		if r.RustDeltalite = runproc.DistVersion(c.rustPython, "deltalite"); r.RustDeltalite == "" {
			fail(fmt.Errorf("-rust-python %s cannot report the deltalite package's version: make its environment with "+
				"bench/upsert.sh, or pass -rust-python '' to leave the Rust deltalite out", c.rustPython))
		}
		if v, err := runproc.Output([]string{c.rustPython, "-c", "import platform; print(platform.python_version())"}, nil); err == nil {
			r.RustPython = string(v)
		}
	}
	failed := false
	for _, n := range c.sizes {
		if err := measure(c, n, r); err != nil {
			failed = true
			logf("size %d: %v", n, err)
		}
		if err := save(c, r, true); err != nil {
			fail(err)
		}
	}
	if err := save(c, r, true); err != nil {
		fail(err)
	}
	b, _ := os.ReadFile(c.Outputs.Markdown)
	fmt.Print(string(b))
	if r.Suite != "" {
		logf("report: %s, results: %s", c.Outputs.Markdown, c.Outputs.JSON)
	} else {
		logf("report: %s, results: %s, chart: %s", c.Outputs.Markdown, c.Outputs.JSON, c.chart)
	}
	if failed {
		fail(errors.New("some runs failed or disagreed; see the report"))
	}
}

func save(c config, r *Report, finished bool) error {
	if finished {
		r.Finish()
	}
	if err := c.Outputs.Save(r, r.markdown()); err != nil {
		return err
	}
	if r.Suite != "" {
		return nil // the chart is the upsert's
	}
	if err := os.WriteFile(c.chart, []byte(chart(r)), 0o644); err != nil {
		return err
	}
	if finished {
		pngChart(c.chart)
	}
	return nil
}

// markdown is the report of r's suite.
func (r *Report) markdown() string {
	switch r.Suite {
	case suiteMerge:
		return renderMerge(r)
	case suiteCDF:
		return renderCDF(r)
	case suiteDV:
		return renderDV(r)
	case suiteRowTracking:
		return renderRowTracking(r)
	}
	return render(r)
}

// pngChart renders the SVG chart as a PNG next to it when rsvg-convert is
// installed (Debian: librsvg2-bin).
func pngChart(svg string) {
	tool, err := exec.LookPath("rsvg-convert")
	if err != nil {
		return
	}
	png := strings.TrimSuffix(svg, ".svg") + ".png"
	if out, err := exec.Command(tool, "-f", "png", "-o", png, svg).CombinedOutput(); err != nil {
		logf("rsvg-convert: %v: %s", err, out)
	}
}

var logf, fail = report.Log("upsertbench").Printf, report.Log("upsertbench").Fail

// parseCases reads the -cases flag: names of known, each once, run in the
// order of known.
func parseCases(list string, known []string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("-cases %q: unknown case %q; the cases are %s", list, name, strings.Join(known, ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(known, a) - slices.Index(known, b) })
	return out, nil
}

// casePartitions is the partitions of a case's table.
func casePartitions(c config, cs string) int {
	if cs == caseMergeScoped {
		return c.scopedPartitions
	}
	return c.partitions
}

// measure builds (or reuses) the base table of one size and, per case,
// its batch, and runs the case's engines reps times on fresh copies. An
// error or a problem of any case is returned after every case has run.
func measure(c config, n int64, r *Report) error {
	var sizes []*Size
	for _, cs := range c.cases {
		for _, f := range caseFractions(c, cs) {
			s := &Size{RowsPerPartition: n, Case: cs, Fraction: f}
			sizes = append(sizes, s)
			r.Sizes = append(r.Sizes, s)
		}
	}
	var errs []error
	var bases []string
	for _, s := range sizes {
		cc := c
		cc.partitions = casePartitions(c, s.Case)
		if s.Fraction > 0 {
			cc.updates, cc.inserts = fractionBatch(n, s.Fraction)
		}
		tag := fmt.Sprintf("%d-p%d-n%d-f%d-m%d", n, cc.payload, cc.partitions, cc.fileRows, cc.poolMiB)
		base := filepath.Join(c.Work, "base-"+tag)
		if !slices.Contains(bases, base) {
			bases = append(bases, base)
		}
		man, err := baseTable(cc, base, n)
		if err != nil {
			s.Problems = append(s.Problems, err.Error())
			errs = append(errs, fmt.Errorf("%s: %w", s.Case, err))
			continue
		}
		if err := measureCase(cc, s, r, base, tag, man); err != nil {
			s.Problems = append(s.Problems, err.Error())
			errs = append(errs, fmt.Errorf("%s: %w", s.Case, err))
		} else if len(s.Problems) > 0 {
			errs = append(errs, fmt.Errorf("%s: %s", s.Case, strings.Join(s.Problems, "; ")))
		}
	}
	for _, base := range bases {
		if c.dropBase {
			if err := os.RemoveAll(base); err != nil {
				return err
			}
			_ = os.Remove(base + ".json")
		}
	}
	return errors.Join(errs...)
}

// measureCase makes (or reuses) the batch of one case and runs its engines.
func measureCase(c config, s *Size, r *Report, base, tag string, man *Manifest) error {
	n := s.RowsPerPartition
	s.Base = *man
	if s.Case == caseScanAfter {
		return measureScan(c, s, r, base, tag, man)
	}
	name := fmt.Sprintf("batch-%s-u%d-i%d", tag, c.updates, c.inserts)
	if c.round > 0 {
		name += fmt.Sprintf("-r%d", c.round)
	}
	var from string
	if s.Case == caseClustered {
		name += "-clustered"
		from = base
	}
	batchPath := filepath.Join(c.Work, name+".parquet")
	switch s.Case {
	case caseDelete:
		// Every base row has counter 1; the first partition goes.
		batchPath = ""
		s.WantRows = int64(c.partitions-1) * n
		s.WantSumCounter = s.WantRows
	case caseDVDelete:
		batchPath = ""
		if err := dvDelete(&c, s); err != nil {
			return err
		}
	default:
		b, err := batch(c, batchPath, n, from, man)
		if err != nil {
			return err
		}
		s.Batch = *b
		s.WantRows = int64(c.partitions)*n + b.Inserts
		s.WantSumCounter = int64(c.partitions)*n - b.Updates + 2*b.Rows
	}
	return runReps(c, s, r, func(engine string) Run { return runEngine(c, s.Case, engine, base, batchPath, man.Version) })
}

// runReps runs the engines of s's case reps times in runOrder, saving the
// report after every run, then verifies their content.
func runReps(c config, s *Size, r *Report, one func(engine string) Run) error {
	for rep := range c.Reps {
		for i, engine := range runOrder(c, s.Case, rep) {
			run := one(engine)
			run.Rep, run.Order = rep+1, i+1
			if run.Error != "" {
				s.Problems = append(s.Problems, failure(engine, rep+1, run.Error))
			}
			s.Runs = append(s.Runs, run)
			if err := save(c, r, false); err != nil {
				return err
			}
		}
	}
	s.Problems = append(s.Problems, verify(s)...)
	return nil
}

// failure is the problem a failed run records.
func failure(engine string, rep int, err string) string {
	return fmt.Sprintf("%s rep %d: %s", engine, rep, err)
}

// caseEngines is the engines of a case, in the order of allEngines: MERGE
// with a literal partition term runs in the clustered case only, the Rust
// deltalite when it has a Python.
func caseEngines(c config, cs string) []string {
	switch cs {
	case caseMergeUpsert, caseMergeConditional, caseMergeScoped:
		return []string{engineMerge, engineGoMerge}
	case caseDelete:
		return []string{engineDelete, engineGoDelete}
	case caseCDFUpsert:
		return []string{engineUpsert, engineUpsertCDF}
	case caseCDFMerge:
		return []string{engineGoMerge, engineGoMergeCDF, engineMergeCDF}
	case caseRTUpsert:
		return []string{engineUpsert, engineUpsertRT}
	case caseRTMerge:
		return []string{engineGoMerge, engineGoMergeRT}
	case caseDVUpsert:
		if c.rustPython == "" {
			return []string{engineMerge, engineUpsertCoW, engineUpsertDV}
		}
		return []string{engineMerge, engineRust, engineUpsertCoW, engineUpsertDV}
	case caseDVDelete:
		return []string{engineDelete, engineGoDeleteCoW, engineGoDeleteDV}
	case caseScanAfter:
		return []string{engineScanCoW, engineScanDV}
	}
	var engines []string
	for _, e := range allEngines {
		if slices.Index(allEngines, e) > slices.Index(allEngines, engineUpsert) {
			break // the merge suite's
		}
		if (e != engineRust || c.rustPython != "") && (e != engineMergeLiteral || cs == caseClustered) {
			engines = append(engines, e)
		}
	}
	return engines
}

// runOrder is the engines of one rep of a case, rotated by one place per
// rep so that each engine in turn runs first (with two engines:
// alternating).
func runOrder(c config, cs string, rep int) []string {
	engines := caseEngines(c, cs)
	k := rep % len(engines)
	return append(engines[k:], engines[:k]...)
}

func baseTable(c config, dir string, n int64) (*Manifest, error) {
	mpath := dir + ".json"
	var m Manifest
	if b, err := os.ReadFile(mpath); err == nil && json.Unmarshal(b, &m) == nil {
		if _, err := os.Stat(filepath.Join(dir, "_delta_log")); err == nil {
			logf("reusing %s (%d files, %.2f GiB)", dir, m.Files, gib(m.Bytes))
			return &m, nil
		}
	}
	_ = os.Remove(mpath)
	need := int64(c.partitions) * n * int64(c.payload+200)
	if free := runproc.FreeBytes(c.Work); free >= 0 && free < need*5/2 {
		return nil, fmt.Errorf("%s needs about %.1f GiB for the table and %.1f GiB more for the runs; %.1f GiB free",
			dir, gib(need), gib(need*3/2), gib(free))
	}
	logf("building %s: %d partitions x %d rows, payload %d", dir, c.partitions, n, c.payload)
	out, err := runproc.Output([]string{c.Python, c.gen, "build", dir, "--rows", strconv.FormatInt(n, 10),
		"--partitions", strconv.Itoa(c.partitions), "--payload", strconv.Itoa(c.payload),
		"--pool-mib", strconv.Itoa(c.poolMiB), "--file-rows", strconv.Itoa(c.fileRows)}, os.Stderr)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("generator output %q: %w", out, err)
	}
	if err := os.WriteFile(mpath, out, 0o644); err != nil {
		return nil, err
	}
	logf("built %s in %.0fs: %d files, %.2f GiB", dir, m.Seconds, m.Files, gib(m.Bytes))
	return &m, nil
}

// batch makes (or reuses) the batch at path. With clusteredFrom (the base
// table, whose manifest is man) its updates come from one data file of each
// touched partition, and a saved batch is reused only while the table has
// the files and bytes it was made from.
func batch(c config, path string, n int64, clusteredFrom string, man *Manifest) (*Batch, error) {
	jpath := strings.TrimSuffix(path, ".parquet") + ".json"
	var b Batch
	if raw, err := os.ReadFile(jpath); err == nil && json.Unmarshal(raw, &b) == nil {
		_, err := os.Stat(path)
		if err == nil && (clusteredFrom == "" || (b.BaseFiles == man.Files && b.BaseBytes == man.Bytes)) {
			return &b, nil
		}
	}
	argv := []string{c.Python, c.gen, "batch", path, "--rows", strconv.FormatInt(n, 10),
		"--partitions", strconv.Itoa(c.partitions), "--payload", strconv.Itoa(c.payload),
		"--pool-mib", strconv.Itoa(c.poolMiB), "--updates", strconv.Itoa(c.updates), "--inserts", strconv.Itoa(c.inserts),
		"--round", strconv.Itoa(c.round)}
	if clusteredFrom != "" {
		argv = append(argv, "--clustered", clusteredFrom)
	}
	out, err := runproc.Output(argv, os.Stderr)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(out, &b); err != nil {
		return nil, fmt.Errorf("generator output %q: %w", out, err)
	}
	return &b, os.WriteFile(jpath, out, 0o644)
}

// runEngine runs one engine of case cs on a fresh copy of base, then reads
// what its commits did from the log and fingerprints the result. A CDF
// engine's copy gets the change data feed first, outside the measured run;
// its commits are those after that one.
func runEngine(c config, cs, engine, base, batchPath string, baseVersion int64) Run {
	run := Run{Engine: engine}
	dir := base + "-run-" + runDir[engine]
	if err := os.RemoveAll(dir); err != nil {
		run.Error = err.Error()
		return run
	}
	if err := runproc.LinkCopy(base, dir); err != nil {
		run.Error = err.Error()
		return run
	}
	if !c.keep {
		defer os.RemoveAll(dir)
	}
	cdf := slices.Contains(cdfEngines, engine)
	if prop, what := copyProperty(engine); prop != "" {
		v, err := enableProperty(dir, prop)
		if err != nil {
			run.Error = "enabling " + what + ": " + err.Error()
			return run
		}
		baseVersion = v
	}
	if err := prepareCache(c, base); err != nil {
		run.Error = err.Error()
		return run
	}
	metricsPath := dir + ".metrics.json"
	_ = os.Remove(metricsPath)
	defer os.Remove(metricsPath)
	var argv []string
	switch engine {
	case engineMerge, engineMergeLiteral, engineMergeCDF:
		argv = []string{c.Python, c.merge, dir, batchPath, "--keys", "id", "--partition-by", partitionColumn, "--metrics", metricsPath}
		if engine == engineMergeLiteral {
			argv = append(argv, "--partition-literal")
		}
	case engineRust:
		argv = []string{c.rustPython, c.rustUpsert, dir, batchPath, "--keys", "id", "--partition-by", partitionColumn, "--metrics", metricsPath}
	case engineUpsert, engineUpsertCDF, engineUpsertDV, engineUpsertCoW, engineUpsertRT:
		argv = []string{c.dlops, "upsert", dir, batchPath, "-pk", "id", "-partition-key", partitionColumn, "-metrics", metricsPath}
		if engine == engineUpsertCoW {
			argv = append(argv, "-copy-on-write")
		}
	default:
		var err error
		if argv, err = mergeSuiteArgv(c, cs, engine, dir, batchPath, metricsPath); err != nil {
			run.Error = err.Error()
			return run
		}
	}
	logf("%s on %s", engine, dir)
	s, err := runproc.Run(argv, nil, os.Stderr)
	run.Measured, run.Result = s.Measured(), s.Result
	if err != nil {
		run.Error = runproc.ErrorSummary(err)
		return run
	}
	logf("%s: op %.1fs wall %.1fs cpu %.1fs rss %d MiB", engine, run.OpS, run.WallS, run.UserS+run.SysS, run.MaxRSSKiB/1024)
	syscall.Sync()
	if run.Volume, err = runproc.LogVolume(dir, baseVersion); err != nil {
		run.Error = err.Error()
		return run
	}
	if msg := cmp.Or(checkCDC(cdf, run.Volume), checkDV(engine, run.Volume)); msg != "" {
		run.Error = msg
		return run
	}
	var m EngineMetrics
	if err := runproc.ReadJSON(metricsPath, &m); err != nil {
		run.Error = "metrics: " + err.Error()
		return run
	}
	run.Metrics = &m
	if run.Added, err = addedFiles(dir, baseVersion); err != nil {
		run.Error = "files added: " + err.Error()
		return run
	}
	if run.Checksum, err = fingerprint(c, dir, slices.Contains(dvEngines, engine)); err != nil {
		run.Error = "checksum: " + err.Error()
	}
	return run
}

// fingerprint is checksum.py's fingerprint of the table at dir. delta-rs
// cannot read a table with the deletionVectors feature (dvs), so such a
// table's rows are exported first with this engine's reader (deltalite
// scan to Parquet) and the export is fingerprinted: the same hash for the
// same rows, so the runs on plain copies, read through delta-rs, check
// this engine's DV writes and reads.
func fingerprint(c config, dir string, dvs bool) (*Checksum, error) {
	argv := []string{c.Python, c.Checksum, dir, "--key", "id", "--sum", "counter"}
	if dvs {
		export := dir + ".rows.parquet"
		defer os.Remove(export)
		if _, err := runproc.Output([]string{c.deltalite, "scan", dir, "--format", "parquet", "--output", export}, os.Stderr); err != nil {
			return nil, err
		}
		argv = []string{c.Python, c.Checksum, "--parquet", export, "--key", "id", "--sum", "counter"}
	}
	var ck Checksum
	if err := runproc.OutputJSON(argv, os.Stderr, &ck); err != nil {
		return nil, err
	}
	return &ck, nil
}

// prepareCache leaves the page cache as -drop-caches and -warm ask before
// a measured run: emptied, then the files under warm read.
func prepareCache(c config, warm string) error {
	syscall.Sync()
	if c.dropCaches {
		if err := runproc.DropCaches(); err != nil {
			return err
		}
	}
	if c.warm {
		if _, err := runproc.ReadTree(warm); err != nil {
			return err
		}
	}
	return nil
}

// verify checks every run's fingerprint against the expected counts and
// against each other.
func verify(s *Size) []string {
	var problems []string
	var first *Checksum
	for _, r := range s.Runs {
		ck := r.Checksum
		if ck == nil {
			continue
		}
		if ck.Rows != s.WantRows {
			problems = append(problems, fmt.Sprintf("%s rep %d: %d rows, want %d", r.Engine, r.Rep, ck.Rows, s.WantRows))
		}
		if ck.DistinctKeys != ck.Rows {
			problems = append(problems, fmt.Sprintf("%s rep %d: %d distinct keys in %d rows", r.Engine, r.Rep, ck.DistinctKeys, ck.Rows))
		}
		if ck.SumCounter != s.WantSumCounter {
			problems = append(problems, fmt.Sprintf("%s rep %d: sum(counter) %d, want %d", r.Engine, r.Rep, ck.SumCounter, s.WantSumCounter))
		}
		if first == nil {
			first = ck
		} else if ck.Hash != first.Hash || ck.Rows != first.Rows {
			problems = append(problems, fmt.Sprintf("%s rep %d: content hash %s differs from %s", r.Engine, r.Rep, ck.Hash, first.Hash))
		}
	}
	return problems
}

// addedFiles is the data files of the table at dir's latest version that
// its version baseVersion did not have, per partition in partition order.
func addedFiles(dir string, baseVersion int64) ([]PartitionFiles, error) {
	ctx := context.Background()
	st, err := storage.NewLocal(dir)
	if err != nil {
		return nil, err
	}
	before, err := snapshot.LoadVersion(ctx, st, baseVersion)
	if err != nil {
		return nil, err
	}
	after, err := snapshot.Load(ctx, st)
	if err != nil {
		return nil, err
	}
	had := make(map[string]bool, before.NumFiles())
	for _, a := range before.Files() {
		had[a.Path] = true
	}
	var out []PartitionFiles
	for _, a := range after.Files() {
		if had[a.Path] {
			continue
		}
		pv := a.PartitionValues[partitionColumn]
		i := slices.IndexFunc(out, func(p PartitionFiles) bool { return p.Partition == pv })
		if i < 0 {
			out = append(out, PartitionFiles{Partition: pv, MinBytes: a.Size, MaxBytes: a.Size})
			i = len(out) - 1
		}
		p := &out[i]
		p.Files++
		p.MinBytes, p.MaxBytes = min(p.MinBytes, a.Size), max(p.MaxBytes, a.Size)
	}
	slices.SortFunc(out, func(a, b PartitionFiles) int { return strings.Compare(a.Partition, b.Partition) })
	return out, nil
}

func gib(b int64) float64 { return float64(b) / (1 << 30) }
