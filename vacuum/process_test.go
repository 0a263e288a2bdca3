package vacuum_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// With DELTALITE_TEST_VACUUM set, the test binary is a vacuum process
// (deleting one file per call, slowly) for the crash test to kill.
func TestMain(m *testing.M) {
	if dir := os.Getenv("DELTALITE_TEST_VACUUM"); dir != "" {
		if err := slowVacuum(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// slowStore deletes slowly, so that a kill lands between deletes.
type slowStore struct{ storage.Store }

func (s slowStore) Delete(ctx context.Context, keys ...string) error {
	time.Sleep(30 * time.Millisecond)
	return s.Store.Delete(ctx, keys...)
}

func slowVacuum(dir string) error {
	st, err := storage.NewLocal(dir)
	if err != nil {
		return err
	}
	tb, err := deltalite.Open(ctx, dir, deltalite.WithStore(slowStore{st}))
	if err != nil {
		return err
	}
	_, err = tb.Vacuum(ctx, deltalite.VacuumOptions{DeleteBatchSize: 1, MaxParallelDeletes: 1})
	return err
}

// TestKilledVacuumLeavesRetainedVersionsReadable kills a vacuum midway
// through its deletes: every version within the retention still reads
// its rows, and a second vacuum finishes the job.
func TestKilledVacuumLeavesRetainedVersionsReadable(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process: not in -short mode")
	}
	dir := t.TempDir()
	st := localStore(t, dir)
	now := time.Now()
	gen := func(prefix string, base int64) {
		var ids []int64
		var days []string
		for i := range 30 {
			ids = append(ids, base+int64(i))
			days = append(days, fmt.Sprintf("%s%02d", prefix, i))
		}
		write(t, dir, ids, days, deltalite.WriteOptions{})
	}
	// v0 and v2 write 30 files each; v1 removes v0's 10 days ago (expired),
	// v3 half of v2's an hour ago (within the retention).
	gen("d", 0)
	removeAt(t, st, now.Add(-10*24*time.Hour), func(*protocol.Add) bool { return true })
	gen("e", 100)
	removeAt(t, st, now.Add(-time.Hour), func(a *protocol.Add) bool { return a.PartitionValues["day"] < "e15" })
	age(t, dir, now.Add(-20*24*time.Hour))
	for i := range 30 {
		put(t, dir, fmt.Sprintf("orphan-%02d.parquet", i), now.Add(-20*24*time.Hour))
	}
	tb := open(t, dir)
	plan, err := tb.Vacuum(ctx, deltalite.VacuumOptions{DryRun: true})
	if err != nil || len(plan.Files) != 60 {
		t.Fatalf("dry run: %d files, %v", len(plan.Files), err)
	}
	remaining := func() int {
		n := 0
		for _, k := range plan.Files {
			if _, err := os.Stat(filepath.Join(dir, k)); err == nil {
				n++
			}
		}
		return n
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DELTALITE_TEST_VACUUM="+dir)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for remaining() > 45 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	left := remaining()
	if left == 0 || left > 45 {
		t.Fatalf("killed with %d of 60 files left: not midway", left)
	}
	t.Logf("killed with %d of 60 files left", left)

	want := map[int64][]int64{1: nil, 2: seq(100, 130), 3: seq(115, 130), 4: seq(115, 130)}
	check := func() {
		t.Helper()
		for v, w := range want {
			if got, err := ids(t, dir, v); err != nil || !slices.Equal(got, w) {
				t.Errorf("version %d: %v, %v; want %v", v, got, err, w)
			}
		}
		if _, err := ids(t, dir, 0); !errors.Is(err, deltalite.ErrNotFound) {
			t.Errorf("version 0, whose first files are gone: %v", err)
		}
	}
	check()
	stats, err := open(t, dir).Vacuum(ctx, deltalite.VacuumOptions{})
	if err != nil || stats.FilesDeleted != left || remaining() != 0 {
		t.Fatalf("second vacuum: %+v, %v; %d left", stats, err, remaining())
	}
	want[5], want[6] = want[4], want[4]
	check()
}

func seq(from, to int64) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}
