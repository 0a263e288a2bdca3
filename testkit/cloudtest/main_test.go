package cloudtest

import (
	"bufio"
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

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/testservers"
)

// A re-executed test binary with envRole set is one writer of a commit
// race instead of a test run.
const (
	envRole      = "DELTALITE_CLOUDTEST_ROLE" // append or overwrite
	envURI       = "DELTALITE_CLOUDTEST_URI"
	envOptions   = "DELTALITE_CLOUDTEST_OPTIONS" // storage options, JSON
	envWriter    = "DELTALITE_CLOUDTEST_WRITER"  // writer number
	envPartition = "DELTALITE_CLOUDTEST_PARTITION"
	envCount     = "DELTALITE_CLOUDTEST_COUNT" // writes to make
	envStart     = "DELTALITE_CLOUDTEST_START" // unix nanoseconds: when to begin
)

func TestMain(m *testing.M) {
	if role := os.Getenv(envRole); role != "" {
		if err := runWriter(role); err != nil {
			fmt.Println("fatal", strings.Join(strings.Fields(err.Error()), " "))
			os.Exit(3)
		}
		os.Exit(0)
	}
	code := m.Run()
	testservers.StopAll()
	if cliDir != "" {
		os.RemoveAll(cliDir) // a 100 MiB binary per run otherwise
	}
	os.Exit(code)
}

// runWriter is one writer process. It prints one line per write:
// "committed <id> <version>" or "conflict <id>" (an ErrCommitConflict).
//
// append: count appends of one row each (id writer*1000+i, day
// p<partition>); a conflict is retried with the same row, up to 10 times.
// overwrite: count replace-where overwrites of partition p<partition>, each
// leaving the single row (writer*1000+i, "w<writer>", p<partition>); a
// conflict is not retried.
func runWriter(role string) error {
	var opts map[string]string
	if err := json.Unmarshal([]byte(os.Getenv(envOptions)), &opts); err != nil {
		return fmt.Errorf("bad %s: %w", envOptions, err)
	}
	uri := os.Getenv(envURI)
	writer, _ := strconv.Atoi(os.Getenv(envWriter))
	count, _ := strconv.Atoi(os.Getenv(envCount))
	day := "p" + os.Getenv(envPartition)
	start, _ := strconv.ParseInt(os.Getenv(envStart), 10, 64)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	time.Sleep(time.Until(time.Unix(0, start)))
	for i := range count {
		id := int64(writer*1000 + i)
		p := person{id, fmt.Sprintf("w%d", writer), day}
		wo := deltalite.WriteOptions{Mode: deltalite.ModeAppend}
		tries := 10
		if role == "overwrite" {
			wo = deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = '" + day + "'"}
			tries = 1
		} else if role != "append" {
			return fmt.Errorf("unknown role %q", role)
		}
		for try := 1; ; try++ {
			src := people(p)
			wo.StorageOptions = opts
			res, err := deltalite.Write(ctx, uri, src, wo)
			src.Release()
			if errors.Is(err, deltalite.ErrCommitConflict) {
				fmt.Println("conflict", id)
				if try < tries {
					continue
				}
				break
			}
			if err != nil {
				return fmt.Errorf("write %d: %w", id, err)
			}
			fmt.Println("committed", id, res.Version)
			break
		}
	}
	return nil
}

// writerResult is what one writer process reported.
type writerResult struct {
	writer    int
	committed map[int64]int64 // id -> version
	conflicts int
	lines     []string
}

// raceWriters runs one writer process per entry of partitions (writer i
// writes partition partitions[i]), all starting at the same instant, and
// returns their reports. Any failure of a writer fails the test.
func raceWriters(t *testing.T, role, uri string, opts map[string]string, partitions []int, count int) []writerResult {
	t.Helper()
	optJSON, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	// Starting a process costs tens of milliseconds: begin together.
	start := time.Now().Add(time.Duration(300+100*len(partitions)) * time.Millisecond)
	type proc struct {
		cmd *exec.Cmd
		out strings.Builder
		err strings.Builder
	}
	procs := make([]*proc, len(partitions))
	for i, part := range partitions {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^$")}
		p.cmd.Env = append(os.Environ(),
			envRole+"="+role, envURI+"="+uri, envOptions+"="+string(optJSON),
			envWriter+"="+strconv.Itoa(i), envPartition+"="+strconv.Itoa(part),
			envCount+"="+strconv.Itoa(count), envStart+"="+strconv.FormatInt(start.UnixNano(), 10))
		p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[i] = p
	}
	out := make([]writerResult, len(procs))
	var failed []string
	for i, p := range procs {
		err := p.cmd.Wait()
		if err != nil {
			failed = append(failed, fmt.Sprintf("writer %d: %v\n%s%s", i, err, p.out.String(), p.err.String()))
		}
		r := writerResult{writer: i, committed: map[int64]int64{}}
		sc := bufio.NewScanner(strings.NewReader(p.out.String()))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			r.lines = append(r.lines, sc.Text())
			switch {
			case len(f) == 3 && f[0] == "committed":
				id, _ := strconv.ParseInt(f[1], 10, 64)
				v, _ := strconv.ParseInt(f[2], 10, 64)
				r.committed[id] = v
			case len(f) == 2 && f[0] == "conflict":
				r.conflicts++
			}
		}
		out[i] = r
	}
	if len(failed) > 0 {
		t.Fatalf("writer processes failed:\n%s", strings.Join(failed, "\n"))
	}
	return out
}
