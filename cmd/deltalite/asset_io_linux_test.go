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
	"github.com/deltalite-go/deltalite/iohandler"
)

// An exclusive action holding its claim on a partition makes an asset
// write of that partition, in another process sharing the state
// directory, wait: the write commits after the action's commit, and its
// record is the state the action leaves.
func TestCLIAssetWriteWaitsForAction(t *testing.T) {
	r, part, table, stateDir := twoProcessFixture(t)
	writeAsset(t, append(part, "--partition-key", "us", "--input", writeFile(t, "us.csv", "id,region\n1,us\n2,us\n"))...)

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
	repo, err := stateRepository(r.define(asset.WithActions(hold)))
	if err != nil {
		t.Fatal(err)
	}
	acted := make(chan error, 1)
	go func() { _, err := repo.RunAction(context.Background(), "hold", nil, asset.Keys("us")); acted <- err }()
	<-entered

	child := startMain(t, append([]string{"asset", "write", "--partition-key", "us",
		"--input", writeFile(t, "us2.csv", "id,region\n5,us\n")}, part...)...)
	child.waitClaimLock(t, stateDir, func() { close(gate); <-acted })
	close(gate)
	if err := <-acted; err != nil {
		t.Fatal(err)
	}
	out := child.wait(t)

	// Commits: 0 the first write, 1 the action's delete, 2 the waiting write.
	var md map[string]any
	if err := json.Unmarshal([]byte(out), &md); err != nil || md["delta/version"] != 2.0 || md["delta/num_rows"] != 1.0 {
		t.Fatalf("the write's output %q: %v", out, err)
	}
	if ops := operations(t, table); !slices.Equal(ops, []string{"WRITE", "DELETE", "WRITE"}) {
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

// Likewise an action in another process waits for a materialization
// stored through the runtime (Repository.Store, as asset write does) to
// end: its delete commits after the write and clears the write's record.
func TestCLIAssetActionWaitsForStore(t *testing.T) {
	r, part, table, stateDir := twoProcessFixture(t)
	writeAsset(t, append(part, "--partition-key", "eu", "--input", writeFile(t, "eu.csv", "id,region\n1,eu\n"))...)
	slow := &gatedHandler{Handler: r.h, entered: make(chan struct{}), gate: make(chan struct{})}
	repo, err := stateRepository(r.define(asset.WithHandler(slow)))
	if err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, writeFile(t, "us.csv", "id,region\n2,us\n3,us\n"))
	defer rows.Close()
	stored := make(chan error, 1)
	go func() { _, err := repo.Store(context.Background(), "orders", rows, asset.Keys("us")); stored <- err }()
	<-slow.entered

	child := startMain(t, append([]string{"asset", "action", "delete", "--partition-key", "us"}, part...)...)
	child.waitClaimLock(t, stateDir, func() { close(slow.gate); <-stored })
	close(slow.gate)
	if err := <-stored; err != nil {
		t.Fatal(err)
	}
	if out := child.wait(t); out != `{"outcome":"unmaterialized","metadata":{"rows_deleted":2}}`+"\n" {
		t.Fatalf("the action's output %q", out)
	}
	if ops := operations(t, table); !slices.Equal(ops, []string{"WRITE", "WRITE", "DELETE"}) {
		t.Fatalf("commits %v", ops)
	}
	st, err := state.OpenFile(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if recs, err := st.List(context.Background(), "orders"); err != nil || len(recs) != 1 || recs[0].Key != "eu" {
		t.Fatalf("state %+v %v", recs, err)
	}
}

// twoProcessFixture is the asset "orders" partitioned by region (us, eu)
// over fresh tables and state: the run this process makes of it, the
// flags a child process is given, its table and the state directory.
// Linux only: the test sees a child wait by its locks in /proc/locks.
func twoProcessFixture(t *testing.T) (r *assetRun, flags []string, table, stateDir string) {
	t.Helper()
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skipf("no /proc/locks to see a process wait for its claim: %v", err)
	}
	h, tables := assetDir(t, "")
	pd := `{"kind": "static", "keys": ["us", "eu"]}`
	af := assetFlags{handler: h, asset: "orders", pd: pd, meta: []string{"delta/partition_expr=region"}}
	r, err := af.resolve()
	if err != nil {
		t.Fatal(err)
	}
	flags = []string{"--handler", h, "--asset", af.asset, "--partitions-def", pd, "--metadata", af.meta[0]}
	return r, flags, filepath.Join(tables, "orders"), os.Getenv(EnvStateDir)
}

// gatedHandler stores through Handler once the test opens gate.
type gatedHandler struct {
	*iohandler.Handler
	entered, gate chan struct{}
}

func (g *gatedHandler) HandleOutput(ctx context.Context, oc iohandler.OutputContext, v any) (iohandler.Metadata, error) {
	close(g.entered)
	<-g.gate
	return g.Handler.HandleOutput(ctx, oc, v)
}

// readRows opens a CSV file as the rows asset write would store.
func readRows(t *testing.T, path string) *input {
	t.Helper()
	in, err := openInput(context.Background(), path, "csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// mainProcess is the CLI run in a child process (the test binary, whose
// TestCLIAssetActionExitStatus prologue runs main with the arguments).
type mainProcess struct {
	cmd            *exec.Cmd
	exited         chan error
	stdout, stderr strings.Builder
}

func startMain(t *testing.T, args ...string) *mainProcess {
	t.Helper()
	doc, _ := json.Marshal(args)
	p := &mainProcess{cmd: exec.Command(os.Args[0], "-test.run=^TestCLIAssetActionExitStatus$"), exited: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), "DELTALITE_TEST_MAIN_ARGS="+string(doc))
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	return p
}

// waitClaimLock returns once the process holds a claim lock under
// stateDir: it has begun its claim and, as the test holds a conflicting
// one, waits for the rest. When it ends first, or never gets there, the
// test fails, after unblock lets the test's own run finish.
func (p *mainProcess) waitClaimLock(t *testing.T, stateDir string, unblock func()) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !holdsClaimLock(stateDir, p.cmd.Process.Pid); {
		select {
		case err := <-p.exited:
			unblock()
			t.Fatalf("the child process ended while a conflicting claim was held: %v\n%s%s", err, p.stdout.String(), p.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = p.cmd.Process.Kill()
			unblock()
			t.Fatal("the child process never reached its claim")
		}
	}
}

// wait returns the process's standard output once it ends well.
func (p *mainProcess) wait(t *testing.T) string {
	t.Helper()
	if err := <-p.exited; err != nil {
		t.Fatalf("child process: %v\n%s", err, p.stderr.String())
	}
	return p.stdout.String()
}

// operations are the table's commits' operations, oldest first.
func operations(t *testing.T, table string) []string {
	t.Helper()
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
	return ops
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
