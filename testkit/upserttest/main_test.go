package upserttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite"
)

// The crash and concurrency tests re-execute this test binary as upsert
// processes: with roleEnv set, TestMain runs the process's role instead of
// the tests.
const (
	roleEnv = "DELTALITE_UPSERTTEST_ROLE"
	specEnv = "DELTALITE_UPSERTTEST_SPEC"
)

func TestMain(m *testing.M) {
	switch role := os.Getenv(roleEnv); role {
	case "":
		os.Exit(m.Run())
	case "upserts":
		if err := runUpserts(os.Getenv(specEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "unknown role %q\n", role)
		os.Exit(2)
	}
}

// procSpec is what an upsert process does: upsert each batch file in turn
// into the table, as AppID at versions FirstVersion, FirstVersion+1, ...,
// with CommitMetadata {"writer": AppID, "seq": i}; it waits for StartAt
// (Unix nanoseconds) before the first, and for StartAt + i×Interval before
// batch i, so that processes start their i-th batches together.
type procSpec struct {
	Table        string   `json:"table"`
	Batches      []string `json:"batches"`
	AppID        string   `json:"app_id"`
	FirstVersion int64    `json:"first_version"`
	StartAt      int64    `json:"start_at"`
	Interval     int64    `json:"interval"` // nanoseconds
	// Engine knobs.
	Keys                  []string `json:"keys"`
	DeleteColumn          string   `json:"delete_column"`
	PruneStrategy         string   `json:"prune_strategy"`
	MaxParallelPartitions int      `json:"max_parallel_partitions"`
	MaxParallelFiles      int      `json:"max_parallel_files"`
	TargetFileSize        int64    `json:"target_file_size"`
	CommitMaxRetries      int      `json:"commit_max_retries"`
}

// procResult is one line of an upsert process's output.
type procResult struct {
	Seq   int                   `json:"seq"`
	Stats deltalite.UpsertStats `json:"stats"`
	// Before is the table version just before the upsert started: a commit
	// above Before+1 means other writers committed while it ran.
	Before int64  `json:"before"`
	Error  string `json:"error,omitempty"`
	// Conflict reports an error matching ErrCommitConflict.
	Conflict bool `json:"conflict,omitempty"`
}

// runUpserts is the "upserts" role.
func runUpserts(specJSON string) error {
	var spec procSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	ctx := context.Background()
	tb, err := deltalite.Open(ctx, spec.Table)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	for i, path := range spec.Batches {
		if d := time.Until(time.Unix(0, spec.StartAt+int64(i)*spec.Interval)); spec.StartAt > 0 && d > 0 {
			time.Sleep(d)
		}
		src, err := readParquet(path)
		if err != nil {
			return err
		}
		opts := deltalite.UpsertOptions{
			PrimaryKeys: spec.Keys, DeleteColumn: spec.DeleteColumn, PruneStrategy: spec.PruneStrategy,
			MaxParallelPartitions: spec.MaxParallelPartitions, MaxParallelFiles: spec.MaxParallelFiles,
			TargetFileSize: spec.TargetFileSize, CommitMaxRetries: spec.CommitMaxRetries,
			CommitMetadata: map[string]any{"writer": spec.AppID, "seq": i},
		}
		if spec.AppID != "" {
			opts.AppID, opts.AppVersion = spec.AppID, spec.FirstVersion+int64(i)
		}
		if err := tb.Reload(ctx); err != nil {
			return err
		}
		before := tb.Version()
		st, err := tb.UpsertTable(ctx, src, opts)
		src.Release()
		res := procResult{Seq: i, Stats: st, Before: before}
		if err != nil {
			res.Error = err.Error()
			res.Conflict = errors.Is(err, deltalite.ErrCommitConflict)
		}
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	return nil
}

// upsertProcess returns a command running spec in a child process.
func upsertProcess(t *testing.T, spec procSpec) *exec.Cmd {
	t.Helper()
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"=upserts", specEnv+"="+string(b))
	cmd.Stderr = os.Stderr
	return cmd
}

// parseResults reads the output lines of an upsert process.
func parseResults(t *testing.T, out []byte) []procResult {
	t.Helper()
	var rs []procResult
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var r procResult
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("process output %q: %v", out, err)
		}
		rs = append(rs, r)
	}
	return rs
}

// readParquet reads a Parquet file as an Arrow table.
func readParquet(path string) (arrow.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), f, parquet.NewReaderProperties(memory.DefaultAllocator),
		pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tbl, nil
}

func readParquetTable(t testing.TB, path string) arrow.Table {
	t.Helper()
	tbl, err := readParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
