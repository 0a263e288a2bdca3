// Command testsummary reads `go test -json` on stdin and prints what plain
// `go test` prints (a line per package, the output of failing tests and
// build errors), then a table of every skipped test with its reason, so that
// a run says what it did not test.
//
//	go test -json ./... | testsummary [-fail-on-skip-prefix PREFIX]...
//
// It exits 1 when a test or build failed, when the stream ended before a
// package finished (go test was killed), when it held no test results, or
// when a test skipped with a reason that starts with one of the
// -fail-on-skip-prefix values: `make test` passes the prefixes with which
// tests skip for a missing peer or test server, since a run that is meant to
// test against them must not pass without them.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

func main() {
	var prefixes multiFlag
	fs := flag.NewFlagSet("testsummary", flag.ContinueOnError)
	fs.Var(&prefixes, "fail-on-skip-prefix", "fail the run when a test skips with a reason starting with this (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go test -json ./... | testsummary [-fail-on-skip-prefix PREFIX]...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "testsummary: unexpected argument %q; it reads go test -json on stdin\n", fs.Arg(0))
		os.Exit(2)
	}
	os.Exit(run(os.Stdin, os.Stdout, prefixes))
}

type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ", ") }

func (m *multiFlag) Set(v string) error {
	if v == "" {
		return fmt.Errorf("an empty prefix would match every skip")
	}
	*m = append(*m, v)
	return nil
}

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	Elapsed     float64
	ImportPath  string // build-output and build-fail events
	FailedBuild string
}

// skip is a skipped test and why.
type skip struct {
	pkg, test, where, reason string
}

type pkgState struct {
	running map[string][]string // test -> output lines, until it ends
	done    bool
}

type summary struct {
	out      io.Writer
	pkgs     map[string]*pkgState
	order    []string
	builds   map[string][]string // import path -> build output
	skips    []skip
	failed   []string // failed tests, "package test"
	failPkgs int      // failed packages, builds included
	results  int      // events that carry a test or package result
	passed   int      // passed tests
}

func run(in io.Reader, out io.Writer, failPrefixes []string) int {
	s := &summary{out: out, pkgs: map[string]*pkgState{}, builds: map[string][]string{}}
	r := bufio.NewReaderSize(in, 64<<10)
	for line := 1; ; line++ {
		text, err := r.ReadString('\n')
		if text != "" {
			s.line(line, text)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(out, "testsummary: reading the test output: %v\n", err)
			return 1
		}
	}
	return s.finish(failPrefixes)
}

// line handles one line of input; a line that is not a test2json event
// (go test's own error, or a line cut off) is printed as it is.
func (s *summary) line(n int, text string) {
	var e event
	if err := json.Unmarshal([]byte(text), &e); err != nil || e.Action == "" {
		fmt.Fprintf(s.out, "testsummary: line %d is not a go test -json event: %s", n, strings.TrimRight(text, "\n")+"\n")
		return
	}
	switch e.Action {
	case "build-output":
		s.builds[e.ImportPath] = append(s.builds[e.ImportPath], e.Output)
		return
	case "build-fail":
		fmt.Fprint(s.out, strings.Join(s.builds[e.ImportPath], ""))
		delete(s.builds, e.ImportPath)
		return
	}
	if e.Package == "" {
		return
	}
	p := s.pkg(e.Package)
	if e.Test == "" {
		s.pkgEvent(p, e)
		return
	}
	switch e.Action {
	case "run":
		p.running[e.Test] = nil
	case "output":
		p.running[e.Test] = append(p.running[e.Test], e.Output)
	case "pass":
		s.results++
		s.passed++
		delete(p.running, e.Test)
	case "skip":
		s.results++
		where, reason := skipReason(p.running[e.Test])
		s.skips = append(s.skips, skip{pkg: e.Package, test: e.Test, where: where, reason: reason})
		delete(p.running, e.Test)
	case "fail":
		s.results++
		s.failed = append(s.failed, e.Package+" "+e.Test)
		fmt.Fprint(s.out, strings.Join(visible(p.running[e.Test]), ""))
		delete(p.running, e.Test)
	}
}

func (s *summary) pkg(name string) *pkgState {
	p := s.pkgs[name]
	if p == nil {
		p = &pkgState{running: map[string][]string{}}
		s.pkgs[name] = p
		s.order = append(s.order, name)
	}
	return p
}

func (s *summary) pkgEvent(p *pkgState, e event) {
	switch e.Action {
	case "output":
		// Plain go test prints "ok", "FAIL", "?" and panics, not "PASS".
		if e.Output != "PASS\n" {
			fmt.Fprint(s.out, e.Output)
		}
	case "pass", "skip":
		s.results++
		p.done = true
	case "fail":
		s.results++
		s.failPkgs++
		p.done = true
		// A panic or timeout ends the binary with tests still running:
		// their output says where.
		s.printUnfinished(p)
	}
}

// printUnfinished prints the output of the tests of p that never ended.
func (s *summary) printUnfinished(p *pkgState) {
	for _, name := range sortedKeys(p.running) {
		fmt.Fprintf(s.out, "--- %s did not finish:\n", name)
		fmt.Fprint(s.out, strings.Join(visible(p.running[name]), ""))
	}
	p.running = map[string][]string{}
}

func (s *summary) finish(failPrefixes []string) int {
	rc := 0
	if len(s.failed) > 0 || s.failPkgs > 0 {
		rc = 1
	}
	for _, name := range s.order {
		p := s.pkgs[name]
		if p.done {
			continue
		}
		fmt.Fprintf(s.out, "FAIL\t%s: the test output ended before the package finished (was go test killed?)\n", name)
		s.printUnfinished(p)
		rc = 1
	}
	s.printSkips()
	var blocked []skip
	for _, sk := range s.skips {
		for _, pre := range failPrefixes {
			if strings.HasPrefix(sk.reason, pre) {
				blocked = append(blocked, sk)
				break
			}
		}
	}
	if len(blocked) > 0 {
		fmt.Fprintf(s.out, "\nFAIL: %d test(s) skipped for a reason this run must not skip for (-fail-on-skip-prefix %q):\n",
			len(blocked), []string(failPrefixes))
		for _, sk := range blocked {
			fmt.Fprintf(s.out, "  %s %s: %s\n", sk.pkg, sk.test, firstLine(sk.reason))
		}
		fmt.Fprintln(s.out, "Install what is missing (scripts/setup-test-env.sh) and run again.")
		rc = 1
	}
	if s.results == 0 {
		fmt.Fprintln(s.out, "testsummary: no test results on stdin; did go test -json run?")
		return 1
	}
	fmt.Fprintf(s.out, "\ntests: %d passed, %d skipped, %d failed (subtests counted)\n", s.passed, len(s.skips), len(s.failed))
	if len(s.failed) > 0 {
		fmt.Fprintf(s.out, "\nfailed tests (%d):\n  %s\n", len(s.failed), strings.Join(s.failed, "\n  "))
	}
	if rc != 0 {
		fmt.Fprintf(s.out, "\nFAIL: %d failed test(s), %d failed package(s)\n", len(s.failed), s.failPkgs)
	}
	return rc
}

func (s *summary) printSkips() {
	if len(s.skips) == 0 {
		fmt.Fprintln(s.out, "\nskipped tests: none")
		return
	}
	sort.SliceStable(s.skips, func(i, j int) bool {
		a, b := s.skips[i], s.skips[j]
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		return a.test < b.test
	})
	fmt.Fprintf(s.out, "\nskipped tests (%d):\n", len(s.skips))
	wPkg, wTest := 0, 0
	for _, sk := range s.skips {
		wPkg = max(wPkg, len(sk.pkg))
		wTest = max(wTest, len(sk.test))
	}
	for _, sk := range s.skips {
		reason := firstLine(sk.reason)
		if sk.where != "" {
			reason = sk.where + ": " + reason
		}
		fmt.Fprintf(s.out, "  %-*s  %-*s  %s\n", wPkg, sk.pkg, wTest, sk.test, reason)
	}
}

// location matches the "file.go:12: " that testing puts before a message.
var location = regexp.MustCompile(`^([\w.+-]+\.go:\d+): `)

// skipReason finds the last message a skipped test logged (t.Skip's own)
// and returns where it was logged and its text, continuation lines joined
// by newlines.
func skipReason(lines []string) (where, reason string) {
	var msg []string
	for _, l := range lines {
		l = strings.TrimRight(l, "\n")
		trimmed := strings.TrimLeft(l, " \t")
		switch {
		case strings.HasPrefix(trimmed, "=== "), strings.HasPrefix(trimmed, "--- "):
			continue
		case location.MatchString(trimmed) && len(l)-len(trimmed) <= 4:
			// A message starts at the test's indentation (4 spaces);
			// deeper lines continue it.
			m := location.FindStringSubmatch(trimmed)
			where = m[1]
			msg = []string{trimmed[len(m[0]):]}
		case msg != nil:
			msg = append(msg, trimmed)
		}
	}
	if msg == nil {
		return "", "(no reason given)"
	}
	return where, strings.Join(msg, "\n")
}

// visible drops the progress lines (=== RUN, PAUSE, CONT, NAME) that plain
// go test does not print.
func visible(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "=== ") {
			out = append(out, l)
		}
	}
	return out
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
