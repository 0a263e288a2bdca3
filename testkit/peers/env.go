package peers

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// modulePath identifies the repository root by its go.mod.
const modulePath = "github.com/deltalite-go/deltalite"

// SetupHint is what to run when a peer is missing.
const SetupHint = "run scripts/setup-test-env.sh"

// SkipPrefix starts the message of every skip for a missing peer, so that a
// run that must have the peers (make test) can tell those skips from others
// and fail on them (testkit/testsummary -fail-on-skip-prefix).
const SkipPrefix = "missing peer: "

// Required reports whether missing peers fail tests instead of skipping
// them: DELTALITE_REQUIRE_PEERS=1 (or true), as CI sets it.
func Required() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("DELTALITE_REQUIRE_PEERS")))
	return v == "1" || v == "true" || v == "yes"
}

// Missing skips the test because a peer is not installed, or fails it when
// peers are required.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s (DELTALITE_REQUIRE_PEERS is set, so this is a failure; %s)", msg, SetupHint)
	}
	t.Skipf("%s%s; %s", SkipPrefix, msg, SetupHint)
}

var root struct {
	once sync.Once
	dir  string
	err  error
}

// Root returns the repository root: $DELTALITE_ROOT, or the nearest parent
// of the working directory whose go.mod declares this module.
func Root(t testing.TB) string {
	t.Helper()
	root.once.Do(func() { root.dir, root.err = findRoot() })
	if root.err != nil {
		t.Fatalf("peers: %v", root.err)
	}
	return root.dir
}

func findRoot() (string, error) {
	if d := os.Getenv("DELTALITE_ROOT"); d != "" {
		return filepath.Abs(d)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isModuleRoot(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod for %s above the working directory; set DELTALITE_ROOT", modulePath)
		}
		dir = parent
	}
}

func isModuleRoot(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath
		}
	}
	return false
}

// Python returns the path of the test environment's Python interpreter, or
// skips (fails, when peers are required) if the environment is not set up.
func Python(t testing.TB) string {
	t.Helper()
	r := Root(t)
	py := filepath.Join(r, ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		Missing(t, "no Python test environment at %s", py)
	}
	// The stamp is written last by the setup script: without it the
	// environment is half installed.
	if _, err := os.Stat(filepath.Join(r, ".venv", ".deltalite-requirements")); err != nil {
		Missing(t, "the Python test environment in %s is incomplete", filepath.Join(r, ".venv"))
	}
	return py
}

// Script returns the path of a helper script in python/.
func Script(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Root(t), "python", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("peers: no script %s", p)
	}
	return p
}

// pythonEnv is the environment of every Python process started here.
func pythonEnv(rootDir string, extra []string) []string {
	env := append(os.Environ(),
		"DELTALITE_ROOT="+rootDir,
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONUNBUFFERED=1",
		"SPARK_LOCAL_IP=127.0.0.1",
	)
	return append(env, extra...)
}
