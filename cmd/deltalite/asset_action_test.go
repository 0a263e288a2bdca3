package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const regionsPD = `{"kind": "static", "keys": ["us", "eu"]}`

// actionFixture is a handler file over a directory holding the table
// "orders", partitioned by region, with two files in each of us and eu.
func actionFixture(t *testing.T) (handler, table string) {
	dir := t.TempDir()
	t.Setenv(EnvStateDir, filepath.Join(dir, "state"))
	table = filepath.Join(dir, "orders")
	for i, rows := range []string{"1,us\n2,eu\n", "3,us\n4,eu\n"} {
		csv := writeFile(t, "rows.csv", "id,region\n"+rows)
		args := []string{"write", table, "--input", csv, "--partition-by", "region"}
		if i > 0 {
			args = append(args, "--mode", "append")
		}
		mustRun(t, args...)
	}
	handler = writeFile(t, "h.json", `{"table_uri": "`+dir+`"}`)
	return handler, table
}

func TestCLIAssetAction(t *testing.T) {
	h, table := actionFixture(t)
	base := []string{"--handler", h, "--asset", "orders", "--partitions-def", regionsPD, "--metadata", "delta/partition_expr=region"}
	act := func(verb string, extra ...string) (string, error) {
		return run(t, append(append([]string{"asset", "action", verb}, base...), extra...)...)
	}
	out, err := act("optimize", "--partition-key", "us")
	if err != nil || out != `{"outcome":"unchanged","metadata":{"files_added":1,"files_removed":2}}`+"\n" {
		t.Fatalf("optimize us: %q %v", out, err)
	}
	_, err = act("optimize")
	if err == nil || !strings.Contains(err.Error(), "--whole-asset") {
		t.Fatalf("keyless optimize without --whole-asset: %v", err)
	}
	out, err = act("optimize", "--whole-asset", "--config", `{"target_size": 1048576}`)
	if err != nil || out != `{"outcome":"unchanged","metadata":{"files_added":1,"files_removed":2}}`+"\n" {
		t.Fatalf("optimize --whole-asset: %q %v", out, err)
	}
	_, err = act("vacuum", "--partition-key", "us")
	if err == nil || !strings.Contains(err.Error(), `action "vacuum" is whole-asset on "orders": run it without a partition key`) {
		t.Fatalf("vacuum with a key: %v", err)
	}
	out, err = act("vacuum", "--config", `{"retention_hours": 0, "enforce_retention_duration": false}`)
	if err != nil || out != `{"outcome":"unchanged","metadata":{"files_deleted":4}}`+"\n" {
		t.Fatalf("vacuum: %q %v", out, err)
	}
	out, err = act("delete", "--partition-key", "us")
	if err != nil || out != `{"outcome":"unmaterialized","metadata":{"rows_deleted":2}}`+"\n" {
		t.Fatalf("delete us: %q %v", out, err)
	}
	if got := mustRun(t, "scan", table, "--format", "csv"); strings.Contains(got, "us") || !strings.Contains(got, "4,eu") {
		t.Fatalf("rows after deleting us:\n%s", got)
	}
	// A table never written: optimize is unchanged and creates nothing.
	out, err = run(t, "asset", "action", "optimize", "--handler", h, "--asset", "ghost")
	if err != nil || out != `{"outcome":"unchanged","metadata":{}}`+"\n" {
		t.Fatalf("optimize of a missing table: %q %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(table), "ghost")); !os.IsNotExist(err) {
		t.Fatalf("optimize created the missing table: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compact"}, `unknown action "compact": choose one of delete, optimize, vacuum`},
		{[]string{"vacuum", "--config", `{"retention": 1}`}, `unknown config key "retention"`},
		{[]string{"vacuum", "--config", `{retention}`}, "--config is not JSON"},
		{[]string{"optimize", "--partition-key", "mars"}, `partition key "mars"`},
		// Deleting every partition's rows is an explicit choice too.
		{[]string{"delete"}, "--whole-asset"},
	} {
		if _, err := act(c.args[0], c.args[1:]...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%v: %v; want %q", c.args, err, c.want)
		}
	}
	// Nothing was ever materialized: no action, refused or not, wrote state
	// (the directory holds only the claims' lock files).
	if _, err := os.Stat(filepath.Join(os.Getenv(EnvStateDir), "state.json")); !os.IsNotExist(err) {
		t.Fatalf("the state file was created: %v", err)
	}
}

// The state the CLI keeps: delete clears what a materialization recorded.
func TestCLIAssetActionState(t *testing.T) {
	h, _ := actionFixture(t)
	stateFile := filepath.Join(os.Getenv(EnvStateDir), "state.json")
	if err := os.MkdirAll(filepath.Dir(stateFile), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := `{"records": [{"asset": "orders", "key": "eu", "version": 1, "materialized_at": "2026-01-01T00:00:00Z"},
		{"asset": "orders", "key": "us", "version": 1, "materialized_at": "2026-01-01T00:00:00Z"}]}`
	if err := os.WriteFile(stateFile, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "asset", "action", "delete", "--handler", h, "--asset", "orders", "--partitions-def", regionsPD,
		"--partition-key", "us", "--metadata", "delta/partition_expr=region")
	var got struct{ Records []struct{ Key string } }
	b, _ := os.ReadFile(stateFile)
	if err := json.Unmarshal(b, &got); err != nil || len(got.Records) != 1 || got.Records[0].Key != "eu" {
		t.Fatalf("state after deleting us: %s", b)
	}
}

// A refused action exits non-zero with the reason on standard error and
// nothing on standard output.
func TestCLIAssetActionExitStatus(t *testing.T) {
	if args := os.Getenv("DELTALITE_TEST_MAIN_ARGS"); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			t.Fatal(err)
		}
		os.Args = append([]string{"deltalite"}, list...)
		main()
		os.Exit(0)
	}
	h, _ := actionFixture(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIAssetActionExitStatus$")
	args, _ := json.Marshal([]string{"asset", "action", "optimize", "--handler", h, "--asset", "orders", "--partitions-def", regionsPD})
	cmd.Env = append(os.Environ(), "DELTALITE_TEST_MAIN_ARGS="+string(args))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
		t.Fatalf("exit: %v", err)
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "--whole-asset") {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}
