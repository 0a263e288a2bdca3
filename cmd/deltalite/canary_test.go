package main

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runShown runs the CLI in process as main does and returns all it showed:
// the command's output, anything written to the process's standard output
// or error directly (an SDK's log line), and the error line main prints.
func runShown(t *testing.T, args ...string) (string, error) {
	t.Helper()
	restore := []*os.File{os.Stdout, os.Stderr}
	var direct [2]chan string
	var pipes [2]*os.File
	for i := range direct {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pipes[i], direct[i] = w, make(chan string, 1)
		go func() { b, _ := io.ReadAll(r); direct[i] <- string(b) }()
	}
	os.Stdout, os.Stderr = pipes[0], pipes[1]
	shown, err := run(t, args...)
	os.Stdout, os.Stderr = restore[0], restore[1]
	for i := range pipes {
		pipes[i].Close()
		shown += <-direct[i]
	}
	if err != nil {
		shown += errorLine(err) + "\n"
	}
	return shown, err
}

func canaryValue(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// filesUnder maps every file under dir to its content.
func filesUnder(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// TestCLIMalformedKeyValue: a flag that is not KEY=VALUE is named by its
// position and, when there is one, its key, never its value.
func TestCLIMalformedKeyValue(t *testing.T) {
	table := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--storage-option", "AWS_SECRET_ACCESS_KEY:supersecret"}, "--storage-option #1 (AWS_SECRET_ACCESS_KEY) is not KEY=VALUE"},
		{[]string{"--storage-option", "AWS_REGION=us-east-1", "--storage-option", "AWS_SECRET_ACCESS_KEY supersecret"}, "--storage-option #2 (AWS_SECRET_ACCESS_KEY) is not KEY=VALUE"},
		// a credential pasted alone: no key to name, nothing of it shown
		{[]string{"--storage-option", "wJalrXUtnFEMI/supersecret+bPxRfiCY"}, "--storage-option #1 is not KEY=VALUE"},
		{[]string{"--storage-option", "=supersecret"}, "--storage-option #1 is not KEY=VALUE"},
	} {
		shown, err := runShown(t, append([]string{"history", table}, c.args...)...)
		if err == nil || !strings.Contains(shown, c.want) || strings.Contains(shown, "supersecret") {
			t.Errorf("deltalite history %v printed %q; want %q without the value", c.args, shown, c.want)
		}
	}
	schema := writeFile(t, "s.json", `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}`)
	shown, err := runShown(t, "create", filepath.Join(table, "t"), "--schema", schema, "--property", "delta.appendOnly:supersecret")
	if err == nil || !strings.Contains(shown, "--property #1 (delta.appendOnly) is not KEY=VALUE") || strings.Contains(shown, "supersecret") {
		t.Errorf("create with a malformed --property printed %q", shown)
	}
}

// TestCLICanaryLocal runs every command on a local table with a canary
// secret in each place a credential could be given wrongly (a storage
// option a local table does not take, a malformed option, the user part of
// a table URL of every scheme): each run fails, nothing it prints and no
// file under the table shows the canary, and the failed runs change no file.
func TestCLICanaryLocal(t *testing.T) {
	canary := canaryValue("Canary")
	dir := t.TempDir()
	table := filepath.Join(dir, "t")
	schema := writeFile(t, "schema.json", `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"day","type":"string","nullable":true,"metadata":{}}]}`)
	csv := writeFile(t, "rows.csv", "id,day\n1,d1\n2,d2\n")
	changes := writeFile(t, "changes.csv", "id,day\n2,d2\n3,d3\n")
	// The arguments of each command after TABLE; demo takes a directory.
	commands := map[string][]string{
		"create":  {"--schema", schema, "--partition-by", "day"},
		"write":   {"--input", csv},
		"upsert":  {"--input", changes, "--pk", "id"},
		"scan":    {"--format", "csv"},
		"history": {"--json"},
		"inspect": {"--json"},
		"demo":    nil,
	}
	order := []string{"create", "write", "upsert", "scan", "history", "inspect"}
	// A command added later runs with TABLE alone.
	for _, c := range newRoot().Commands() {
		if _, ok := commands[c.Name()]; !ok && c.Name() != "help" && c.Name() != "completion" {
			commands[c.Name()] = nil
			order = append(order, c.Name())
		}
	}
	check := func(what, shown string) {
		t.Helper()
		if strings.Contains(shown, canary) {
			t.Errorf("%s showed the canary:\n%s", what, shown)
		}
	}
	for _, name := range order {
		shown, err := runShown(t, append([]string{name, table}, commands[name]...)...)
		if err != nil && name != "help" && commands[name] != nil {
			t.Fatalf("deltalite %s: %v\n%s", name, err, shown)
		}
		check("deltalite "+name, shown)
	}
	before := filesUnder(t, dir)

	badOptions := [][]string{
		{"--storage-option", "AWS_SECRET_ACCESS_KEY=" + canary},
		{"--storage-option", "AWS_SECRET_ACCESS_KEY:" + canary},
		{"--storage-option", "local_fsync=all", "--storage-option", canary},
	}
	badURLs := []string{
		"file://" + canary + "@localhost" + table,
		"file://user:" + canary + "@localhost" + table,
		"s3://" + canary + "@bucket/t",
		"s3://AKIAEXAMPLE:" + canary + "/x@bucket/t", // a secret holding '/' breaks the URL
		"gs://" + canary + "@bucket/t",
		"abfss://" + canary + "@account.dfs.core.windows.net/t",
		"az://container:" + canary + "@account.blob.core.windows.net/t",
		"s3://bucket/t?X-Amz-Signature=" + canary,
	}
	// A URL where a command was expected: cobra quotes it back.
	if shown, _ := runShown(t, badURLs[2], table); strings.Contains(shown, canary) {
		t.Errorf("an unknown command showed the canary:\n%s", shown)
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range commands {
			if !yield(n) {
				return
			}
		}
	}) {
		target := table
		if name == "demo" {
			target = filepath.Join(dir, "demo")
		}
		for _, opts := range badOptions {
			args := append(append([]string{name, target}, commands[name]...), opts...)
			shown, err := runShown(t, args...)
			if err == nil && name != "demo" { // demo builds its own local table
				t.Errorf("deltalite %s with %v succeeded", name, opts[len(opts)-1])
			}
			check("deltalite "+name+" with a bad storage option", shown)
		}
		if name == "demo" {
			continue
		}
		for _, u := range badURLs {
			shown, err := runShown(t, append([]string{name, u}, commands[name]...)...)
			if err == nil {
				t.Errorf("deltalite %s on a URL with a credential succeeded", name)
			}
			check("deltalite "+name+" on a URL with a credential", shown)
		}
	}
	after := filesUnder(t, dir)
	for p, content := range after {
		check(p, content)
		if strings.HasPrefix(p, table+string(filepath.Separator)) && before[p] != content {
			t.Errorf("a failed run changed %s", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("a failed run removed %s", p)
		}
	}
}
