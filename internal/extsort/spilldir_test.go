package extsort

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// With DELTALITE_TEST_EXTSORT_SPILL set to a directory, the test binary is
// a process that starts a sort spilling there, prints "spilled" once a run
// is on disk and then waits to be killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("DELTALITE_TEST_EXTSORT_SPILL"); dir != "" {
		if err := spillAndWait(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func spillAndWait(dir string) error {
	s, err := New(context.Background(), testSchema, Options{MaxBytes: 256 << 10, TempDir: dir})
	if err != nil {
		return err
	}
	for from := int64(0); s.Stats().Runs == 0; from += 1000 {
		rec, keys := batchOf(memory.DefaultAllocator, from, 1000)
		err := s.Add(rec, keys)
		rec.Release()
		if err != nil {
			return err
		}
		if from > 1_000_000 {
			return fmt.Errorf("nothing spilled")
		}
	}
	if err := s.waitSpill(); err != nil {
		return err
	}
	fmt.Println("spilled")
	time.Sleep(time.Hour)
	return nil
}

// startSpiller starts a process that spills a sort into dir and returns
// once its first run is written.
func startSpiller(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DELTALITE_TEST_EXTSORT_SPILL="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "spilled" {
		t.Fatalf("spilling process said %q, %v", line, err)
	}
	return cmd
}

// entries are the names in dir and, one level down, in its folders.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(dir, p); rel != "." {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSpillOfKilledProcessRemoved: a process SIGKILLed in the middle of a
// spilling sort leaves its runs; the next sort in that temporary
// directory removes them, and leaves alone the runs of a sort whose
// process is alive.
func TestSpillOfKilledProcessRemoved(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	killed := startSpiller(t, dir)
	_ = killed.Process.Signal(syscall.SIGKILL)
	_ = killed.Wait()
	dead := entries(t, dir)
	if len(dead) == 0 {
		t.Fatal("the killed sort left nothing: the test does not test removal")
	}
	if want := fmt.Sprintf("deltalite-sort-%d-", killed.Process.Pid); !strings.HasPrefix(dead[0], want) {
		t.Errorf("the killed sort spilled into %v: want a directory named %s<random>", dead, want)
	}

	startSpiller(t, dir)
	live := slices.DeleteFunc(entries(t, dir), func(e string) bool { return slices.Contains(dead, e) })
	if len(live) == 0 {
		t.Fatal("the live sort spilled nothing")
	}

	run(t, Options{MaxBytes: 256 << 10, TempDir: dir}, 20_000, 1000)
	after := entries(t, dir)
	for _, e := range dead {
		if slices.Contains(after, e) {
			t.Errorf("%s of the killed sort is still there after the next sort", e)
		}
	}
	for _, e := range live {
		if !slices.Contains(after, e) {
			t.Errorf("%s of the live sort was removed", e)
		}
	}
}

// TestSpillDirWithoutLock: a spill directory without its lock file (a
// process killed between making the two) goes once lockGrace has passed,
// not before; other names in the temporary directory stay.
func TestSpillDirWithoutLock(t *testing.T) {
	dir := t.TempDir()
	old, fresh, other := filepath.Join(dir, "deltalite-sort-1-old"), filepath.Join(dir, "deltalite-sort-1-fresh"), filepath.Join(dir, "deltalite-other")
	for _, d := range []string{old, fresh, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	then := time.Now().Add(-lockGrace - time.Minute)
	for _, d := range []string{old, other} {
		if err := os.Chtimes(d, then, then); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(context.Background(), testSchema, Options{TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := entries(t, dir), []string{"deltalite-other", "deltalite-sort-1-fresh"}; !slices.Equal(got, want) {
		t.Errorf("after New: %v, want %v", got, want)
	}
}
