// Package scripts_test tests the setup scripts in this directory.
package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeGo is a go command for the scripts: "go env" answers as the real one,
// "go install" writes a stand-in binary into $GOBIN and logs the call.
const fakeGo = `#!/usr/bin/env bash
case "$1" in
env) exec "$REAL_GO" "$@" ;;
install) echo "go $*" >>"$GO_CALLS"; printf 'built\n' >"$GOBIN/versitygw"; chmod +x "$GOBIN/versitygw" ;;
*) echo "fake go: unexpected $*" >&2; exit 1 ;;
esac
`

// repoCopy copies the scripts into a scratch repository and returns its
// root, a DELTALITE_CACHE and the environment to run them with.
func repoCopy(t *testing.T) (root, cache string, env []string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the setup scripts are bash")
	}
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	tmp := t.TempDir()
	root, cache = filepath.Join(tmp, "repo"), filepath.Join(tmp, "kept")
	for _, name := range []string{"cloud-servers.sh", "lib.sh"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "scripts"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "scripts", name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(tmp, "fakebin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"REAL_GO="+realGo,
		"GO_CALLS="+filepath.Join(tmp, "go-calls"),
		"DELTALITE_CACHE="+cache,
	)
	return root, cache, env
}

func installGW(t *testing.T, root string, env []string) string {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "cloud-servers.sh"), "install", "versitygw")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cloud-servers.sh install versitygw: %v\n%s", err, out)
	}
	return string(out)
}

// The versitygw build is kept in DELTALITE_CACHE, and a second clone copies
// it instead of building again.
func TestVersitygwBuildIsKept(t *testing.T) {
	root, cache, env := repoCopy(t)
	out := installGW(t, root, env)
	if !strings.Contains(out, "building into") {
		t.Errorf("first install did not build:\n%s", out)
	}
	kept, err := filepath.Glob(filepath.Join(cache, "versitygw", "v*-"+runtime.GOOS+"-"+runtime.GOARCH, "versitygw"))
	if err != nil || len(kept) != 1 {
		t.Fatalf("no kept build in %s: %v %v", cache, kept, err)
	}
	if b, err := os.ReadFile(kept[0]); err != nil || string(b) != "built\n" {
		t.Fatalf("kept build %q, %v", b, err)
	}

	// A new clone: the same DELTALITE_CACHE, an empty .cache.
	if err := os.RemoveAll(filepath.Join(root, ".cache")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept[0], []byte("kept\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out = installGW(t, root, env)
	if !strings.Contains(out, "copying the build kept in "+kept[0]) {
		t.Errorf("second install did not use the kept build:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(root, ".cache", "bin", "versitygw")); err != nil || string(b) != "kept\n" {
		t.Errorf("installed binary %q, %v; want the kept one", b, err)
	}
	calls, _ := os.ReadFile(filepath.Join(filepath.Dir(cache), "go-calls"))
	if n := strings.Count(string(calls), "go install"); n != 1 {
		t.Errorf("go install ran %d times, want once:\n%s", n, calls)
	}

	// Installed and current: nothing to do.
	if out := installGW(t, root, env); !strings.Contains(out, ": already installed") {
		t.Errorf("third install did something:\n%s", out)
	}
}

// The README's test command is the one CI runs.
func TestReadmeTestCommandIsCI(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	_, tests, ok := strings.Cut(string(readme), "\n## Tests\n")
	if !ok {
		t.Fatal("README.md has no Tests section")
	}
	_, block, ok := strings.Cut(tests, "```sh\n")
	if !ok {
		t.Fatal("README.md's Tests section shows no command")
	}
	command, _, _ := strings.Cut(block, "\n")
	if !strings.Contains(string(ci), "\n"+command+"\n") {
		t.Errorf("README.md's test command %q is not a line of .ci/run:\n%s", command, ci)
	}
}
