package testservers

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// setupHint is the command that installs the servers.
const setupHint = "scripts/cloud-servers.sh install"

// SkipPrefix starts the message of every skip for a missing server, so that
// a run that must have the servers (make test) can tell those skips from
// others and fail on them (testkit/testsummary -fail-on-skip-prefix).
const SkipPrefix = "missing test server: "

// requireEnv makes a missing server a failure instead of a skip.
const requireEnv = "DELTALITE_REQUIRE_CLOUD_SERVERS"

var (
	mu      sync.Mutex
	stops   []func()
	started = map[string]any{}
)

// StopAll ends every server this process started. Call it after m.Run.
func StopAll() {
	mu.Lock()
	defer mu.Unlock()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
	stops = nil
	started = map[string]any{}
}

// once starts the named server on first use and returns it afterwards; a
// failed start is remembered so later tests fail fast with the same error.
func once[T any](t testing.TB, name string, start func() (T, func(), error)) T {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if v, ok := started[name]; ok {
		if err, bad := v.(error); bad {
			t.Fatalf("%s did not start: %v", name, err)
		}
		return v.(T)
	}
	v, stop, err := start()
	if err != nil {
		started[name] = err
		t.Fatalf("%s did not start: %v", name, err)
	}
	started[name] = v
	stops = append(stops, stop)
	return v
}

// missing skips (or, under CI, fails) a test whose server is not installed.
func missing(t testing.TB, what string) {
	t.Helper()
	msg := fmt.Sprintf("%s is not installed; run %s (from the repository root)", what, setupHint)
	if os.Getenv(requireEnv) != "" {
		t.Fatal(msg + "; " + requireEnv + " is set, so this is a failure")
	}
	t.Skip(SkipPrefix + msg)
}

// repoRoot finds the module root from the working directory (tests run in
// their package directory).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/deltalite-go/deltalite\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod of deltalite) not found above the working directory")
		}
		dir = parent
	}
}

// findTool returns the first executable among an environment override and
// the paths under the repository's .cache.
func findTool(envName string, underCache ...string) string {
	if p := os.Getenv(envName); p != "" {
		return p
	}
	root, err := repoRoot()
	if err != nil {
		return ""
	}
	for _, rel := range underCache {
		p := filepath.Join(root, ".cache", rel)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// tool is a server program the rigs run: its name, the variable that may
// point at it, its place under the cache, and what a skip calls it.
type tool struct{ name, env, underCache, what string }

// external returns the server of this test binary that tool runs,
// starting it on first use (the test skips when tool is not installed) on
// a free port with a fresh directory, removed when the server stops.
// command is its command line and what the tests are told about it.
func external[T any](t testing.TB, tool tool, wait time.Duration, command func(bin string, port int, dir string) (T, *exec.Cmd)) T {
	t.Helper()
	bin := findTool(tool.env, tool.underCache)
	if bin == "" {
		missing(t, tool.what)
	}
	return once(t, tool.name, func() (T, func(), error) {
		var srv T
		port, err := freePort()
		if err != nil {
			return srv, nil, err
		}
		dir, err := os.MkdirTemp("", "deltalite-"+tool.name+"-")
		if err != nil {
			return srv, nil, err
		}
		srv, cmd := command(bin, port, dir)
		p, err := startProcess(cmd, port, wait)
		if err != nil {
			os.RemoveAll(dir)
			return srv, nil, err
		}
		return srv, func() { p.stop(); os.RemoveAll(dir) }, nil
	})
}

// freePort asks the kernel for a free port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// server is a child process listening on a port.
type server struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

// startProcess runs cmd and waits until port accepts connections.
func startProcess(cmd *exec.Cmd, port int, wait time.Duration) (*server, error) {
	s := &server{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout = s.out
	cmd.Stderr = s.out
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(wait)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("%s exited before listening on %s:\n%s", filepath.Base(cmd.Path), addr, s.out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s did not listen on %s within %v:\n%s", filepath.Base(cmd.Path), addr, wait, s.out.String())
		}
	}
}

func (s *server) stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 1<<20 { // keep the start; a chatty server must not grow without bound
		return len(p), nil
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
