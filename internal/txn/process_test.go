package txn

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
)

// Environment of a re-executed test binary acting as one writer process.
const (
	envChild   = "DELTALITE_TXN_CHILD" // writer id
	envTable   = "DELTALITE_TXN_TABLE" // table directory
	envStart   = "DELTALITE_TXN_START" // unix nanoseconds to start at
	envCommits = "DELTALITE_TXN_COMMITS"
)

func TestMain(m *testing.M) {
	if id := os.Getenv(envChild); id != "" {
		os.Exit(runWriterProcess(id))
	}
	os.Exit(m.Run())
}

func childPath(id string, i int) string { return fmt.Sprintf("proc%s-%03d.parquet", id, i) }

// runWriterProcess commits blind appends one after another and prints
// "committed <path> <version> <attempts>" for each.
func runWriterProcess(id string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n, _ := strconv.Atoi(os.Getenv(envCommits))
	start, _ := strconv.ParseInt(os.Getenv(envStart), 10, 64)
	st, err := storage.NewLocal(os.Getenv(envTable))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	time.Sleep(time.Until(time.Unix(0, start)))
	snap, err := snapshot.Load(ctx, st)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	for i := range n {
		a := addIn("")
		a.Path = childPath(id, i)
		tx := Begin(snap, Operation{Name: OpWrite, Parameters: map[string]any{"mode": "Append"}}, Options{MaxRetries: 1000})
		tx.Add(addAction(a))
		res, err := tx.Commit(ctx)
		if err != nil {
			fmt.Println("error", err)
			return 1
		}
		for _, w := range res.Warnings {
			fmt.Println("warning", w)
		}
		fmt.Println("committed", a.Path, res.Version, res.Attempts)
		snap = res.Snapshot
	}
	return 0
}

// TestProcessesAppend runs 4 OS processes that each commit 25 blind
// appends to one local table at once.
func TestProcessesAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("starts writer processes")
	}
	const procs, each = 4, 25
	dir := t.TempDir()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	create(t, st, tableSpec{})
	start := time.Now().Add(time.Second)
	outs := storetest.RunProcesses(t, procs, func(i int) []string {
		return []string{envChild + "=" + strconv.Itoa(i), envTable + "=" + dir,
			envStart + "=" + strconv.FormatInt(start.UnixNano(), 10), envCommits + "=" + strconv.Itoa(each)}
	})
	versionOf := map[int64]string{}
	retries := 0
	for i, out := range outs {
		got := 0
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var path string
			var v int64
			var attempts int
			if _, err := fmt.Sscanf(sc.Text(), "committed %s %d %d", &path, &v, &attempts); err != nil {
				t.Fatalf("writer process %d: %s", i, sc.Text())
			}
			if prev, dup := versionOf[v]; dup {
				t.Fatalf("version %d reported by two commits: %s and %s", v, prev, path)
			}
			versionOf[v] = path
			retries += attempts - 1
			got++
		}
		if got != each {
			t.Fatalf("writer process %d committed %d times, want %d\n%s", i, got, each, out)
		}
	}
	t.Logf("%d commits from %d processes, %d retries after lost races", procs*each, procs, retries)

	// Versions 0..100 are contiguous and each holds the add it reported.
	ctx := context.Background()
	objs, err := storage.Collect(ctx, st, protocol.LogDir, "")
	if err != nil {
		t.Fatal(err)
	}
	var commits []int64
	for _, o := range objs {
		if f := protocol.ParseLogFile(o.Key); f.Kind == protocol.CommitFile {
			commits = append(commits, f.Version)
		}
	}
	if len(commits) != procs*each+1 {
		t.Fatalf("%d commits in the log, want %d", len(commits), procs*each+1)
	}
	for i, v := range commits {
		if v != int64(i) {
			t.Fatalf("log versions not contiguous: %v", commits)
		}
	}
	for v := int64(1); v <= procs*each; v++ {
		var adds []string
		for _, a := range commitOf(t, st, v) {
			if a.Add != nil {
				adds = append(adds, a.Add.Path)
			}
		}
		if len(adds) != 1 || adds[0] != versionOf[v] {
			t.Fatalf("commit %d holds %v, its writer reported %q", v, adds, versionOf[v])
		}
	}
	s := load(t, st)
	files := paths(s.Files())
	if s.Version() != procs*each || len(files) != procs*each {
		t.Fatalf("table v%d with %d files", s.Version(), len(files))
	}
	for p := range procs {
		for i := range each {
			if n := files[childPath(strconv.Itoa(p), i)]; n != 1 {
				t.Fatalf("%s present %d times", childPath(strconv.Itoa(p), i), n)
			}
		}
	}
	// Version 100 is on the default checkpoint interval.
	if !exists(t, st, protocol.CheckpointKey(100)) || lastCheckpoint(t, st).Version != 100 {
		t.Fatal("no checkpoint at version 100")
	}
}
