package peers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// DefaultTimeout bounds one run of a Python helper script.
const DefaultTimeout = 5 * time.Minute

// Options tune RunPythonWith.
type Options struct {
	// Timeout bounds the run; zero means DefaultTimeout.
	Timeout time.Duration
	// Stdin is fed to the script.
	Stdin []byte
	// Env adds KEY=VALUE pairs to the script's environment.
	Env []string
	// Dir is the working directory; empty means the test's.
	Dir string
}

// RunPython runs python/<script> with args in the test environment and
// returns its standard output. A non-zero exit or a timeout fails the test,
// with the script's standard error in the message.
func RunPython(t testing.TB, script string, args ...string) []byte {
	t.Helper()
	return RunPythonWith(t, Options{}, script, args...)
}

// RunPythonWith is RunPython with options.
func RunPythonWith(t testing.TB, opts Options, script string, args ...string) []byte {
	t.Helper()
	out, err := TryPython(t, opts, script, args...)
	if err != nil {
		t.Fatalf("peers: %v", err)
	}
	return out
}

// TryPython runs python/<script> like RunPythonWith but returns a failed run
// as an error (with the script's standard error) instead of failing the test,
// for tests that expect a peer to refuse something. A missing test
// environment still skips or fails the test.
func TryPython(t testing.TB, opts Options, script string, args ...string) ([]byte, error) {
	t.Helper()
	py := Python(t)
	path := Script(t, script)
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, append([]string{path}, args...)...)
	configureChild(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = pythonEnv(Root(t), opts.Env)
	cmd.Dir = opts.Dir
	if opts.Stdin != nil {
		cmd.Stdin = bytes.NewReader(opts.Stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	started := time.Now()
	err := cmd.Run()
	if os.Getenv("DELTALITE_PEERS_VERBOSE") != "" {
		t.Logf("peers: %s %s took %v\n%s", script, strings.Join(args, " "), time.Since(started).Round(time.Millisecond), stderr.Bytes())
	}
	if err != nil {
		what := err.Error()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			what = fmt.Sprintf("timed out after %v", timeout)
		}
		return stdout.Bytes(), fmt.Errorf("%s %s: %s\n%s", script, strings.Join(args, " "), what, tail(stderr.Bytes(), 8000))
	}
	return stdout.Bytes(), nil
}

// tail returns at most the last n bytes of b, as text.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
		return "...\n" + string(b)
	}
	return string(b)
}
