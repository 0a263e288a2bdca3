package report

import (
	"flag"
	"fmt"
	"os"
	"time"
)

// Flags are the flags every harness has: how many runs, where it works,
// the Python of the peers, the content fingerprint program, where the
// report goes, and whether to only render saved results again.
type Flags struct {
	Reps       int
	Work       string
	Python     string
	Checksum   string
	Outputs    Outputs
	ReportOnly bool
}

// Register defines the flags on fs with the harness's defaults: reps runs
// per engine and case, work the directory of what holds says.
func (f *Flags) Register(fs *flag.FlagSet, reps int, work, holds string) {
	fs.IntVar(&f.Reps, "reps", reps, "measured runs per engine and case (the order of the engines alternates)")
	fs.StringVar(&f.Work, "work", work, "directory for "+holds)
	fs.StringVar(&f.Python, "python", ".venv/bin/python", "Python with deltalake, pyarrow and duckdb")
	fs.StringVar(&f.Checksum, "checksum", "bench/py/checksum.py", "the content fingerprint program")
	fs.StringVar(&f.Outputs.Markdown, "out", "", "Markdown report (default WORK/results.md)")
	fs.StringVar(&f.Outputs.JSON, "json", "", "raw results (default WORK/results.json)")
	fs.BoolVar(&f.ReportOnly, "report-only", false, "render the report from the JSON results, run nothing")
}

// Init makes the work directory and defaults the outputs into it.
func (f *Flags) Init() error { return f.Outputs.Init(f.Work) }

// Log is a harness's progress and failure lines on stderr, under its name.
type Log string

// Printf writes one progress line, stamped with the time.
func (l Log) Printf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s: %s %s\n", l, time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// Fail writes err and ends the harness with exit status 1.
func (l Log) Fail(err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", l, err)
	os.Exit(1)
}
