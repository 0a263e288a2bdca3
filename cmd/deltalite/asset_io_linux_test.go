package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/asset"
	"github.com/deltalite-go/deltalite/asset/state"
)

// An exclusive action holding its claim on a partition makes an asset
// write of that partition, in another process sharing the state
// directory, wait: the write commits after the action's commit, and its
// record is the state the action leaves. Linux: the test sees the writer
// waiting by the claim lock it already holds in /proc/locks.
func TestCLIAssetWriteWaitsForAction(t *testing.T) {
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skipf("no /proc/locks to see the writer wait: %v", err)
	}
	h, tables := assetDir(t, "")
	stateDir := os.Getenv(EnvStateDir)
	pd := `{"kind": "static", "keys": ["us", "eu"]}`
	part := []string{"--handler", h, "--asset", "orders", "--partitions-def", pd, "--metadata", "delta/partition_expr=region"}
	writeAsset(t, append(part, "--partition-key", "us", "--input", writeFile(t, "us.csv", "id,region\n1,us\n2,us\n"))...)
	table := filepath.Join(tables, "orders")

	// The action clears the partition with a plain delete (which takes no
	// claim) once the test lets it, inside its exclusive claim.
	entered, gate := make(chan struct{}), make(chan struct{})
	hold := asset.Action{Name: "hold",
		Declaration: asset.Declaration{Outcome: asset.Unmaterialize, Concurrency: asset.Exclusive, Partitioning: asset.Required},
		Run: func(*asset.ActionContext) (asset.ActionResult, error) {
			close(entered)
			<-gate
			_, err := run(t, "delete", table, "--where", "region = 'us'")
			return asset.ActionResult{}, err
		}}
	r, err := (&assetFlags{handler: h, asset: "orders", pd: pd, meta: []string{"delta/partition_expr=region"}}).resolve()
	if err != nil {
		t.Fatal(err)
	}
	repo, err := stateRepository(r.define(asset.WithActions(hold)))
	if err != nil {
		t.Fatal(err)
	}
	acted := make(chan error, 1)
	go func() { _, err := repo.RunAction(context.Background(), "hold", nil, asset.Keys("us")); acted <- err }()
	<-entered

	args, _ := json.Marshal(append([]string{"asset", "write", "--partition-key", "us",
		"--input", writeFile(t, "us2.csv", "id,region\n5,us\n")}, part...))
	child := exec.Command(os.Args[0], "-test.run=^TestCLIAssetActionExitStatus$") // its prologue runs main with the args
	child.Env = append(os.Environ(), "DELTALITE_TEST_MAIN_ARGS="+string(args))
	var stdout, stderr strings.Builder
	child.Stdout, child.Stderr = &stdout, &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	stop := func(why string, args ...any) { // let the action end, then fail
		_ = child.Process.Kill()
		close(gate)
		<-acted
		t.Fatalf(why, args...)
	}
	for deadline := time.Now().Add(time.Minute); !holdsClaimLock(stateDir, child.Process.Pid); {
		select {
		case err := <-exited:
			stop("the write ended while the action held its claim: %v\n%s%s", err, stdout.String(), stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop("the write never reached its claim")
		}
	}
	close(gate)
	if err := <-acted; err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Fatalf("write: %v\n%s", err, stderr.String())
	}

	// Commits: 0 the first write, 1 the action's delete, 2 the waiting write.
	var md map[string]any
	if err := json.Unmarshal([]byte(stdout.String()), &md); err != nil || md["delta/version"] != 2.0 || md["delta/num_rows"] != 1.0 {
		t.Fatalf("the write's output %q: %v", stdout.String(), err)
	}
	var commits []struct {
		Version   int
		Operation string
	}
	if err := json.Unmarshal([]byte(mustRun(t, "history", table, "--json")), &commits); err != nil {
		t.Fatal(err)
	}
	ops := make([]string, len(commits))
	for _, c := range commits {
		if c.Version < len(ops) {
			ops[c.Version] = c.Operation
		}
	}
	if !slices.Equal(ops, []string{"WRITE", "DELETE", "WRITE"}) {
		t.Fatalf("commits %v", ops)
	}
	st, err := state.OpenFile(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if rec, ok, err := st.Get(context.Background(), "orders", "us"); err != nil || !ok || rec.Version != 2 {
		t.Fatalf("state of us: %+v %v %v", rec, ok, err)
	}
	if out := mustRun(t, append([]string{"asset", "read", "--partition-key", "us", "--format", "csv"}, part...)...); out != "id,region\n5,us\n" {
		t.Fatalf("us after both: %q", out)
	}
}

// holdsClaimLock reports whether process pid holds a lock on a claim lock
// file under stateDir, as /proc/locks lists them (device:inode).
func holdsClaimLock(stateDir string, pid int) bool {
	files, _ := os.ReadDir(filepath.Join(stateDir, state.ClaimsDir))
	var inodes []string
	for _, f := range files {
		if fi, err := f.Info(); err == nil {
			inodes = append(inodes, strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10))
		}
	}
	locks, _ := os.ReadFile("/proc/locks")
	for line := range strings.Lines(string(locks)) {
		// "1: FLOCK  ADVISORY  READ 1234 fe:00:56789 0 EOF"
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || f[4] != strconv.Itoa(pid) {
			continue
		}
		if slices.Contains(inodes, f[5][strings.LastIndexByte(f[5], ':')+1:]) {
			return true
		}
	}
	return false
}
