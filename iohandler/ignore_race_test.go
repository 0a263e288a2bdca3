package iohandler_test

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// With DELTALITE_TEST_IGNORER set, the test binary is one process of the
// keyed-ignore race instead: it waits until the start time (Unix
// nanoseconds) so that every racer writes at once, materializes key d1 of
// asset "ev" in mode ignore, and prints "wrote" or "skipped".
func TestMain(m *testing.M) {
	if n := os.Getenv("DELTALITE_TEST_IGNORER"); n != "" {
		if err := runIgnorer(n, os.Getenv("DELTALITE_TEST_ROOT"), os.Getenv("DELTALITE_TEST_START")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runIgnorer(n, root, start string) error {
	h, err := iohandler.New(iohandler.Config{TableURI: root, Mode: iohandler.ModeIgnore})
	if err != nil {
		return err
	}
	at, err := strconv.ParseInt(start, 10, 64)
	if err != nil {
		return err
	}
	time.Sleep(time.Until(time.Unix(0, at)))
	rec := dayRows(n+"1:w"+n+":d1", n+"2:w"+n+":d1")
	defer rec.Release()
	md, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "ev", Metadata: map[string]string{"delta/partition_expr": "day"},
		Partitions: days, PartitionKeys: []string{"d1"}}, rec)
	if err != nil {
		return err
	}
	switch {
	case md[iohandler.OutSkipped] == true && md[iohandler.OutNumRows] == int64(0):
		fmt.Println("skipped")
	case md[iohandler.OutSkipped] == false && md[iohandler.OutNumRows] == int64(2):
		fmt.Println("wrote")
	default:
		return fmt.Errorf("metadata %v", md)
	}
	return nil
}

// TestIgnoreRaceProcesses: four processes materialize the same empty
// partition of an existing table in mode ignore at once. Exactly one
// writes it (one commit, its two rows); the others report a skip.
func TestIgnoreRaceProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	root := t.TempDir()
	h := newHandler(t, iohandler.Config{TableURI: root, Mode: iohandler.ModeIgnore})
	uri := h.AssetTableURI("ev", nil)
	if _, err := keyed(t, h, nil, []string{"d3"}, "0:seed:d3"); err != nil { // version 0
		t.Fatal(err)
	}
	const racers = 4
	start := strconv.FormatInt(time.Now().Add(700*time.Millisecond).UnixNano(), 10)
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := range racers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "DELTALITE_TEST_IGNORER="+strconv.Itoa(i+1), "DELTALITE_TEST_ROOT="+root, "DELTALITE_TEST_START="+start)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	wrote := 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("racer %d: %v", i+1, err)
		}
		switch strings.TrimSpace(outs[i].String()) {
		case "wrote":
			wrote++
		case "skipped":
		default:
			t.Fatalf("racer %d printed %q", i+1, outs[i].String())
		}
	}
	if wrote != 1 {
		t.Errorf("%d of %d racers wrote the partition, want 1", wrote, racers)
	}
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Version() != 1 {
		t.Errorf("the table is at version %d, want 1 (the seed, then one write)", tb.Version())
	}
	var d1 []string
	for _, r := range tablerows.Read(t, uri) {
		if strings.HasPrefix(r, `day="d1"`) {
			d1 = append(d1, r[strings.Index(r, "name="):])
		}
	}
	if len(d1) != 2 || d1[0] != d1[1] {
		t.Errorf("partition d1 holds %q, want the two rows of one racer", d1)
	}
}
