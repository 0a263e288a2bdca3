// Package sparktest gives the integration tests a local Spark Connect
// server with Delta Lake: started on first use by
// scripts/spark-connect-server.sh (the pinned pyspark and the cached Delta
// jars, 127.0.0.1 on a free port), shared by the test binary, stopped by
// Main when its tests end.
package sparktest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

var server struct {
	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	tmp     string
	log     string
	remote  string
	startup time.Duration
	err     error
}

// Main runs the package's tests and then stops the server, if one
// started: func TestMain(m *testing.M) { os.Exit(sparktest.Main(m)) }.
func Main(m *testing.M) int {
	code := m.Run()
	stop()
	return code
}

// Session returns a new session on the test binary's Spark Connect server,
// starting the server on first use (tens of seconds). It skips the test
// when the test environment or Java is missing (fails it when peers are
// required), and fails it when the server does not start.
func Session(t testing.TB) sql.SparkSession {
	t.Helper()
	remote := Remote(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := sql.NewSessionBuilder().Remote(remote).Build(ctx)
	if err != nil {
		t.Fatalf("sparktest: connecting to %s: %v", remote, err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// Remote is the server's connection string, sc://127.0.0.1:PORT, starting
// the server on first use; $DELTALITE_SPARK_REMOTE names a running server
// (with Delta, on this machine's file system) to use instead.
func Remote(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("Spark Connect: not in -short mode")
	}
	if r := os.Getenv("DELTALITE_SPARK_REMOTE"); r != "" {
		return r
	}
	peers.Python(t)
	if _, err := exec.LookPath("java"); err != nil {
		peers.Missing(t, "no java on PATH for Spark")
	}
	root := peers.Root(t)
	if _, err := os.Stat(filepath.Join(root, ".cache", "spark", "jars.txt")); err != nil {
		peers.Missing(t, "the Delta jars for Spark are not resolved into %s", filepath.Join(root, ".cache"))
	}
	server.mu.Lock()
	defer server.mu.Unlock()
	if server.err != nil {
		t.Fatalf("sparktest: the Spark Connect server did not start earlier in this test binary: %v", server.err)
	}
	if server.cmd == nil {
		if server.err = start(t, root); server.err != nil {
			stopLocked()
			t.Fatalf("sparktest: %v", server.err)
		}
		t.Logf("sparktest: Spark Connect server at %s started in %v", server.remote, server.startup.Round(time.Millisecond))
	}
	select {
	case <-server.exited:
		t.Fatalf("sparktest: the Spark Connect server exited; its log: %s", server.log)
	default:
	}
	return server.remote
}

// start runs the server and waits until it takes connections.
func start(t testing.TB, root string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	if server.tmp, err = os.MkdirTemp("", "deltalite-spark-connect-"); err != nil {
		return err
	}
	server.log = filepath.Join(server.tmp, "server.log")
	logf, err := os.Create(server.log)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(filepath.Join(root, "scripts", "spark-connect-server.sh"), strconv.Itoa(port))
	// The server's scratch files go under tmp, which stop removes.
	cmd.Env = peers.Env(t, "TMPDIR="+server.tmp)
	cmd.Stdout, cmd.Stderr = logf, logf
	peers.ConfigureChild(cmd)
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	server.cmd, server.exited = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(server.exited) }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(peers.SparkTimeout())
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case <-server.exited:
			return fmt.Errorf("the Spark Connect server exited while starting (%v); log: %s\n%s", cmd.ProcessState, server.log, tail(server.log))
		case <-time.After(250 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the Spark Connect server did not listen on %s within %v (set DELTALITE_SPARK_TIMEOUT to wait longer); log: %s\n%s",
				addr, peers.SparkTimeout(), server.log, tail(server.log))
		}
	}
	server.remote = "sc://" + addr
	server.startup = time.Since(started)
	return nil
}

func stop() {
	server.mu.Lock()
	defer server.mu.Unlock()
	stopLocked()
}

// stopLocked asks the server to shut down, kills it if it has not within
// 20 s, and removes its scratch files.
func stopLocked() {
	if server.cmd != nil && server.cmd.Process != nil {
		_ = server.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-server.exited:
		case <-time.After(20 * time.Second):
		}
		_ = peers.KillGroup(server.cmd)
		<-server.exited
	}
	if server.tmp != "" {
		_ = os.RemoveAll(server.tmp)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail is the end of the server's log, for errors.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 8<<10 {
		b = b[len(b)-8<<10:]
	}
	return string(b)
}
