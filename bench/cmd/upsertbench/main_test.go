package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/bench/internal/runproc"
	"github.com/deltalite-go/deltalite/internal/testkit/peers"
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
		if got := runOrder(three, rep); !slices.Equal(got, w) {
			t.Errorf("rep %d: %v, want %v", rep, got, w)
		}
	}
	// Without a Python for the Rust deltalite it is left out and the two
	// others alternate.
	two := config{}
	if got := runOrder(two, 0); !slices.Equal(got, []string{engineMerge, engineUpsert}) {
		t.Errorf("rep 0 without rust: %v", got)
	}
	if got := runOrder(two, 1); !slices.Equal(got, []string{engineUpsert, engineMerge}) {
		t.Errorf("rep 1 without rust: %v", got)
	}
	for _, e := range allEngines {
		if runDir[e] == "" {
			t.Errorf("engine %q has no run directory", e)
		}
	}
}

// run is one successful run with the given wall, CPU (all user) and peak RSS.
func run(engine string, wall, cpu float64, rssMiB int64, hash string) Run {
	return Run{Engine: engine, WallS: wall, UserS: cpu, MaxRSSKiB: rssMiB * 1024,
		Volume:   runproc.Volume{BytesAdded: 1 << 30, BytesRemoved: 1 << 30, FilesAdded: 4, FilesRemoved: 4, Commits: 1},
		Checksum: &Checksum{Rows: 10, DistinctKeys: 10, SumCounter: 5, Hash: hash}}
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
		"| 250k | 0.0 GiB, 0 files | Rust deltalite upsert | 0.0 | 6.0 | 8.0 | 800 | 1.00 GiB | 1.00 GiB | 4 / 4 | 1 |",
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
	c := config{python: py, rustPython: rustPy, merge: filepath.Join(root, "bench", "py", "merge_bench.py"),
		rustUpsert: filepath.Join(root, "bench", "py", "rust_deltalite_bench.py"), checksum: filepath.Join(root, "bench", "py", "checksum.py")}
	// 4 rows: b replaced, d inserted; sum(counter) = 3 - 1 + 2*2.
	s := &Size{RowsPerPartition: 2, WantRows: 4, WantSumCounter: 6}
	for _, e := range []string{engineMerge, engineRust} {
		r := runEngine(c, e, base, batchPath, 0)
		if r.Error != "" {
			t.Fatalf("%s: %s", e, r.Error)
		}
		if r.Result.RowsUpdated != 1 || r.Result.RowsInserted != 1 || r.Volume.Commits != 1 || r.MaxRSSKiB == 0 {
			t.Errorf("%s: result %+v, volume %+v, peak RSS %d KiB", e, r.Result, r.Volume, r.MaxRSSKiB)
		}
		s.Runs = append(s.Runs, r)
	}
	if problems := verify(s); len(problems) > 0 {
		t.Errorf("engines disagree: %q", problems)
	}
	if s.Runs[0].Checksum.Hash != s.Runs[1].Checksum.Hash {
		t.Errorf("content hashes %s and %s", s.Runs[0].Checksum.Hash, s.Runs[1].Checksum.Hash)
	}
}
