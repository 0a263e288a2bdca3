// Package runproc runs one benchmark program in its own process and
// measures it from the outside: wall time, user and system CPU time and
// peak resident set size from wait4, and the JSON result line the program
// printed. It also reads the machine's load average, so that a report
// taken on a shared machine says how shared it was.
package runproc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Result is the JSON line an operation program prints on stdout (the Go
// programs and the Python peers alike). Counts a program does not know
// stay zero.
type Result struct {
	Engine  string  `json:"engine"`
	Op      string  `json:"op"`
	Seconds float64 `json:"seconds"` // the operation alone, timed inside the process
	Version int64   `json:"version"`
	Rows    int64   `json:"rows"`
	// PeakRSSKiB is the program's own peak RSS at exit (VmHWM or
	// ru_maxrss); the harness's figure from wait4 is the one reported.
	PeakRSSKiB   int64 `json:"peakRssKiB"`
	RowsUpdated  int64 `json:"rowsUpdated"`
	RowsInserted int64 `json:"rowsInserted"`
	RowsCopied   int64 `json:"rowsCopied"`
	FilesAdded   int64 `json:"filesAdded"`
	FilesRemoved int64 `json:"filesRemoved"`
	// Detail is free text from the engine (e.g. its own stats line).
	Detail string `json:"detail,omitempty"`
}

// Sample is one measured process.
type Sample struct {
	Result Result
	Wall   time.Duration // process start to exit, as the parent saw it
	User   time.Duration
	Sys    time.Duration
	MaxRSS int64 // KiB, ru_maxrss from wait4
	// LoadBefore and LoadAfter are /proc/loadavg's 1-minute figures.
	LoadBefore, LoadAfter float64
}

// CPU is user + system time.
func (s Sample) CPU() time.Duration { return s.User + s.Sys }

// Run starts argv with env added to the environment, waits for it and
// parses the last line of its stdout as a Result. stderr goes to logTo
// (when not nil) as well as into the error of a failed run.
func Run(argv []string, env []string, logTo *os.File) (Sample, error) {
	s, line, err := RunLine(argv, env, logTo)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(line, &s.Result); err != nil {
		return s, fmt.Errorf("%s: result %q: %w", strings.Join(argv, " "), line, err)
	}
	return s, nil
}

// RunLine is Run for programs that do not print a Result (the deltalite
// command's --json output): it returns the last line of stdout as it is
// and leaves s.Result empty.
func RunLine(argv []string, env []string, logTo *os.File) (Sample, []byte, error) {
	cmd, stdout, stderr := command(argv, env, logTo)
	s := Sample{LoadBefore: Load1()}
	start := time.Now()
	err := cmd.Run()
	s.Wall = time.Since(start)
	s.LoadAfter = Load1()
	// A process that failed was measured too: what a run under a memory
	// cap used before it gave up is part of its result.
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			s.MaxRSS = ru.Maxrss
			s.User = time.Duration(syscall.TimevalToNsec(ru.Utime))
			s.Sys = time.Duration(syscall.TimevalToNsec(ru.Stime))
		}
	}
	line, err := lastLine(argv, err, stdout, stderr)
	return s, line, err
}

// Output runs argv and returns its stdout's last line (for helper
// programs whose resources are not measured).
func Output(argv []string, logTo *os.File) ([]byte, error) {
	cmd, stdout, stderr := command(argv, nil, logTo)
	return lastLine(argv, cmd.Run(), stdout, stderr)
}

// command is argv with env added to this process's, its stdout and stderr
// captured (stderr also copied to logTo when given).
func command(argv, env []string, logTo *os.File) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer) {
	cmd = exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout = stdout
	if logTo != nil {
		cmd.Stderr = teeWriter{stderr, logTo}
	} else {
		cmd.Stderr = stderr
	}
	return cmd, stdout, stderr
}

// lastLine is the last line of a finished command's stdout, or its error
// with the end of its stderr.
func lastLine(argv []string, err error, stdout, stderr *bytes.Buffer) ([]byte, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, LastLines(stderr.String(), 20))
	}
	line := bytes.TrimSpace(stdout.Bytes())
	if i := bytes.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	return line, nil
}

type teeWriter struct {
	buf *bytes.Buffer
	f   *os.File
}

func (t teeWriter) Write(p []byte) (int, error) {
	t.buf.Write(p)
	_, _ = t.f.Write(p)
	return len(p), nil
}

// LastLines is the last n lines of s.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Load1 is the 1-minute load average, or -1 where /proc is not available.
func Load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	var l float64
	if _, err := fmt.Sscan(string(b), &l); err != nil {
		return -1
	}
	return l
}

// LoadAvg is /proc/loadavg's three load figures, as text.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "n/a"
	}
	return strings.Join(f[:3], " ")
}

// Median of xs (the mean of the middle two for an even count); 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ErrorSummary shortens a failed process's error to its first and last
// lines, which name the command and its final complaint.
// OutputJSON runs a program that prints one JSON value (the checksum
// scripts) and decodes it into v. The error is one line, fit for a report.
func OutputJSON(argv []string, logTo *os.File, v any) error {
	out, err := Output(argv, logTo)
	if err != nil {
		return errors.New(ErrorSummary(err))
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("output %q: %v", out, err)
	}
	return nil
}

func ErrorSummary(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) == 1 {
		return lines[0]
	}
	return lines[0] + " / " + strings.TrimSpace(lines[len(lines)-1])
}
