package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/testkit/testservers"
)

// events renders one test's events as go test -json writes them: run, the
// "=== RUN" line, the given output lines, the "--- RESULT" line and the
// result (pass, fail or skip).
func events(pkg, test, result string, lines ...string) string {
	var b strings.Builder
	emit := func(action, output string) {
		e := map[string]any{"Action": action, "Package": pkg, "Test": test}
		if output != "" {
			e["Output"] = output
		}
		j, _ := json.Marshal(e)
		b.Write(append(j, '\n'))
	}
	emit("run", "")
	emit("output", "=== RUN   "+test+"\n")
	for _, l := range lines {
		emit("output", l+"\n")
	}
	emit("output", fmt.Sprintf("--- %s: %s (0.00s)\n", strings.ToUpper(result), test))
	emit(result, "")
	return b.String()
}

// A stream as go test -json writes it: package a passes one test, skips
// two (one for a missing peer, one without a reason) and fails a subtest;
// package b fails to build; package c has no tests.
var mixed = `{"ImportPath":"m/b [m/b.test]","Action":"build-output","Output":"# m/b [m/b.test]\n"}
{"ImportPath":"m/b [m/b.test]","Action":"build-output","Output":"b/b_test.go:3:31: declared and not used: x\n"}
{"ImportPath":"m/b [m/b.test]","Action":"build-fail"}
{"Action":"start","Package":"m/a"}
{"Action":"start","Package":"m/b"}
{"Action":"output","Package":"m/b","Output":"FAIL\tm/b [build failed]\n"}
{"Action":"fail","Package":"m/b","Elapsed":0,"FailedBuild":"m/b [m/b.test]"}
{"Action":"start","Package":"m/c"}
{"Action":"output","Package":"m/c","Output":"?   \tm/c\t[no test files]\n"}
{"Action":"skip","Package":"m/c","Elapsed":0}
` + events("m/a", "TestPass", "pass", "    a_test.go:3: quiet when passing") +
	events("m/a", "TestSkip", "skip", "    a_test.go:4: an earlier log line",
		"    python.go:97: missing peer: no Python test environment", "        second line") +
	`{"Action":"run","Package":"m/a","Test":"TestFail"}
{"Action":"output","Package":"m/a","Test":"TestFail","Output":"=== RUN   TestFail\n"}
` + events("m/a", "TestFail/sub", "fail", "    a_test.go:5: boom") +
	events("m/a", "TestFail/bare", "skip") +
	`{"Action":"output","Package":"m/a","Test":"TestFail","Output":"--- FAIL: TestFail (0.00s)\n"}
{"Action":"fail","Package":"m/a","Test":"TestFail","Elapsed":0}
{"Action":"output","Package":"m/a","Output":"FAIL\n"}
{"Action":"output","Package":"m/a","Output":"FAIL\tm/a\t0.004s\n"}
{"Action":"fail","Package":"m/a","Elapsed":0.005}
`

// passing is a package whose tests pass or skip.
var passing = `{"Action":"start","Package":"m/d"}
` + events("m/d", "TestOK", "pass") +
	events("m/d", "TestServer", "skip", "    s3.go:29: missing test server: versitygw (S3 server) is not installed") +
	events("m/d", "TestShort", "skip", "    x_test.go:9: slow: not in -short mode") +
	`{"Action":"output","Package":"m/d","Output":"PASS\n"}
{"Action":"output","Package":"m/d","Output":"ok  \tm/d\t0.010s\n"}
{"Action":"pass","Package":"m/d","Elapsed":0.01}
`

func summarise(t *testing.T, input string, prefixes ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	rc := run(strings.NewReader(input), &out, prefixes)
	return rc, out.String()
}

// skipRow matches the summary's row for a skipped test.
func skipRow(t *testing.T, out, pkg, test, reason string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(pkg) + ` +` + regexp.QuoteMeta(test) + ` +` + regexp.QuoteMeta(reason) + `$`)
	if !re.MatchString(out) {
		t.Errorf("no skip row %q %q %q in:\n%s", pkg, test, reason, out)
	}
}

func TestMixedRun(t *testing.T) {
	rc, out := summarise(t, mixed)
	if rc != 1 {
		t.Errorf("exit code %d, want 1 for a failed test and a failed build", rc)
	}
	for _, want := range []string{
		"b/b_test.go:3:31: declared and not used: x\n", // build errors are shown
		"FAIL\tm/b [build failed]\n",
		"?   \tm/c\t[no test files]\n",
		"    a_test.go:5: boom\n--- FAIL: TestFail/sub (0.00s)\n", // a failing test's output
		"FAIL\tm/a\t0.004s\n",
		"skipped tests (2):\n",
		"failed tests (2):\n  m/a TestFail/sub\n  m/a TestFail\n",
		"FAIL: 2 failed test(s), 2 failed package(s)\n",
		"tests: 1 passed, 2 skipped, 2 failed (subtests counted)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"quiet when passing", "=== RUN", "PASS\n", "an earlier log line"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("output has %q, which plain go test does not print:\n%s", unwanted, out)
		}
	}
	skipRow(t, out, "m/a", "TestSkip", "python.go:97: missing peer: no Python test environment")
	skipRow(t, out, "m/a", "TestFail/bare", "(no reason given)")
	// The skip table comes after every package's result.
	if strings.Index(out, "skipped tests") < strings.Index(out, "FAIL\tm/a\t") {
		t.Errorf("the skip table is not at the end:\n%s", out)
	}
}

func TestSkipsPass(t *testing.T) {
	rc, out := summarise(t, passing)
	if rc != 0 {
		t.Errorf("exit code %d, want 0: skips without -fail-on-skip-prefix pass\n%s", rc, out)
	}
	if !strings.Contains(out, "ok  \tm/d\t0.010s\n") || !strings.Contains(out, "skipped tests (2):\n") ||
		!strings.Contains(out, "\ntests: 1 passed, 2 skipped, 0 failed (subtests counted)\n") {
		t.Errorf("missing package line or skip count:\n%s", out)
	}
	skipRow(t, out, "m/d", "TestServer", "s3.go:29: missing test server: versitygw (S3 server) is not installed")
	skipRow(t, out, "m/d", "TestShort", "x_test.go:9: slow: not in -short mode")
	if strings.Contains(out, "FAIL") {
		t.Errorf("a passing run mentions FAIL:\n%s", out)
	}
}

func TestFailOnSkipPrefix(t *testing.T) {
	rc, out := summarise(t, passing, "missing peer: ", "missing test server: ")
	if rc != 1 {
		t.Errorf("exit code %d, want 1: a test skipped for a missing server\n%s", rc, out)
	}
	if !strings.Contains(out, "FAIL: 1 test(s) skipped for a reason this run must not skip for") ||
		!strings.Contains(out, "  m/d TestServer: missing test server: versitygw (S3 server) is not installed\n") {
		t.Errorf("the failure does not name the skipped test:\n%s", out)
	}
	// Other skips stay skips.
	if strings.Contains(out, "  m/d TestShort: ") {
		t.Errorf("a -short skip was made a failure:\n%s", out)
	}
	// A prefix that no skip has changes nothing.
	if rc, out := summarise(t, passing, "missing peer: "); rc != 0 {
		t.Errorf("exit code %d with a prefix no skip has:\n%s", rc, out)
	}
}

func TestTruncatedStream(t *testing.T) {
	// Cut the passing stream in the middle of TestShort's last line.
	cut := strings.Index(passing, `"--- SKIP: TestShort`)
	rc, out := summarise(t, passing[:cut])
	if rc != 1 {
		t.Errorf("exit code %d, want 1 for a stream that ends mid-package", rc)
	}
	for _, want := range []string{
		"FAIL\tm/d: the test output ended before the package finished (was go test killed?)\n",
		"--- TestShort did not finish:\n    x_test.go:9: slow: not in -short mode\n",
		"testsummary: line 14 is not a go test -json event: ", // the cut line is shown
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The skip that did finish is still reported.
	skipRow(t, out, "m/d", "TestServer", "s3.go:29: missing test server: versitygw (S3 server) is not installed")
}

func TestNoResults(t *testing.T) {
	for name, input := range map[string]string{"empty": "", "not json": "go: no Go files in /x\n"} {
		rc, out := summarise(t, input)
		if rc != 1 || !strings.Contains(out, "no test results on stdin") {
			t.Errorf("%s: exit code %d, output:\n%s", name, rc, out)
		}
	}
}

func TestPanicShowsRunningTest(t *testing.T) {
	in := `{"Action":"run","Package":"m/e","Test":"TestHang"}
{"Action":"output","Package":"m/e","Test":"TestHang","Output":"=== RUN   TestHang\n"}
{"Action":"output","Package":"m/e","Test":"TestHang","Output":"panic: test timed out after 1s\n"}
{"Action":"output","Package":"m/e","Output":"FAIL\tm/e\t1.005s\n"}
{"Action":"fail","Package":"m/e","Elapsed":1.005}
`
	rc, out := summarise(t, in)
	if rc != 1 || !strings.Contains(out, "--- TestHang did not finish:\npanic: test timed out after 1s\n") {
		t.Errorf("exit code %d, output:\n%s", rc, out)
	}
}

// TestMakefilePrefixes keeps `make test`'s -fail-on-skip-prefix values the
// prefixes that peers and testservers skip with.
func TestMakefilePrefixes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	makefile := string(b)
	for _, prefix := range []string{peers.SkipPrefix, testservers.SkipPrefix} {
		if want := "-fail-on-skip-prefix '" + prefix + "'"; !strings.Contains(makefile, want) {
			t.Errorf("the Makefile does not pass %s", want)
		}
	}
}
