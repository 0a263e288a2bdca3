package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/bench/internal/gen"
)

var commandLine = os.Getenv("BENCH_COMMAND")

func render(c config, cases []*benchCase, ll, wide *gen.Manifest, elapsed time.Duration, loadBefore, loadAfter string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# deltalite benchmark results\n\n")
	if commandLine != "" {
		p("Command: `%s`  \n", commandLine)
	}
	p("Date: %s; harness time %s.  \n", time.Now().UTC().Format(time.RFC3339), elapsed.Round(time.Second))
	p("Machine: %s; load average (1, 5, 15 min) %s before, %s after.  \n", machine(), loadBefore, loadAfter)
	p("Software: %s.\n\n", versions(c))

	logFiles, logBytes := dirSize(filepath.Join(c.tables, "longlog", "_delta_log"))
	p("Tables:\n\n")
	p("- **long log** (`%s`): %s; versions 0..%d, checkpoints at %s, %d JSON commits after the last one; "+
		"%d add and %d remove actions in all, %d live files at the latest version, %d at version %d; "+
		"`_delta_log` holds %d files, %.1f MiB. No data files: both engines read the log only.\n",
		filepath.Join(c.tables, "longlog"), options(ll), ll.Latest, joinInts(ll.Checkpoints), trailing(ll),
		ll.Adds, ll.Removes, ll.LatestFiles, ll.MidFiles, ll.Mid, logFiles, float64(logBytes)/(1<<20))
	p("- **wide** (`%s`): %s; %d Parquet files (snappy), %d rows, %d columns (int64, float64, string, "+
		"timestamp, bool in turn), %.1f MiB on disk, one commit. The projected scan reads `%s`.\n\n",
		filepath.Join(c.tables, "wide"), options(wide), wide.LatestFiles, wide.Rows, len(wide.Columns),
		float64(wide.Bytes)/(1<<20), projection(c, wide))

	p("Each program runs in its own process: one warm-up run, then %d measured runs (%d for the reference readers), interleaved across engines. "+
		"*op* is the operation timed inside the process (start-up and imports excluded); *process* is the wall time "+
		"of the whole process as the harness saw it and *CPU* its user + system time (both include start-up); peak RSS is the kernel's `ru_maxrss` of the process (wait4). "+
		"Every run's version, file count and row count are checked against the generator's manifest.\n\n", c.reps, min(c.refReps, c.reps))

	p("| case | engine | op median (s) | op min (s) | process median (s) | CPU median (s) | peak RSS median (MiB) | peak RSS max (MiB) |\n")
	p("|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, bc := range cases {
		if bc.samples == nil {
			continue
		}
		for _, r := range bc.runners {
			ss := bc.samples[r.engine]
			if len(ss) == 0 {
				p("| %s | %s | failed | | | | | |\n", bc.name, r.engine)
				continue
			}
			op, wall, cpu, rss := series(ss)
			p("| %s | %s | %.3f | %.3f | %.3f | %.3f | %.0f | %.0f |\n", bc.name, r.engine,
				median(op), slices.Min(op), median(wall), median(cpu), median(rss), slices.Max(rss))
		}
	}
	p("\nRatios deltalite / delta-rs (medians; below 1 means deltalite is faster or smaller):\n\n")
	p("| case | op time | process wall | CPU | peak RSS |\n|---|--:|--:|--:|--:|\n")
	for _, bc := range cases {
		if bc.samples == nil {
			continue
		}
		var ours, peer []sample
		for _, r := range bc.runners {
			if r.ours {
				ours = bc.samples[r.engine]
			}
			if r.peer {
				peer = bc.samples[r.engine]
			}
		}
		oo, ow, oc, or := series(ours)
		po, pw, pc, pr := series(peer)
		p("| %s | %s | %s | %s | %s |\n", bc.name, ratio(median(oo), median(po)), ratio(median(ow), median(pw)),
			ratio(median(oc), median(pc)), ratio(median(or), median(pr)))
	}
	failures(p, cases)
	return b.String()
}

// failures lists the runs that failed, if any.
func failures(p func(string, ...any), cases []*benchCase) {
	first := true
	for _, bc := range cases {
		for _, r := range bc.runners {
			for _, f := range bc.failures[r.engine] {
				if first {
					p("\nFailed runs (not measured):\n\n")
					first = false
				}
				p("- %s, %s, %s\n", bc.name, r.engine, f)
			}
		}
	}
}

func series(ss []sample) (op, wall, cpu, rssMiB []float64) {
	for _, s := range ss {
		op = append(op, s.res.Seconds)
		wall = append(wall, s.wall.Seconds())
		cpu = append(cpu, s.cpu.Seconds())
		rssMiB = append(rssMiB, float64(s.maxRSS)/1024)
	}
	return
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func joinInts(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func trailing(m *gen.Manifest) int64 {
	if len(m.Checkpoints) == 0 {
		return m.Latest + 1
	}
	return m.Latest - m.Checkpoints[len(m.Checkpoints)-1]
}

func dirSize(dir string) (n int, bytes int64) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && !e.IsDir() {
			n++
			bytes += fi.Size()
		}
	}
	return n, bytes
}

// machine describes the CPU, cores, memory and kernel.
func machine() string {
	cpu := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
		f.Close()
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.1f GiB RAM", float64(kb)/(1<<20))
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%s, %d logical CPUs%s%s", cpu, runtime.NumCPU(), mem, kernel)
}

// versions names the Go toolchain that built the harness and the peers'
// package versions as the Python environment reports them.
func versions(c config) string {
	parts := []string{runtime.Version()}
	out, err := exec.Command(c.python, c.peer, "versions").Output()
	if err == nil {
		var r struct {
			Versions map[string]string `json:"versions"`
		}
		if json.Unmarshal(out, &r) == nil {
			keys := make([]string, 0, len(r.Versions))
			for k := range r.Versions {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				parts = append(parts, k+" "+r.Versions[k])
			}
		}
	}
	return strings.Join(parts, ", ")
}

// loadAvg is the first three fields of /proc/loadavg: other work on the
// machine during a run shows up here and in the spread of the timings.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// options renders a manifest's generator options as sorted key=value pairs.
func options(m *gen.Manifest) string {
	keys := make([]string, 0, len(m.Options))
	for k := range m.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, m.Options[k])
	}
	return strings.Join(parts, " ")
}
