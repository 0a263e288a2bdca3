package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIIncrementalAcrossProcesses: each command a process of its own,
// sharing the state directory: a consumer's incremental read returns the
// table's rows first, then only what changed since the version its
// stored write recorded; a read not followed by a write (a failed run)
// is returned again by the next read.
func TestCLIIncrementalAcrossProcesses(t *testing.T) {
	if args := os.Getenv("DELTALITE_TEST_MAIN_ARGS"); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			t.Fatal(err)
		}
		os.Args = append([]string{"deltalite"}, list...)
		main()
		os.Exit(0)
	}
	dir := t.TempDir()
	stateDir := filepath.Join(dir, "state")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h := write("h.json", `{"table_uri": "`+filepath.Join(dir, "warehouse")+`"}`)
	proc := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestCLIIncrementalAcrossProcesses$")
		list, _ := json.Marshal(args)
		cmd.Env = append(os.Environ(), "DELTALITE_TEST_MAIN_ARGS="+string(list), EnvStateDir+"="+stateDir)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("deltalite %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	cols := `delta/columns=["id","_change_type","_commit_version"]`
	read := func() (string, string) {
		return proc("asset", "read", "--handler", h, "--asset", "clicks", "--consumer", "seen", "--metadata", cols, "--format", "csv")
	}
	store := func(version string, rows string) {
		proc("asset", "write", "--handler", h, "--asset", "seen", "--metadata", "delta/mode=append", "--read-version", "clicks="+version,
			"--input", write("seen.csv", rows))
	}
	proc("asset", "write", "--handler", h, "--asset", "clicks", "--metadata", `delta/table_configuration={"delta.enableChangeDataFeed": "true"}`,
		"--input", write("c1.csv", "id\n1\n"))
	rows, version := read()
	if rows != "id,_change_type,_commit_version\n1,insert,0\n" || version != `{"asset":"clicks","read_version":0}`+"\n" {
		t.Fatalf("first read: %q, %q", rows, version)
	}
	store("0", rows)
	proc("asset", "write", "--handler", h, "--asset", "clicks", "--metadata", "delta/mode=append", "--input", write("c2.csv", "id\n2\n"))
	for range 2 { // the first read's run fails: nothing is stored
		rows, version = read()
		if rows != "id,_change_type,_commit_version\n2,insert,1\n" || version != `{"asset":"clicks","read_version":1}`+"\n" {
			t.Fatalf("read after version 0: %q, %q", rows, version)
		}
	}
	store("1", rows)
	if rows, version = read(); rows != "id,_change_type,_commit_version\n" || version != `{"asset":"clicks","read_version":1}`+"\n" {
		t.Fatalf("read after version 1: %q, %q", rows, version)
	}
	b, err := os.ReadFile(filepath.Join(stateDir, "state.json"))
	if err != nil || !strings.Contains(string(b), `"upstream": {`) || !strings.Contains(string(b), `"clicks": 1`) {
		t.Fatalf("state: %s %v", b, err)
	}
}
