// Command writebench compares deltalite.Write with delta-rs write_deltalake
// on the same Arrow data, in one invocation: it generates an Arrow IPC
// stream file of mixed columns once, then has each engine stream it into a
// new table (unpartitioned, and partitioned by a column with 100 values),
// each run in its own process, alternating the engines. It records wall
// time, CPU time and peak RSS from wait4 and the output the commit added
// (from the _delta_log), checks that both tables hold the same rows, and
// writes a Markdown report and the raw results as JSON.
//
//	writebench [-gib 1] [-reps 3] [-cases plain,partitioned]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

const (
	engineDeltaRS = "delta-rs write_deltalake"
	engineOurs    = "deltalite.Write"
)

type config struct {
	report.Flags
	gib                   float64
	batchRows, partitions int
	cases                 []string
	dlops, gen, writer    string
}

// Input describes the generated Arrow file (write_gen.py's output).
type Input struct {
	Rows       int64 `json:"rows"`
	Batches    int64 `json:"batches"`
	BatchRows  int64 `json:"batch_rows"`
	Partitions int   `json:"partitions"`
	ArrowBytes int64 `json:"arrow_bytes"`
	FileBytes  int64 `json:"file_bytes"`
	Seed       int64 `json:"seed"`
}

// Run is one measured process.
type Run struct {
	Case   string `json:"case"`
	Engine string `json:"engine"`
	Rep    int    `json:"rep"`
	Order  int    `json:"order"`
	runproc.Measured
	Volume   runproc.Volume   `json:"volume"`
	Checksum *report.Checksum `json:"checksum,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// Report is the whole invocation.
type Report struct {
	report.Header
	Input    Input    `json:"input"`
	Reps     int      `json:"reps"`
	Cases    []string `json:"cases"`
	Runs     []Run    `json:"runs"`
	Problems []string `json:"problems,omitempty"`
}

func main() {
	var c config
	var cases string
	flag.Float64Var(&c.gib, "gib", 1, "Arrow size of the input (GiB)")
	flag.IntVar(&c.batchRows, "batch-rows", 65536, "rows per record batch of the input")
	flag.IntVar(&c.partitions, "partitions", 100, "distinct values of the partition column")
	flag.StringVar(&cases, "cases", "plain,partitioned", "cases to run: plain (unpartitioned), partitioned (by part)")
	c.Register(flag.CommandLine, 3, "bench/out/write", "the input, tables and reports")
	flag.StringVar(&c.dlops, "dlops", "bench/out/bin/dlops", "this engine's operation program")
	flag.StringVar(&c.gen, "gen", "bench/py/write_gen.py", "input generator")
	flag.StringVar(&c.writer, "writer", "bench/py/write_bench.py", "the delta-rs write program")
	flag.Parse()
	c.cases = strings.Split(cases, ",")
	if err := c.Init(); err != nil {
		fail(err)
	}
	if c.ReportOnly {
		var r Report
		if err := c.Outputs.Rerender(&r, func() string { return render(&r) }); err != nil {
			fail(err)
		}
		return
	}
	r := &Report{Header: report.NewHeader(c.Work, c.Python), Reps: c.Reps, Cases: c.cases}
	input, in, err := generate(c)
	if err != nil {
		fail(err)
	}
	r.Input = *in
	for _, cs := range c.cases {
		var partBy string
		switch cs {
		case "plain":
		case "partitioned":
			partBy = "part"
		default:
			fail(fmt.Errorf("unknown case %q", cs))
		}
		for rep := range c.Reps {
			order := []string{engineDeltaRS, engineOurs}
			if rep%2 == 1 {
				order = []string{engineOurs, engineDeltaRS}
			}
			for i, e := range order {
				run := runEngine(c, cs, e, input, partBy)
				run.Rep, run.Order = rep+1, i+1
				if run.Error != "" {
					r.Problems = append(r.Problems, fmt.Sprintf("%s, %s rep %d: %s", cs, e, rep+1, run.Error))
				}
				r.Runs = append(r.Runs, run)
				if err := c.Outputs.Save(r, render(r)); err != nil {
					fail(err)
				}
			}
		}
	}
	r.Problems = append(r.Problems, verify(r)...)
	r.Finish()
	if err := c.Outputs.Save(r, render(r)); err != nil {
		fail(err)
	}
	fmt.Print(render(r))
	logf("report: %s, results: %s", c.Outputs.Markdown, c.Outputs.JSON)
	if len(r.Problems) > 0 {
		fail(errors.New("some runs failed or disagreed; see the report"))
	}
}

var logf, fail = report.Log("writebench").Printf, report.Log("writebench").Fail

// generate makes the input file once per shape.
func generate(c config) (string, *Input, error) {
	path := filepath.Join(c.Work, fmt.Sprintf("input-%gGiB-b%d-p%d.arrows", c.gib, c.batchRows, c.partitions))
	jpath := strings.TrimSuffix(path, ".arrows") + ".json"
	var in Input
	if b, err := os.ReadFile(jpath); err == nil && json.Unmarshal(b, &in) == nil {
		if st, err := os.Stat(path); err == nil && st.Size() == in.FileBytes {
			logf("reusing %s", path)
			return path, &in, nil
		}
	}
	logf("generating %s", path)
	out, err := runproc.Output([]string{c.Python, c.gen, path, "--gib", strconv.FormatFloat(c.gib, 'g', -1, 64),
		"--batch-rows", strconv.Itoa(c.batchRows), "--partitions", strconv.Itoa(c.partitions)}, os.Stderr)
	if err != nil {
		return "", nil, err
	}
	if err := json.Unmarshal(out, &in); err != nil {
		return "", nil, fmt.Errorf("generator output %q: %w", out, err)
	}
	return path, &in, os.WriteFile(jpath, out, 0o644)
}

func runEngine(c config, cs, engine, input, partBy string) Run {
	run := Run{Case: cs, Engine: engine}
	dir := filepath.Join(c.Work, "table-"+cs)
	if err := os.RemoveAll(dir); err != nil {
		run.Error = err.Error()
		return run
	}
	defer os.RemoveAll(dir)
	syscall.Sync()
	if _, err := runproc.ReadTree(input); err != nil { // the input in the page cache for every run alike
		run.Error = err.Error()
		return run
	}
	var argv []string
	switch engine {
	case engineDeltaRS:
		argv = []string{c.Python, c.writer, dir, input}
		if partBy != "" {
			argv = append(argv, "--partition-by", partBy)
		}
	case engineOurs:
		argv = []string{c.dlops, "write", dir, input}
		if partBy != "" {
			argv = append(argv, "-partition-by", partBy)
		}
	}
	logf("%s, %s", cs, engine)
	s, err := runproc.Run(argv, nil, os.Stderr)
	run.Measured = s.Measured()
	if err != nil {
		run.Error = runproc.ErrorSummary(err)
		return run
	}
	logf("%s, %s: op %.1fs wall %.1fs cpu %.1fs rss %d MiB", cs, engine, run.OpS, run.WallS, run.UserS+run.SysS, run.MaxRSSKiB/1024)
	syscall.Sync()
	if run.Volume, err = runproc.LogVolume(dir, -1); err != nil {
		run.Error = err.Error()
		return run
	}
	var ck report.Checksum
	if err := runproc.OutputJSON([]string{c.Python, c.Checksum, dir}, os.Stderr, &ck); err != nil {
		run.Error = "checksum: " + err.Error()
		return run
	}
	run.Checksum = &ck
	return run
}

func verify(r *Report) []string {
	var problems []string
	for _, cs := range r.Cases {
		var first *report.Checksum
		for _, run := range r.Runs {
			if run.Case != cs || run.Checksum == nil {
				continue
			}
			if run.Checksum.Rows != r.Input.Rows {
				problems = append(problems, fmt.Sprintf("%s, %s rep %d: %d rows, want %d", cs, run.Engine, run.Rep, run.Checksum.Rows, r.Input.Rows))
			}
			if first == nil {
				first = run.Checksum
			} else if run.Checksum.Hash != first.Hash {
				problems = append(problems, fmt.Sprintf("%s, %s rep %d: content hash %s differs from %s", cs, run.Engine, run.Rep, run.Checksum.Hash, first.Hash))
			}
		}
	}
	return problems
}

type agg struct {
	n                                int
	op, wall, cpu, rss, bytes, files float64
}

func aggregate(r *Report, cs, engine string) agg {
	var s runproc.Samples
	for _, run := range r.Runs {
		if run.Case != cs || run.Engine != engine || run.Error != "" {
			continue
		}
		s.Add(run.Measured, run.Volume)
	}
	m := s.Medians()
	return agg{n: m.N, op: m.OpS, wall: m.WallS, cpu: m.CPUS, rss: m.RSSMiB, bytes: m.BytesAdded, files: m.FilesAdded}
}

func caseLabel(cs string, in Input) string {
	if cs == "partitioned" {
		return fmt.Sprintf("partitioned by part (%d values)", in.Partitions)
	}
	return "unpartitioned"
}

func render(r *Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	in := r.Input
	p("# Write: deltalite.Write vs delta-rs write_deltalake\n\n")
	b.WriteString(r.Markdown())
	p("Input: one Arrow IPC stream file, %d rows in %d batches of %d rows, %.2f GiB of Arrow buffers (%.2f GiB file); "+
		"12 columns: int64 ×2, float64, bool, int32, timestamp(us, UTC), date32, decimal(18,4), a 4-character partition "+
		"string with %d values drawn at random per row, and strings of 50 values, ~1M values and all-distinct 40 hex "+
		"digits. Each engine streams the file into a new table (mode error, defaults otherwise), %d time(s) per case, "+
		"each run in its own process with the input in the page cache.\n\n",
		in.Rows, in.Batches, in.BatchRows, float64(in.ArrowBytes)/(1<<30), float64(in.FileBytes)/(1<<30), in.Partitions, r.Reps)
	p("| case | engine | op (s) | process wall (s) | CPU user+sys (s) | peak RSS (MiB) | output | files | Arrow MiB per op second | Arrow MiB per CPU second |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	mib := float64(in.ArrowBytes) / (1 << 20)
	for _, cs := range r.Cases {
		for _, e := range []string{engineDeltaRS, engineOurs} {
			a := aggregate(r, cs, e)
			if a.n == 0 {
				p("| %s | %s | failed | | | | | | | |\n", caseLabel(cs, in), e)
				continue
			}
			p("| %s | %s | %.1f | %.1f | %.1f | %.0f | %.2f GiB | %.0f | %.0f | %.0f |\n", caseLabel(cs, in), e, a.op, a.wall, a.cpu,
				a.rss, a.bytes/(1<<30), a.files, mib/a.op, mib/a.cpu)
		}
	}
	p("\nMedians over the runs. op: the write timed inside the process (opening the input, writing the files, " +
		"committing); process wall, CPU (user + system) and peak RSS (`ru_maxrss`) from `wait4`; output: the sizes of the " +
		"commit's `add` actions.\n\n")
	p("**Ratios deltalite / delta-rs** (below 1: deltalite takes less; throughput is the inverse of the op ratio)\n\n")
	p("| case | op time | process wall | CPU | peak RSS | output bytes | throughput (delta-rs op time / ours) | same content |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, cs := range r.Cases {
		d, o := aggregate(r, cs, engineDeltaRS), aggregate(r, cs, engineOurs)
		same := "yes"
		for _, pr := range r.Problems {
			if strings.HasPrefix(pr, cs+",") {
				same = "NO"
			}
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", caseLabel(cs, in), report.Ratio(o.op, d.op), report.Ratio(o.wall, d.wall), report.Ratio(o.cpu, d.cpu),
			report.Ratio(o.rss, d.rss), report.Ratio(o.bytes, d.bytes), report.Ratio(d.op, o.op), same)
	}
	report.Problems(&b, r.Problems)
	t := report.EveryRun(&b, 1, []report.Column{report.Text("case"), report.Text("engine")},
		[]report.Column{report.Number("output bytes"), report.Number("files"), report.Text("content (rows, hash)")})
	for _, run := range r.Runs {
		t.Row([]string{run.Case, run.Engine}, run.Rep, run.Order, run.Measured, fmt.Sprint(run.Volume.BytesAdded),
			fmt.Sprint(run.Volume.FilesAdded), report.Content(run.Error, run.Checksum.Fields()...))
	}
	p("\nThe content hash is DuckDB's `hash()` of every column summed over the rows, read through delta-rs.\n")
	return b.String()
}
