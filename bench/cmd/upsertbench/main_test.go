package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

func TestRunOrderRotatesEveryEngineFirst(t *testing.T) {
	three := config{rustPython: "py"}
	want := [][]string{
		{engineMerge, engineRust, engineUpsert},
		{engineRust, engineUpsert, engineMerge},
		{engineUpsert, engineMerge, engineRust},
		{engineMerge, engineRust, engineUpsert},
	}
	for rep, w := range want {
		if got := runOrder(three, caseSpread, rep); !slices.Equal(got, w) {
			t.Errorf("rep %d: %v, want %v", rep, got, w)
		}
	}
	// Without a Python for the Rust deltalite it is left out and the two
	// others alternate.
	two := config{}
	if got := runOrder(two, caseSpread, 0); !slices.Equal(got, []string{engineMerge, engineUpsert}) {
		t.Errorf("rep 0 without rust: %v", got)
	}
	if got := runOrder(two, caseSpread, 1); !slices.Equal(got, []string{engineUpsert, engineMerge}) {
		t.Errorf("rep 1 without rust: %v", got)
	}
	// The clustered case adds MERGE with a literal partition term.
	if got := runOrder(three, caseClustered, 1); !slices.Equal(got, []string{engineMergeLiteral, engineRust, engineUpsert, engineMerge}) {
		t.Errorf("clustered rep 1: %v", got)
	}
	for _, e := range allEngines {
		if runDir[e] == "" {
			t.Errorf("engine %q has no run directory", e)
		}
	}
}

// run is one successful run with the given wall, CPU (all user) and peak RSS.
func run(engine string, wall, cpu float64, rssMiB int64, hash string) Run {
	return Run{Engine: engine, Measured: runproc.Measured{WallS: wall, UserS: cpu, MaxRSSKiB: rssMiB * 1024},
		Volume:   runproc.Volume{BytesAdded: 1 << 30, BytesRemoved: 1 << 30, FilesAdded: 4, FilesRemoved: 4, Commits: 1},
		Checksum: &Checksum{Checksum: report.Checksum{Rows: 10, Hash: hash}, DistinctKeys: 10, SumCounter: 5}}
}

func size(n int64, runs ...Run) *Size {
	return &Size{RowsPerPartition: n, WantRows: 10, WantSumCounter: 5, Runs: runs}
}

func TestRenderRatiosAgainstRustDeltalite(t *testing.T) {
	r := &Report{RustDeltalite: "0.1.15", RustPython: "3.12.1", Sizes: []*Size{
		// 250k: every target met (CPU 0.5x, wall 0.5x, RSS 0.25x).
		size(250_000, run(engineMerge, 8, 9, 2000, "h"), run(engineRust, 6, 8, 800, "h"), run(engineUpsert, 3, 4, 200, "h")),
		// 1M: CPU 0.9x misses its 0.8x target; wall 0.6x and RSS 0.4x meet theirs.
		size(1_000_000, run(engineMerge, 20, 30, 3000, "h"), run(engineRust, 10, 10, 1000, "h"), run(engineUpsert, 6, 9, 400, "h")),
	}}
	for _, s := range r.Sizes {
		s.Problems = verify(s)
	}
	out := render(r)
	for _, want := range []string{
		"# Upsert: deltalite vs the Rust deltalite and delta-rs MERGE",
		"Rust deltalite (PyPI `deltalite`) 0.1.15 on CPython 3.12.1",
		"| 250k | 0.0 GiB, 0 files | Rust deltalite upsert | 0.0 | 6.0 | 8.0 | 800 | 1.00 GiB | 1.00 GiB | 4 / 4 | 1 | — |\n",
		"**Ratios deltalite / Rust deltalite**",
		"| 250k | 0.25 | 0.50 | 0.50 | 1.00 | 1.00 | yes |",
		"| 1M | 0.40 | 0.60 | 0.90 | 1.00 | 1.00 | yes |",
		"- CPU (user + sys) at most 0.8x the Rust deltalite's: 250k 0.50, 1M 0.90 — **not met**.",
		"- process wall at most 0.7x the Rust deltalite's: 250k 0.50, 1M 0.60 — met.",
		"- peak RSS at most 0.5x the Rust deltalite's: 250k 0.25, 1M 0.40 — met.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if svg := chart(r); !strings.Contains(svg, ">"+engineRust+"</text>") {
		t.Errorf("chart has no line for %s", engineRust)
	}
}

func TestRenderWithoutRustDeltalite(t *testing.T) {
	r := &Report{Sizes: []*Size{size(62_500, run(engineMerge, 2, 2, 1800, "h"), run(engineUpsert, 1, 1, 600, "h"))}}
	out := render(r)
	if !strings.HasPrefix(out, "# Upsert: deltalite vs delta-rs MERGE\n") {
		t.Errorf("title: %q", strings.SplitN(out, "\n", 2)[0])
	}
	for _, s := range []string{out, chart(r)} {
		if strings.Contains(s, "Rust") {
			t.Errorf("a report without the Rust deltalite's runs mentions it:\n%s", s)
		}
	}
}

func TestVerifyFlagsRustDeltaliteContent(t *testing.T) {
	s := size(250_000, run(engineMerge, 8, 9, 2000, "h"), run(engineRust, 6, 8, 800, "other"), run(engineUpsert, 3, 4, 200, "h"))
	problems := verify(s)
	if len(problems) != 1 || !strings.Contains(problems[0], engineRust+" rep 0: content hash other differs from h") {
		t.Fatalf("problems %q, want the Rust deltalite's hash reported", problems)
	}
	s.Problems = problems
	out := render(&Report{Sizes: []*Size{s}})
	if !strings.Contains(out, "| 250k | 0.25 | 0.50 | 0.50 | 1.00 | 1.00 | NO: "+engineRust) {
		t.Errorf("ratio table does not say the content differs:\n%s", out)
	}
}

// TestEnginesAgreeOnTinyTable runs the harness's own engine runs of MERGE
// and of the Rust deltalite on copies of a tiny table, so the programs'
// command lines, their result lines and the content check stay in step.
func TestEnginesAgreeOnTinyTable(t *testing.T) {
	py := peers.Python(t)
	root := peers.Root(t)
	rustPy := filepath.Join(root, "bench", "out", "venv-deltalite", "bin", "python")
	if _, err := os.Stat(rustPy); err != nil {
		t.Skipf("no Rust deltalite environment at %s; bench/upsert.sh makes it", rustPy)
	}
	dir := t.TempDir()
	base, batchPath := filepath.Join(dir, "base"), filepath.Join(dir, "batch.parquet")
	gen := exec.Command(py, "-c", `
import sys, pyarrow as pa, pyarrow.parquet as pq
from deltalake import write_deltalake
p = "_ph_partition_key"
write_deltalake(sys.argv[1], pa.table({"id": ["a", "b", "c"], p: ["x", "x", "y"], "counter": pa.array([1, 1, 1], pa.int32())}), partition_by=[p])
pq.write_table(pa.table({"id": ["b", "d"], p: ["x", "y"], "counter": pa.array([2, 2], pa.int32())}), sys.argv[2])
`, base, batchPath)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("making the table: %v\n%s", err, out)
	}
	c := config{Flags: report.Flags{Python: py, Checksum: filepath.Join(root, "bench", "py", "checksum.py")}, rustPython: rustPy, merge: filepath.Join(root, "bench", "py", "merge_bench.py"),
		rustUpsert: filepath.Join(root, "bench", "py", "rust_deltalite_bench.py")}
	// 4 rows: b replaced, d inserted; sum(counter) = 3 - 1 + 2*2.
	s := &Size{RowsPerPartition: 2, WantRows: 4, WantSumCounter: 6}
	for _, e := range []string{engineMerge, engineRust} {
		r := runEngine(c, caseSpread, e, base, batchPath, 0)
		if r.Error != "" {
			t.Fatalf("%s: %s", e, r.Error)
		}
		if r.Result.RowsUpdated != 1 || r.Result.RowsInserted != 1 || r.Volume.Commits != 1 || r.MaxRSSKiB == 0 {
			t.Errorf("%s: result %+v, volume %+v, peak RSS %d KiB", e, r.Result, r.Volume, r.MaxRSSKiB)
		}
		// b's file of x is rewritten with b's new row, y gets d in a new file.
		wantAdded := []PartitionFiles{{Partition: "x", Files: 1}, {Partition: "y", Files: 1}}
		for i := range r.Added {
			r.Added[i].MinBytes, r.Added[i].MaxBytes = 0, 0
		}
		if !slices.Equal(r.Added, wantAdded) {
			t.Errorf("%s: added %+v, want %+v", e, r.Added, wantAdded)
		}
		if m := r.Metrics; m == nil || m.ReadBytes <= 0 || m.WrittenBytes <= 0 {
			t.Errorf("%s: metrics %+v, want bytes read and written", e, m)
		}
		s.Runs = append(s.Runs, r)
	}
	if m := s.Runs[0].Metrics; m.FilesScanned == nil || *m.FilesScanned != 2 || m.FilesSkipped == nil {
		t.Errorf("MERGE's metrics %+v, want its 2 files scanned", m)
	}
	if m := s.Runs[1].Metrics; m.FilesProbed == nil || m.FilesRemoved == nil || *m.FilesRemoved != 1 || m.FilesCarriedOver == nil {
		t.Errorf("the Rust deltalite's metrics %+v, want its files probed, removed (1) and carried over", m)
	}
	if problems := verify(s); len(problems) > 0 {
		t.Errorf("engines disagree: %q", problems)
	}
	if s.Runs[0].Checksum.Hash != s.Runs[1].Checksum.Hash {
		t.Errorf("content hashes %s and %s", s.Runs[0].Checksum.Hash, s.Runs[1].Checksum.Hash)
	}
}

func TestParseCases(t *testing.T) {
	for in, want := range map[string][]string{
		"spread,clustered":     {caseSpread, caseClustered},
		" clustered , spread ": {caseSpread, caseClustered},
		"clustered":            {caseClustered},
		"spread,spread,spread": {caseSpread},
	} {
		got, err := parseCases(in, allCases)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseCases(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "spread,", "clusterd"} {
		if _, err := parseCases(in, allCases); err == nil || !strings.Contains(err.Error(), "the cases are spread, clustered") {
			t.Errorf("parseCases(%q): error %v, want one listing the cases", in, err)
		}
	}
}

func i64(v int64) *int64 { return &v }

func TestUpsertFilesSplitsByDecision(t *testing.T) {
	for _, tc := range []struct {
		probed, carried, removed int64
		stats, probe             int64
		ok                       bool
	}{
		{8, 6, 2, 0, 6, true},   // keys everywhere in the key range: every file probed
		{3, 43, 2, 42, 1, true}, // statistics ruled out 42 of 45 files
		{2, 0, 2, 0, 0, true},   // every file rewritten
		{1, 6, 2, 0, 0, false},  // a rewritten file not probed: not the probe strategy
		{9, 6, 2, 0, 0, false},  // more probed than the partitions hold
	} {
		m := &EngineMetrics{FilesProbed: i64(tc.probed), FilesCarriedOver: i64(tc.carried), FilesRemoved: i64(tc.removed)}
		stats, probe, ok := upsertFiles(m)
		if ok != tc.ok || (ok && (stats != tc.stats || probe != tc.probe)) {
			t.Errorf("%+v: got %d, %d, %t", tc, stats, probe, ok)
		}
	}
	if _, _, ok := upsertFiles(&EngineMetrics{FilesScanned: i64(4)}); ok {
		t.Error("MERGE's metrics split as an upsert's")
	}
	if _, _, ok := upsertFiles(nil); ok {
		t.Error("no metrics split")
	}
}

// withMetrics is run r with the metrics and added files of a run that read
// readMiB and added one partition's files.
func withMetrics(r Run, readMiB int64, m EngineMetrics, added ...PartitionFiles) Run {
	m.ReadBytes, m.WrittenBytes = readMiB<<20, 200<<20
	r.Metrics, r.Added = &m, added
	return r
}

func TestRenderClusteredCase(t *testing.T) {
	const mib = 1 << 20
	tail := []PartitionFiles{{Partition: "2026-01-01", Files: 2, MinBytes: 184 * mib / 10, MaxBytes: 897 * mib / 10}}
	one := []PartitionFiles{{Partition: "2026-01-01", Files: 1, MinBytes: 100 * mib, MaxBytes: 100 * mib}}
	merge := EngineMetrics{FilesScanned: i64(90), FilesSkipped: i64(0)}
	upsert := EngineMetrics{FilesProbed: i64(3), FilesCarriedOver: i64(88), FilesRemoved: i64(2)}
	spread := size(250_000, run(engineMerge, 8, 9, 2000, "h"), run(engineRust, 6, 8, 800, "h"), run(engineUpsert, 3, 4, 200, "h"))
	spread.Case = caseSpread
	cl := size(250_000,
		withMetrics(run(engineMerge, 6, 8, 7000, "c"), 8000, merge, one...),
		withMetrics(run(engineMergeLiteral, 5, 8, 7000, "c"), 8000, merge, one...),
		withMetrics(run(engineRust, 1.1, 1.2, 494, "c"), 300, upsert, one...),
		withMetrics(run(engineUpsert, 1, 0.6, 219, "c"), 150, upsert, tail...),
		// A second rep of this engine that added the same files.
		withMetrics(run(engineUpsert, 1, 0.6, 219, "c"), 150, upsert, tail...))
	cl.Case = caseClustered
	cl.Batch = Batch{Updates: 18_000, Clustered: []ClusterFile{
		{Partition: "2026-01-01", Rows: 22_000, Bytes: 100 * mib, FilesInPartition: 45},
		{Partition: "2026-01-02", Rows: 22_000, Bytes: 100 * mib, FilesInPartition: 45},
	}}
	r := &Report{RustDeltalite: "0.1.15", Partitions: 2, Sizes: []*Size{spread, cl}}
	for _, s := range r.Sizes {
		s.Problems = verify(s)
	}
	out := render(r)
	spreadPart, clusteredPart, ok := strings.Cut(out, "## Clustered keys")
	if !ok {
		t.Fatalf("no clustered section:\n%s", out)
	}
	if strings.Contains(spreadPart, engineMergeLiteral) {
		t.Errorf("the spread tables show the clustered case's engine:\n%s", spreadPart)
	}
	for _, want := range []string{
		"- 250k rows per partition: 2026-01-01: 9000 of the file's 22000 rows, 100.0 MiB, one of 45 files; 2026-01-02: 9000 of",
		"(the batch touches all 2 partitions of these tables, so the term leaves no partition to skip)",
		// MERGE scans what its predicate leaves; the upserts probe 3 of 90
		// files: statistics skip 87, the probe 1, 2 are rewritten.
		"| 250k | delta-rs MERGE | 0.0 | 6.0 | 8.0 | 7000 | 90 | 0 / — | 4 / 4 | 7.81 GiB | 200.0 MiB | 1.00 GiB / 1.00 GiB |\n",
		"| 250k | delta-rs MERGE, partition literal | 0.0 | 5.0 | 8.0 | 7000 | 90 | 0 / — |",
		"| 250k | deltalite upsert | 0.0 | 1.0 | 0.6 | 219 | 3 | 87 / 1 | 4 / 4 | 150.0 MiB | 200.0 MiB | 1.00 GiB / 1.00 GiB |\n",
		"| 250k | delta-rs MERGE | 0.03 | 0.17 | 0.07 | 0.02 | 1.00 | yes |\n",
		"| 250k | Rust deltalite upsert | 0.44 | 0.91 | 0.50 | 0.50 | 1.00 | yes |\n",
		"| clustered | 250k | deltalite upsert | 2026-01-01: 2, 18.4 MiB – 89.7 MiB |\n",
		"| clustered | 250k | Rust deltalite upsert | 2026-01-01: 1, 100.0 MiB – 100.0 MiB |\n",
		"| clustered | 250k | delta-rs MERGE, partition literal | 0 | 0 | 0.0 | 5.0 |",
	} {
		if !strings.Contains(clusteredPart, want) {
			t.Errorf("clustered part lacks %q:\n%s", want, clusteredPart)
		}
	}
	// The spread runs saved no files added: that table has no row for them.
	if strings.Contains(out, "| spread | 250k | deltalite upsert | 2026") {
		t.Errorf("files added shown for runs that recorded none:\n%s", out)
	}
	if svg := chart(r); strings.Contains(svg, engineMergeLiteral) {
		t.Errorf("the chart draws the clustered case")
	}
}

// TestRenderResultsSavedBeforeCases renders a results.json as the harness
// saved it before the clustered case, the metrics files and the files
// added: no case, no metrics.
func TestRenderResultsSavedBeforeCases(t *testing.T) {
	const saved = `{"command": "bench/upsert.sh --sizes 62500", "partitions": 2, "updates": 9000, "inserts": 1000, "reps": 1,
  "sizes": [{"rows_per_partition": 62500, "base": {"files": 10, "bytes": 570000000}, "want_rows": 127000, "want_sum_counter": 5,
    "runs": [
      {"engine": "delta-rs MERGE", "rep": 1, "order": 1, "op_s": 1.9, "wall_s": 2.0, "user_s": 1.5, "sys_s": 0.5, "max_rss_kib": 1875968,
       "volume": {"Commits": 1, "FilesAdded": 4, "FilesRemoved": 10, "BytesAdded": 570000000, "BytesRemoved": 570000000},
       "checksum": {"rows": 127000, "distinct_keys": 127000, "sum_counter": 5, "hash": "h"}},
      {"engine": "deltalite upsert", "rep": 1, "order": 2, "op_s": 1.3, "wall_s": 1.4, "user_s": 1.0, "sys_s": 0.2, "max_rss_kib": 643072,
       "volume": {"Commits": 1, "FilesAdded": 4, "FilesRemoved": 10, "BytesAdded": 570000000, "BytesRemoved": 570000000},
       "checksum": {"rows": 127000, "distinct_keys": 127000, "sum_counter": 5, "hash": "h"}}]}]}`
	var r Report
	if err := json.Unmarshal([]byte(saved), &r); err != nil {
		t.Fatal(err)
	}
	out := render(&r)
	for _, want := range []string{
		"# Upsert: deltalite vs delta-rs MERGE\n",
		"| 62.5k | 0.53 GiB, 10 files | deltalite upsert | 1.3 | 1.4 | 1.2 | 628 | 0.53 GiB | 0.53 GiB | 10 / 4 | 1 | — |\n",
		"| 62.5k | 0.34 | 0.70 | 0.60 | 1.00 | 1.00 | yes |\n",
		"| spread | 62.5k | deltalite upsert | 1 | 2 | 1.3 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"Clustered keys", "Files added per partition"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("report of old results has %q:\n%s", unwanted, out)
		}
	}
	if svg := chart(&r); !strings.Contains(svg, ">62.5k</text>") {
		t.Error("the chart of old results has no 62.5k point")
	}
}

// TestClusteredBatchTakesOneFilePerPartition makes a tiny table of three
// files per partition with the generator, a clustered batch from it, and
// runs MERGE with the literal partition term and this engine's dlops on
// it: the batch's updates lie in one file of each partition, so each
// rewrites two files, and dlops reports the files it probed.
// tinyConfig is a config for tiny tables in dir, with dlops built there.
func tinyConfig(t *testing.T, py, root, dir string) config {
	t.Helper()
	dlops := filepath.Join(dir, "dlops")
	build := exec.Command("go", "build", "-o", dlops, "./bench/cmd/dlops")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building dlops: %v\n%s", err, out)
	}
	py3 := func(name string) string { return filepath.Join(root, "bench", "py", name) }
	return config{dlops: dlops, gen: py3("upsert_gen.py"), merge: py3("merge_bench.py"), payload: 40, partitions: 2, poolMiB: 1,
		Flags: report.Flags{Python: py, Checksum: py3("checksum.py"), Work: dir, Reps: 1,
			Outputs: report.Outputs{Markdown: filepath.Join(dir, "results.md"), JSON: filepath.Join(dir, "results.json")}}}
}

func TestClusteredBatchTakesOneFilePerPartition(t *testing.T) {
	py := peers.Python(t)
	root := peers.Root(t)
	dir := t.TempDir()
	c := tinyConfig(t, py, root, dir)
	c.fileRows, c.updates, c.inserts = 200, 150, 10
	base := filepath.Join(dir, "base")
	man, err := baseTable(c, base, 600)
	if err != nil {
		t.Fatal(err)
	}
	if man.Files != 6 {
		t.Fatalf("base table has %d files, want 3 per partition", man.Files)
	}
	batchPath := filepath.Join(dir, "batch.parquet")
	b, err := batch(c, batchPath, 600, base, man)
	if err != nil {
		t.Fatal(err)
	}
	if b.Updates != 300 || b.Inserts != 20 || b.Rows != 320 || len(b.Clustered) != 2 || b.BaseFiles != 6 || b.BaseBytes != man.Bytes {
		t.Fatalf("batch %+v", b)
	}
	for i, f := range b.Clustered {
		if f.Partition != []string{"2026-01-01", "2026-01-02"}[i] || f.Rows != 200 || f.FilesInPartition != 3 || f.Bytes <= 0 ||
			!strings.HasPrefix(f.Path, "_ph_partition_key="+f.Partition+"/") {
			t.Errorf("clustered file %d: %+v", i, f)
		}
	}
	s := &Size{RowsPerPartition: 600, Case: caseClustered, Batch: *b, WantRows: 1220, WantSumCounter: 1200 - 300 + 2*320}
	r := runEngine(c, caseClustered, engineMergeLiteral, base, batchPath, man.Version)
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	if r.Volume.FilesRemoved != 2 || r.Result.RowsUpdated != 300 || r.Result.RowsInserted != 20 {
		t.Errorf("MERGE removed %d files, updated %d rows, inserted %d; want 2, 300, 20", r.Volume.FilesRemoved, r.Result.RowsUpdated, r.Result.RowsInserted)
	}
	if !strings.Contains(r.Result.Detail, `t."_ph_partition_key" IN ('2026-01-01', '2026-01-02')`) {
		t.Errorf("MERGE's predicate %q lacks the literal partition term", r.Result.Detail)
	}
	s.Runs = append(s.Runs, r)
	r = runEngine(c, caseClustered, engineUpsert, base, batchPath, man.Version)
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	if m := r.Metrics; m == nil || m.FilesRemoved == nil || *m.FilesRemoved != 2 || m.FilesCarriedOver == nil ||
		*m.FilesCarriedOver != 4 || m.FilesProbed == nil || *m.FilesProbed < 2 || m.ReadBytes <= 0 {
		t.Errorf("dlops's metrics %+v, want 2 files removed, 4 carried over, at least 2 probed", m)
	}
	if len(r.Added) != 2 || r.Added[0].Partition != "2026-01-01" || r.Added[1].Partition != "2026-01-02" {
		t.Errorf("dlops added %+v, want files in both partitions", r.Added)
	}
	s.Runs = append(s.Runs, r)
	if problems := verify(s); len(problems) > 0 {
		t.Errorf("content: %q", problems)
	}

	// The saved batch is reused while the table is the one it was made
	// from, and made again from a rebuilt one.
	jpath := strings.TrimSuffix(batchPath, ".parquet") + ".json"
	stale := *b
	stale.Rows = 1
	raw, _ := json.Marshal(stale)
	if err := os.WriteFile(jpath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := batch(c, batchPath, 600, base, man); err != nil || again.Rows != 1 {
		t.Errorf("batch of an unchanged table: %+v, %v; want the saved one reused", again, err)
	}
	rebuilt := *man
	rebuilt.Bytes++
	if again, err := batch(c, batchPath, 600, base, &rebuilt); err != nil || again.Rows != 320 {
		t.Errorf("batch of a rebuilt table: %+v, %v; want it made again", again, err)
	}
}

// TestSameContentIgnoresOtherEnginesFailures: an engine that refused the
// batch marks its own ratio NO, not the ratio of two engines that agree.
func TestSameContentIgnoresOtherEnginesFailures(t *testing.T) {
	failed := run(engineRust, 1, 1, 100, "")
	failed.Rep, failed.Error, failed.Checksum = 1, "source batch is too large", nil
	s := size(250_000, run(engineMerge, 8, 9, 2000, "h"), failed, run(engineUpsert, 3, 4, 200, "h"))
	s.Problems = append([]string{failure(engineRust, 1, failed.Error)}, verify(s)...)
	if got := sameContent(s, aggregate(s, engineMerge), aggregate(s, engineUpsert)); got != "yes" {
		t.Errorf("upsert against MERGE: %q, want yes (only the Rust deltalite failed)", got)
	}
	if got := sameContent(s, aggregate(s, engineRust), aggregate(s, engineUpsert)); !strings.HasPrefix(got, "NO: "+engineRust) {
		t.Errorf("upsert against the Rust deltalite: %q, want its failure", got)
	}
}
