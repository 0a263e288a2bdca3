package storetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/storage"
)

// Environment of a re-executed test binary acting as one racing writer.
const (
	envChild   = "DELTALITE_STORETEST_CHILD" // writer id
	envURI     = "DELTALITE_STORETEST_URI"
	envOptions = "DELTALITE_STORETEST_OPTIONS" // JSON object
	envRounds  = "DELTALITE_STORETEST_ROUNDS"
	envStart   = "DELTALITE_STORETEST_START" // unix nanoseconds of round 0
	envSlot    = "DELTALITE_STORETEST_SLOT"  // nanoseconds between rounds
)

// Main runs the tests, or, in a re-executed test binary, one writer of the
// process race. Call it from TestMain; after runs once the tests are done
// (to stop servers).
func Main(m *testing.M, after ...func()) {
	if os.Getenv(envChild) != "" {
		os.Exit(runChild())
	}
	code := m.Run()
	for _, f := range after {
		f()
	}
	os.Exit(code)
}

// IsChild reports whether this process is a racing writer, for a TestMain
// that must skip expensive set-up in that case.
func IsChild() bool { return os.Getenv(envChild) != "" }

func roundKey(round int) string { return fmt.Sprintf("_delta_log/%020d.json", round) }

func payload(writer string, round int) string {
	return fmt.Sprintf("process %s round %d", writer, round)
}

// runChild races PutIfAbsent once per round and prints one line per round:
// "round N won", "round N lost" or "round N error <text>".
func runChild() int {
	id := os.Getenv(envChild)
	var opts map[string]string
	if err := json.Unmarshal([]byte(os.Getenv(envOptions)), &opts); err != nil {
		fmt.Println("fatal bad options:", err)
		return 2
	}
	rounds, _ := strconv.Atoi(os.Getenv(envRounds))
	start, _ := strconv.ParseInt(os.Getenv(envStart), 10, 64)
	slot, _ := strconv.ParseInt(os.Getenv(envSlot), 10, 64)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := storage.Open(ctx, os.Getenv(envURI), opts)
	if err != nil {
		fmt.Println("fatal open:", err)
		return 2
	}
	for round := range rounds {
		time.Sleep(time.Until(time.Unix(0, start+int64(round)*slot)))
		err := s.PutIfAbsent(ctx, roundKey(round), []byte(payload(id, round)))
		switch {
		case err == nil:
			fmt.Printf("round %d won\n", round)
		case errors.Is(err, storage.ErrExist):
			fmt.Printf("round %d lost\n", round)
		default:
			fmt.Printf("round %d error %s\n", round, strings.ReplaceAll(err.Error(), "\n", " "))
		}
	}
	return 0
}

// RunProcesses re-executes the test binary as n processes that run no
// test (the package's TestMain sends them to their work, told by their
// environment), process i with env(i) added to the environment, all at
// once. It waits for every one and returns each one's output (stdout and
// stderr); a process that fails fails t with its output.
func RunProcesses(t *testing.T, n int, env func(i int) []string) []string {
	t.Helper()
	var cmds []*exec.Cmd
	outs := make([]bytes.Buffer, n)
	var failed error
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), env(i)...)
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if failed = cmd.Start(); failed != nil {
			break
		}
		cmds = append(cmds, cmd)
	}
	// Every started process is waited for, even after a failure: none
	// outlives the test.
	waitErrs := make([]error, len(cmds))
	for i, cmd := range cmds {
		if failed != nil {
			_ = cmd.Process.Kill()
		}
		waitErrs[i] = cmd.Wait()
	}
	if failed != nil {
		t.Fatalf("starting process %d of %d: %v", len(cmds), n, failed)
	}
	out := make([]string, n)
	for i := range cmds {
		if waitErrs[i] != nil {
			t.Fatalf("process %d: %v\n%s", i, waitErrs[i], outs[i].String())
		}
		out[i] = outs[i].String()
	}
	return out
}

// testRaceProcesses starts several copies of the test binary that race to
// create the same keys; exactly one must win each round.
func testRaceProcesses(t *testing.T, s storage.Store, uri string, opts map[string]string) {
	const procs, rounds = 4, 10
	const slot = 60 * time.Millisecond
	optJSON, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(1500 * time.Millisecond) // time for every process to start
	outs := RunProcesses(t, procs, func(i int) []string {
		return []string{
			envChild + "=" + strconv.Itoa(i),
			envURI + "=" + uri,
			envOptions + "=" + string(optJSON),
			envRounds + "=" + strconv.Itoa(rounds),
			envStart + "=" + strconv.FormatInt(start.UnixNano(), 10),
			envSlot + "=" + strconv.FormatInt(int64(slot), 10),
		}
	})
	winners := make([][]int, rounds)
	for i, out := range outs {
		seen := 0
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var round int
			var verdict string
			if _, err := fmt.Sscanf(sc.Text(), "round %d %s", &round, &verdict); err != nil || round < 0 || round >= rounds {
				continue
			}
			seen++
			switch verdict {
			case "won":
				winners[round] = append(winners[round], i)
			case "lost":
			default:
				t.Fatalf("writer process %d: %s", i, sc.Text())
			}
		}
		if seen != rounds {
			t.Fatalf("writer process %d reported %d of %d rounds; does the test package's TestMain call storetest.Main?\n%s", i, seen, rounds, out)
		}
	}
	for round, w := range winners {
		if len(w) != 1 {
			t.Fatalf("round %d: %d processes won (%v); exactly one must", round, len(w), w)
		}
		got := string(mustGet(t, s, roundKey(round)))
		if want := payload(strconv.Itoa(w[0]), round); got != want {
			t.Fatalf("round %d: object holds %q, want the winner's %q", round, got, want)
		}
	}
}
