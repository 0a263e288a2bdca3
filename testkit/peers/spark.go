package peers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Op is one Spark operation, as python/spark_ops.py documents them:
// {"op": "read", "path": ...}, {"op": "write", ...}, {"op": "delete", ...}, ...
type Op map[string]any

// Result is the outcome of one Op.
type Result struct {
	Op      string  `json:"op"`
	OK      bool    `json:"ok"`
	Error   string  `json:"error"`
	Seconds float64 `json:"seconds"`
	// Out is the file the result went to, for an Op with "out".
	Out string `json:"out"`

	raw json.RawMessage
}

// Table decodes the rows of a read, history or sql result.
func (r Result) Table(t testing.TB) Table {
	t.Helper()
	if !r.OK {
		t.Fatalf("peers: spark %s failed: %s", r.Op, r.Error)
	}
	data := []byte(r.raw)
	if r.Out != "" {
		var err error
		if data, err = os.ReadFile(r.Out); err != nil {
			t.Fatalf("peers: spark %s result: %v", r.Op, err)
		}
	}
	tb, err := DecodeTable(data)
	if err != nil {
		t.Fatalf("peers: spark %s: %v", r.Op, err)
	}
	if tb.Engine == "" {
		tb.Engine = "spark"
	}
	return tb
}

// SparkTimeout bounds Spark's start-up and each batch of operations:
// $DELTALITE_SPARK_TIMEOUT (a Go duration), else 15 minutes.
func SparkTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("DELTALITE_SPARK_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 15 * time.Minute
}

// SparkSession is a local Spark with Delta Lake that serves one test binary.
// Its methods are safe for concurrent use; batches run one at a time.
type SparkSession struct {
	mu      sync.Mutex
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan []byte
	stderr  *ring
	nextID  int
	dead    error
	startup time.Duration
}

var shared struct {
	mu  sync.Mutex
	s   *SparkSession
	err error
}

// Spark returns the test binary's Spark session, starting it on first use
// (tens of seconds). It skips the test when the test environment or Java is
// missing (fails it when peers are required), and fails it when Spark does
// not start.
func Spark(t testing.TB) *SparkSession {
	t.Helper()
	py := Python(t)
	if _, err := exec.LookPath("java"); err != nil {
		Missing(t, "no java on PATH for Spark")
	}
	r := Root(t)
	if _, err := os.Stat(filepath.Join(r, ".cache", "spark", "jars.txt")); err != nil {
		Missing(t, "the Delta jars for Spark are not resolved into %s", filepath.Join(r, ".cache"))
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.s != nil && shared.s.alive() {
		return shared.s
	}
	if shared.err != nil {
		t.Fatalf("peers: Spark did not start earlier in this test binary: %v", shared.err)
	}
	s, err := startSpark(py, r)
	if err != nil {
		shared.err = err
		t.Fatalf("peers: %v", err)
	}
	t.Logf("peers: Spark started in %v", s.startup.Round(time.Millisecond))
	shared.s = s
	return s
}

// Startup is how long the session took to start.
func (s *SparkSession) Startup() time.Duration { return s.startup }

func startSpark(py, root string) (*SparkSession, error) {
	cmd := exec.Command(py, filepath.Join(root, "python", "spark_ops.py"), "--serve")
	configureChild(cmd)
	cmd.Env = pythonEnv(root, nil)
	s := &SparkSession{cmd: cmd, lines: make(chan []byte, 1), stderr: newRing(64 << 10)}
	if os.Getenv("DELTALITE_PEERS_VERBOSE") != "" {
		cmd.Stderr = io.MultiWriter(s.stderr, os.Stderr)
	} else {
		cmd.Stderr = s.stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.stdin = stdin
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting Spark: %w", err)
	}
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				s.lines <- line
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	line, err := s.receive(SparkTimeout())
	if err != nil {
		return nil, fmt.Errorf("starting Spark: %w", err)
	}
	var ready struct {
		Ready bool `json:"ready"`
	}
	if json.Unmarshal(line, &ready) != nil || !ready.Ready {
		s.kill(fmt.Errorf("unexpected first line %q", line))
		return nil, fmt.Errorf("starting Spark: %w", s.dead)
	}
	s.startup = time.Since(started)
	return s, nil
}

// receive waits for the next line from the server; on timeout or exit the
// server is killed and the error carries the tail of its stderr.
func (s *SparkSession) receive(timeout time.Duration) ([]byte, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line, ok := <-s.lines:
		if ok {
			return line, nil
		}
		s.kill(fmt.Errorf("the Spark process exited (%v)", s.cmd.Wait()))
	case <-timer.C:
		s.kill(fmt.Errorf("no answer from Spark within %v (set DELTALITE_SPARK_TIMEOUT to wait longer)", timeout))
		go func() { _ = s.cmd.Wait() }() // reap it
	}
	return nil, s.dead
}

func (s *SparkSession) kill(reason error) {
	if s.dead != nil {
		return
	}
	_ = killGroup(s.cmd)
	s.dead = fmt.Errorf("%w\nSpark's stderr (tail):\n%s", reason, s.stderr.String())
}

func (s *SparkSession) alive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead == nil
}

// Try runs ops in one batch and returns their results; an operation's
// failure is in its Result. A broken session fails the test.
func (s *SparkSession) Try(t testing.TB, ops ...Op) []Result {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		t.Fatalf("peers: Spark is not running: %v", s.dead)
	}
	s.nextID++
	req, err := json.Marshal(map[string]any{"id": s.nextID, "ops": ops})
	if err != nil {
		t.Fatalf("peers: spark ops: %v", err)
	}
	if _, err := s.stdin.Write(append(req, '\n')); err != nil {
		s.kill(fmt.Errorf("sending ops to Spark: %w", err))
		t.Fatalf("peers: %v", s.dead)
	}
	line, err := s.receive(SparkTimeout())
	if err != nil {
		t.Fatalf("peers: %v", err)
	}
	var resp struct {
		ID      int               `json:"id"`
		Error   string            `json:"error"`
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		t.Fatalf("peers: Spark's answer %.200q: %v", line, err)
	}
	if resp.Error != "" || resp.ID != s.nextID || len(resp.Results) != len(ops) {
		t.Fatalf("peers: Spark's answer to batch %d: id %d, %d results for %d ops, error %q",
			s.nextID, resp.ID, len(resp.Results), len(ops), resp.Error)
	}
	out := make([]Result, len(ops))
	for i, raw := range resp.Results {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatalf("peers: Spark result %d: %v", i, err)
		}
		out[i].raw = raw
	}
	return out
}

// Run runs ops in one batch like Try and fails the test if any failed.
func (s *SparkSession) Run(t testing.TB, ops ...Op) []Result {
	t.Helper()
	res := s.Try(t, ops...)
	var failed []string
	for i, r := range res {
		if !r.OK {
			failed = append(failed, fmt.Sprintf("op %d (%s %v): %s", i, r.Op, ops[i]["path"], r.Error))
		}
	}
	if len(failed) > 0 {
		t.Fatalf("peers: Spark operations failed:\n%s", strings.Join(failed, "\n"))
	}
	return res
}

// Read reads the table at path with Spark.
func (s *SparkSession) Read(t testing.TB, path string, opts ReadOptions) Table {
	t.Helper()
	return s.Run(t, ReadOp(path, opts))[0].Table(t)
}

// ReadOp is the Op that reads path with opts.
func ReadOp(path string, opts ReadOptions) Op {
	op := Op{"op": "read", "path": path}
	if opts.Version != nil {
		op["version"] = *opts.Version
	}
	if opts.Timestamp != "" {
		op["timestamp"] = opts.Timestamp
	}
	if len(opts.Columns) > 0 {
		op["columns"] = opts.Columns
	}
	if len(opts.Partitions) > 0 {
		var conds []string
		for _, p := range opts.Partitions {
			k, v, _ := strings.Cut(p, "=")
			conds = append(conds, fmt.Sprintf("`%s` = '%s'", k, strings.ReplaceAll(v, "'", "\\'")))
		}
		op["where"] = strings.Join(conds, " AND ")
	}
	return op
}

// ring keeps the last bytes written to it.
type ring struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newRing(max int) *ring { return &ring{max: max} }

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if len(r.buf) > r.max {
		r.buf = append(r.buf[:0], r.buf[len(r.buf)-r.max:]...)
	}
	return len(p), nil
}

func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return tail(r.buf, r.max)
}
