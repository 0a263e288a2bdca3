// Command benchrun is the benchmark harness: it runs every case of this
// engine and of delta-rs (and optional reference readers) each in its own
// process, several times and interleaved, checks each result against the
// generated table's manifest, and prints the timings, peak RSS and the
// ours/delta-rs ratios as a Markdown report.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deltalite-go/deltalite/bench/internal/gen"
	"github.com/deltalite-go/deltalite/bench/internal/procstat"
)

// runner is one program that performs a case's operation.
type runner struct {
	engine string // label in the report
	argv   []string
	ours   bool
	peer   bool // the engine ratios are taken against
}

// sample is one measured run.
type sample struct {
	res    procstat.Result
	wall   time.Duration // process start to exit, as the harness saw it
	cpu    time.Duration // user + system time of the process, from wait4
	maxRSS int64         // KiB, from wait4
}

type benchCase struct {
	name    string
	runners []runner
	check   func(procstat.Result) error
	samples map[string][]sample
	// failures holds, per engine, one line per run that failed.
	failures map[string][]string
}

type config struct {
	tables, dlbench, python, peer, out string
	reps, refReps                      int
	refs                               bool
	only                               string
	projected                          string
}

func main() {
	var c config
	flag.StringVar(&c.tables, "tables", "bench/out/tables", "directory holding the generated tables")
	flag.StringVar(&c.dlbench, "dlbench", "bench/out/bin/dlbench", "this engine's benchmark command")
	flag.StringVar(&c.python, "python", ".venv/bin/python", "Python with deltalake installed")
	flag.StringVar(&c.peer, "peer", "bench/py/peer.py", "the peer benchmark script")
	flag.StringVar(&c.out, "out", "bench/out/results.md", "where the Markdown report goes")
	flag.IntVar(&c.reps, "reps", 5, "measured repetitions per program (after one warm-up)")
	flag.IntVar(&c.refReps, "ref-reps", 3, "measured repetitions of the reference readers (fewer: they only give context)")
	flag.BoolVar(&c.refs, "refs", true, "also run delta-rs to_pyarrow_table, pyarrow, polars and duckdb on the wide table")
	flag.StringVar(&c.only, "only", "", "run only cases whose name contains this")
	flag.StringVar(&c.projected, "projected-columns", "", "columns of the projected scan (default: three from the manifest)")
	flag.Parse()

	ll, err := gen.ReadManifest(filepath.Join(c.tables, "longlog"))
	if err != nil {
		fail(fmt.Errorf("long-log table: %w (run gentables first)", err))
	}
	wide, err := gen.ReadManifest(filepath.Join(c.tables, "wide"))
	if err != nil {
		fail(fmt.Errorf("wide table: %w (run gentables first)", err))
	}
	cases := buildCases(c, ll, wide)
	start := time.Now()
	loadBefore := loadAvg()
	// The report is rewritten after every case, so a long run that is
	// interrupted still leaves what it measured.
	write := func() string {
		report := render(c, cases, ll, wide, time.Since(start), loadBefore, loadAvg())
		if err := os.MkdirAll(filepath.Dir(c.out), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(c.out, []byte(report), 0o644); err != nil {
			fail(err)
		}
		return report
	}
	failed := 0
	for _, bc := range cases {
		if c.only != "" && !strings.Contains(bc.name, c.only) {
			continue
		}
		runCase(c, bc)
		for _, r := range bc.runners {
			failed += len(bc.failures[r.engine])
		}
		write()
	}
	fmt.Print(write())
	fmt.Fprintln(os.Stderr, "benchrun: report written to", c.out)
	if failed > 0 {
		fail(fmt.Errorf("%d runs failed; see the report", failed))
	}
}

func buildCases(c config, ll, wide *gen.Manifest) []*benchCase {
	llDir := filepath.Join(c.tables, "longlog")
	wDir := filepath.Join(c.tables, "wide")
	py := func(args ...string) []string { return append([]string{c.python, c.peer}, args...) }
	want := func(version int64, files int, rows int64) func(procstat.Result) error {
		return func(r procstat.Result) error {
			if version >= 0 && r.Version != version {
				return fmt.Errorf("%s saw version %d, want %d", r.Engine, r.Version, version)
			}
			if files >= 0 && r.Files != int64(files) {
				return fmt.Errorf("%s saw %d files, want %d", r.Engine, r.Files, files)
			}
			if rows >= 0 && r.Rows != rows {
				return fmt.Errorf("%s saw %d rows, want %d", r.Engine, r.Rows, rows)
			}
			return nil
		}
	}
	mid := strconv.FormatInt(ll.Mid, 10)
	proj := projection(c, wide)
	scanRunners := func(cols string) []runner {
		var extra []string
		if cols != "" {
			extra = []string{"--columns", cols}
		}
		ours := append([]string{c.dlbench, "scan", wDir}, flagsFor(cols)...)
		rs := []runner{
			{engine: "deltalite", argv: ours, ours: true},
			{engine: "delta-rs", argv: py(append([]string{"scan", wDir, "--engine", "deltalake"}, extra...)...), peer: true},
		}
		if c.refs {
			for _, e := range []string{"deltalake-table", "pyarrow", "polars", "duckdb"} {
				rs = append(rs, runner{engine: refLabel(e), argv: py(append([]string{"scan", wDir, "--engine", e}, extra...)...)})
			}
		}
		return rs
	}
	return []*benchCase{
		{
			name: "start-up (no-op process)",
			runners: []runner{
				{engine: "deltalite", argv: []string{c.dlbench, "noop"}, ours: true},
				{engine: "delta-rs", argv: py("noop", "--engine", "deltalake"), peer: true},
			},
			check: want(-1, -1, -1),
		},
		{
			name: "open long log, latest",
			runners: []runner{
				{engine: "deltalite", argv: []string{c.dlbench, "open", llDir}, ours: true},
				{engine: "delta-rs", argv: py("open", llDir), peer: true},
			},
			check: want(ll.Latest, ll.LatestFiles, -1),
		},
		{
			name: "open long log, version " + mid,
			runners: []runner{
				{engine: "deltalite", argv: []string{c.dlbench, "open", llDir, "-version", mid}, ours: true},
				{engine: "delta-rs", argv: py("open", llDir, "--version", mid), peer: true},
			},
			check: want(ll.Mid, ll.MidFiles, -1),
		},
		{
			name:    "scan wide, all columns",
			runners: scanRunners(""),
			check:   want(-1, wide.LatestFiles, wide.Rows),
		},
		{
			name:    fmt.Sprintf("scan wide, %d columns", len(strings.Split(proj, ","))),
			runners: scanRunners(proj),
			check:   want(-1, wide.LatestFiles, wide.Rows),
		},
	}
}

// projection is the column list of the projected scan.
func projection(c config, wide *gen.Manifest) string {
	if c.projected != "" {
		return c.projected
	}
	return defaultProjection(wide.Columns)
}

func flagsFor(cols string) []string {
	if cols == "" {
		return nil
	}
	return []string{"-columns", cols}
}

func refLabel(engine string) string {
	switch engine {
	case "deltalake-table":
		return "delta-rs to_pyarrow_table"
	case "pyarrow":
		return "pyarrow.dataset"
	case "polars":
		return "polars scan_parquet"
	case "duckdb":
		return "duckdb read_parquet"
	}
	return engine
}

// defaultProjection picks one int64, one string and one timestamp column
// from the middle of the schema, so projection has to skip columns on both sides.
func defaultProjection(cols []string) string {
	var pick []string
	for _, suffix := range []string{"_long", "_string", "_timestamp"} {
		for i := len(cols) / 2; i < len(cols); i++ {
			if strings.HasSuffix(cols[i], suffix) {
				pick = append(pick, cols[i])
				break
			}
		}
	}
	return strings.Join(pick, ",")
}

// runCase runs each program once to warm caches, then reps times,
// interleaving the programs so drift in the machine's load hits all alike.
// A run that fails or gives a wrong answer is recorded, not measured, and
// the harness carries on.
func runCase(c config, bc *benchCase) {
	bc.samples = map[string][]sample{}
	bc.failures = map[string][]string{}
	for rep := -1; rep < c.reps; rep++ {
		for _, r := range bc.runners {
			if !r.ours && !r.peer && rep >= c.refReps {
				continue
			}
			label := "warm-up"
			if rep >= 0 {
				label = fmt.Sprintf("rep %d", rep+1)
			}
			s, err := runOnce(r.argv)
			if err == nil {
				err = bc.check(s.res)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "benchrun: %s, %s, %s: FAILED: %v\n", bc.name, r.engine, label, err)
				bc.failures[r.engine] = append(bc.failures[r.engine], label+": "+summary(err.Error()))
				continue
			}
			if rep >= 0 {
				bc.samples[r.engine] = append(bc.samples[r.engine], s)
			}
			fmt.Fprintf(os.Stderr, "benchrun: %-28s %-26s %-7s: op %.3fs wall %.3fs cpu %.3fs rss %d MiB\n",
				bc.name, r.engine, label, s.res.Seconds, s.wall.Seconds(), s.cpu.Seconds(), s.maxRSS/1024)
		}
	}
}

// summary keeps the first and last line of an error (the command and its
// exit status, and the program's last word on stderr).
func summary(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) == 1 {
		return lines[0]
	}
	return lines[0] + " / " + strings.TrimSpace(lines[len(lines)-1])
}

func runOnce(argv []string) (sample, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, lastLines(stderr.String(), 20))
	}
	var s sample
	s.wall = wall
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.maxRSS = ru.Maxrss // KiB on Linux
		s.cpu = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	}
	line := bytes.TrimSpace(stdout.Bytes())
	if i := bytes.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	if err := json.Unmarshal(line, &s.res); err != nil {
		return sample{}, fmt.Errorf("%s: result %q: %w", strings.Join(argv, " "), line, err)
	}
	return s, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchrun:", err)
	os.Exit(1)
}
