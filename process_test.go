package deltalite_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
)

// The tests below re-execute this test binary as writer processes: with
// DELTALITE_TEST_WRITER set, TestMain runs the writer instead of the tests.
func TestMain(m *testing.M) {
	if role := os.Getenv("DELTALITE_TEST_WRITER"); role != "" {
		if err := runWriter(role, os.Getenv("DELTALITE_TEST_TABLE"), os.Getenv("DELTALITE_TEST_ARG")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runWriter is one writer process. "append": 10 appends of one row each to
// partition p<arg>, ids arg*1000+i. "overwrite": 10 overwrites of partition
// p<arg> by replace-where, each leaving one row; conflicts are reported on
// stdout. "loop": appends of 3 rows until killed.
func runWriter(role, uri, arg string) error {
	ctx := context.Background()
	n, _ := strconv.Atoi(arg)
	day := fmt.Sprintf("p%d", n)
	switch role {
	case "append":
		for i := range 10 {
			id := int64(n*1000 + i)
			if _, err := deltalite.Write(ctx, uri, people(nil, []int64{id}, []string{"w"}, []string{day}),
				deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
				return fmt.Errorf("append %d: %w", id, err)
			}
		}
	case "overwrite":
		for i := range 10 {
			id := int64(n*1000 + i)
			_, err := deltalite.Write(ctx, uri, people(nil, []int64{id}, []string{"o"}, []string{day}),
				deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = '" + day + "'"})
			switch {
			case errors.Is(err, deltalite.ErrCommitConflict):
				fmt.Println("conflict")
			case err != nil:
				return fmt.Errorf("overwrite %d: %w", id, err)
			default:
				fmt.Println("committed", id)
			}
		}
	case "loop":
		for i := 0; ; i++ {
			ids := []int64{int64(i * 3), int64(i*3 + 1), int64(i*3 + 2)}
			if _, err := deltalite.Write(ctx, uri, people(nil, ids, []string{"a", "b", "c"}, []string{"d", "d", "d"}),
				deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
				return err
			}
		}
	case "identity":
		return identityWriter(ctx, uri, n)
	case "dvdelete", "dvupdate", "dvloop":
		tb, err := deltalite.Open(ctx, uri)
		if err != nil {
			return err
		}
		switch role {
		case "dvdelete":
			_, err = tb.Delete(ctx, deltalite.DeleteOptions{Predicate: "id = " + arg})
		case "dvupdate":
			_, err = tb.Update(ctx, deltalite.UpdateOptions{Predicate: "id = " + arg, Set: map[string]string{"name": "'U'"}})
		default:
			for i := n; err == nil; i++ {
				_, err = tb.Delete(ctx, deltalite.DeleteOptions{Predicate: fmt.Sprintf("id = %d", i)})
			}
		}
		return err
	default:
		return fmt.Errorf("unknown writer role %q", role)
	}
	return nil
}

func startWriter(t *testing.T, role, uri string, arg int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DELTALITE_TEST_WRITER="+role, "DELTALITE_TEST_TABLE="+uri, "DELTALITE_TEST_ARG="+strconv.Itoa(arg))
	cmd.Stderr = os.Stderr
	return cmd
}

func seedTable(t *testing.T) string {
	t.Helper()
	uri := t.TempDir()
	mustWrite(t, uri, people(t, []int64{-1}, []string{"seed"}, []string{"seed"}), deltalite.WriteOptions{PartitionBy: []string{"day"}})
	return uri
}

// TestConcurrentProcessAppends: four processes append at once; every row
// lands exactly once and the versions are contiguous.
func TestConcurrentProcessAppends(t *testing.T) {
	uri := seedTable(t)
	var cmds []*exec.Cmd
	for i := range 4 {
		c := startWriter(t, "append", uri, i)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	tb, err := deltalite.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Version() != 40 {
		t.Fatalf("version %d, want 40", tb.Version())
	}
	h, err := tb.History(context.Background(), 0)
	if err != nil || len(h) != 41 {
		t.Fatalf("history: %d commits, %v", len(h), err)
	}
	rows := readRows(t, uri)
	if len(rows) != 41 {
		t.Fatalf("%d rows, want 41", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r] {
			t.Fatalf("row twice: %s", r)
		}
		seen[r] = true
	}
	for p := range 4 {
		for i := range 10 {
			if r := row(int64(p*1000+i), "w", fmt.Sprintf("p%d", p)); !seen[r] {
				t.Errorf("missing %s", r)
			}
		}
	}
}

// TestConcurrentPartitionOverwrites: processes overwriting disjoint
// partitions never conflict; two overwriting the same partition either
// commit or fail with ErrCommitConflict, and the partition ends with the
// last committed content.
func TestConcurrentPartitionOverwrites(t *testing.T) {
	uri := seedTable(t)
	args := []int{1, 2, 3, 3} // two writers share partition p3
	type proc struct {
		cmd *exec.Cmd
		out strings.Builder
	}
	var ps []*proc
	for _, a := range args {
		p := &proc{cmd: startWriter(t, "overwrite", uri, a)}
		p.cmd.Stdout = &p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	for _, p := range ps {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	committed := 0
	for i, p := range ps {
		conflicts := strings.Count(p.out.String(), "conflict")
		if args[i] != 3 && conflicts > 0 {
			t.Errorf("writer of its own partition p%d hit %d conflicts", args[i], conflicts)
		}
		committed += strings.Count(p.out.String(), "committed")
	}
	tb, err := deltalite.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Version() != int64(committed) {
		t.Fatalf("version %d, but %d commits reported", tb.Version(), committed)
	}
	rows := readRows(t, uri)
	// seed + one row per partition p1, p2, p3
	if len(rows) != 4 {
		t.Fatalf("rows %v", rows)
	}
	want := map[string]string{"p1": row(1009, "o", "p1"), "p2": row(2009, "o", "p2")}
	for _, r := range rows {
		for _, w := range want {
			if r == w {
				delete(want, strings.Split(strings.Split(r, `day="`)[1], `"`)[0])
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("last overwrites missing: %v in %v", want, rows)
	}
}

// TestKilledWriterLeavesReadableTable: a writer killed with SIGKILL at a
// random moment leaves a table that reads at its last committed version
// with exactly the rows of the committed appends.
func TestKilledWriterLeavesReadableTable(t *testing.T) {
	uri := seedTable(t)
	for round := range 4 {
		c := startWriter(t, "loop", uri, 0)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(200+rand.IntN(600)) * time.Millisecond)
		_ = c.Process.Signal(syscall.SIGKILL)
		_ = c.Wait()
		tb, err := deltalite.Open(context.Background(), uri)
		if err != nil {
			t.Fatalf("round %d: table does not open after a kill: %v", round, err)
		}
		rows := readRows(t, uri)
		if want := 1 + 3*int(tb.Version()); len(rows) != want {
			t.Fatalf("round %d: version %d holds %d rows, want %d", round, tb.Version(), len(rows), want)
		}
		// No commit file is torn or left as a temporary under its name.
		for v := int64(0); v <= tb.Version(); v++ {
			if _, err := tb.Store().Head(context.Background(), protocol.CommitKey(v)); err != nil {
				t.Fatalf("round %d: commit %d: %v", round, v, err)
			}
		}
	}
}

// dvTable is a table of one file of rows 0..n-1 named "r" with deletion
// vectors on.
func dvTable(t *testing.T, n int) string {
	t.Helper()
	uri := t.TempDir()
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	mustWrite(t, uri, people(t, ids, slices.Repeat([]string{"r"}, n), slices.Repeat([]string{"d"}, n)),
		deltalite.WriteOptions{Properties: map[string]string{protocol.PropEnableDeletionVectors: "true"}})
	return uri
}

// TestProcessesRaceOnOneDeletionVector: in 50 races a process deleting a
// row and one updating another row of the same file both land: no deleted
// row comes back, no update is lost (the later commit conflicts on the
// file it re-adds and plans again).
func TestProcessesRaceOnOneDeletionVector(t *testing.T) {
	rounds := 50
	if testing.Short() {
		rounds = 5
	}
	for round := range rounds {
		uri := dvTable(t, 4)
		del, upd := startWriter(t, "dvdelete", uri, 1), startWriter(t, "dvupdate", uri, 2)
		for _, c := range []*exec.Cmd{del, upd} {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []*exec.Cmd{del, upd} {
			if err := c.Wait(); err != nil {
				t.Fatalf("round %d: writer: %v", round, err)
			}
		}
		want := []string{row(0, "r", "d"), row(2, "U", "d"), row(3, "r", "d")}
		if got := readRows(t, uri); !slices.Equal(got, want) {
			t.Fatalf("round %d: rows %v, want %v", round, got, want)
		}
	}
}

// TestKilledDeletionVectorWriterLeavesReadableTable: a process deleting
// one row per commit through deletion vectors, killed at a random moment,
// leaves a table that holds exactly the rows its committed deletes left.
func TestKilledDeletionVectorWriterLeavesReadableTable(t *testing.T) {
	uri := dvTable(t, 2000)
	for round := range 3 {
		tb, err := deltalite.Open(context.Background(), uri)
		if err != nil {
			t.Fatal(err)
		}
		c := startWriter(t, "dvloop", uri, int(tb.Version()))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(300+rand.IntN(600)) * time.Millisecond)
		_ = c.Process.Signal(syscall.SIGKILL)
		_ = c.Wait()
		if tb, err = deltalite.Open(context.Background(), uri); err != nil {
			t.Fatalf("round %d: table does not open after a kill: %v", round, err)
		}
		rows := readRows(t, uri)
		if want := 2000 - int(tb.Version()); len(rows) != want {
			t.Fatalf("round %d: version %d holds %d rows, want %d", round, tb.Version(), len(rows), want)
		}
		if !slices.Contains(rows, row(tb.Version(), "r", "d")) || slices.Contains(rows, row(tb.Version()-1, "r", "d")) {
			t.Fatalf("round %d: version %d: the committed deletes are not exactly ids below %d", round, tb.Version(), tb.Version())
		}
	}
}
