package optimize_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// With DELTALITE_TEST_OPTIMIZE set, the test binary is a writer process
// instead: "optimize" compacts in bins of about four files with a commit
// per bin; "append N" appends ten one-row batches to partition wN.
func TestMain(m *testing.M) {
	if role := os.Getenv("DELTALITE_TEST_OPTIMIZE"); role != "" {
		if err := runRole(role, os.Getenv("DELTALITE_TEST_TABLE"), os.Getenv("DELTALITE_TEST_ARG")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runRole(role, dir, arg string) error {
	ctx := context.Background()
	tb, err := deltalite.Open(ctx, dir)
	if err != nil {
		return err
	}
	switch role {
	case "optimize":
		size, _ := strconv.ParseInt(arg, 10, 64)
		_, err = tb.Optimize(ctx, optimize.Options{TargetSize: size, MinCommitInterval: time.Nanosecond, MaxConcurrentTasks: 1})
		return err
	case "append":
		n, _ := strconv.Atoi(arg)
		for i := range 10 {
			if err := writeRows(dir, fmt.Sprintf(`[{"id":%d,"s":"w","p":"w%d","q":1}]`, n*1000+i, n), "p"); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown role %q", role)
}

func startRole(t *testing.T, role, dir, arg string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DELTALITE_TEST_OPTIMIZE="+role, "DELTALITE_TEST_TABLE="+dir, "DELTALITE_TEST_ARG="+arg)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestProcessAppendsDuringOptimize: two processes append while this one
// compacts; the compaction never conflicts with them, every appended row
// lands once and the compacted rows stay.
func TestProcessAppendsDuringOptimize(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := smallFiles(t, map[string]int{"a": 12, "b": 12})
	before := rows(t, dir)
	size := open(t, dir).Snapshot().Files()[0].Size
	cmds := []*exec.Cmd{startRole(t, "append", dir, "1"), startRole(t, "append", dir, "2")}
	s, err := open(t, dir).Optimize(context.Background(), optimize.Options{TargetSize: 4 * size, MinCommitInterval: time.Nanosecond, MaxConcurrentTasks: 1})
	if err != nil {
		t.Fatalf("optimize: %v", err)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("appender: %v", err)
		}
	}
	// File sizes differ a little (ids of one or two digits): a last bin
	// may hold one file, which stays.
	if s.FilesRemoved.TotalFiles+s.SkippedFiles != 24 || s.FilesRemoved.TotalFiles < 20 {
		t.Fatalf("optimize: %s", s)
	}
	want := slices.Clone(before)
	for n := 1; n <= 2; n++ {
		for i := range 10 {
			want = append(want, fmt.Sprintf(`id=%d, p="w%d", q=1, s="w"`, n*1000+i, n))
		}
	}
	slices.Sort(want)
	arrowrows.Diff(t, rows(t, dir), want)
	removedOnce(t, dir)
}

// TestKilledOptimizeLeavesReadableTable: an OPTIMIZE process killed with
// SIGKILL at a random moment, round after round, leaves a table that
// reads at every version with the rows it had; a last run completes it.
func TestKilledOptimizeLeavesReadableTable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := smallFiles(t, map[string]int{"a": 40, "b": 40})
	first := open(t, dir).Version()
	want := rows(t, dir)
	size := open(t, dir).Snapshot().Files()[0].Size
	arg := strconv.FormatInt(4*size, 10)
	for round := range 4 {
		c := startRole(t, "optimize", dir, arg)
		time.Sleep(time.Duration(50+rand.IntN(400)) * time.Millisecond)
		_ = c.Process.Signal(syscall.SIGKILL)
		_ = c.Wait()
		tb := open(t, dir)
		for v := first; v <= tb.Version(); v++ {
			got := readAt(t, dir, v)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d: version %d holds %d rows, want the %d rows written", round, v, len(got), len(want))
			}
		}
		t.Logf("round %d: killed at version %d", round, tb.Version())
	}
	if err := startRole(t, "optimize", dir, arg).Wait(); err != nil {
		t.Fatalf("optimize after the kills: %v", err)
	}
	arrowrows.Diff(t, rows(t, dir), want)
	removedOnce(t, dir)
	if n := len(open(t, dir).Snapshot().Files()); n > 22 {
		t.Fatalf("%d files after the compaction completed, want about 20", n)
	}
}

func readAt(t testing.TB, dir string, v int64) []string {
	t.Helper()
	return tablerows.Read(t, dir, deltalite.WithVersion(v))
}
