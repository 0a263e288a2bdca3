package upserttest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/upsert"
)

// writeTable writes rows as a new table in appends chunks (one file per
// partition and chunk).
func writeTable(t testing.TB, uri string, g *gen, rows [][]any, appends int) {
	t.Helper()
	for _, c := range splitRows(g, rows, appends) {
		rec := record(g.cols, allColumns(g.cols), c, plain, "", nil)
		rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		_, err = deltalite.Write(context.Background(), uri, rr, deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: g.sc.partNames()})
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// newFiles counts the data files under dir that are not in known.
func newFiles(dir string, known map[string]bool) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".parquet" && !known[p] {
			n++
		}
		return nil
	})
	return n
}

// TestCrashRedelivery: an upsert process killed with SIGKILL at random
// moments (random delays, or as soon as some of its new data files exist)
// leaves the table readable at its previous version with its previous
// content, or at the next version with the whole batch applied, never in
// between; delivering the same batch again with the same AppID and
// AppVersion then converges to exactly one applied commit.
func TestCrashRedelivery(t *testing.T) { crashRedelivery(t, false) }

// TestCrashRedeliveryDeletionVectors is TestCrashRedelivery with deletion
// vectors on: a kill while the upsert writes its deletion vector files, or
// after, leaves the old table or the new one.
func TestCrashRedeliveryDeletionVectors(t *testing.T) { crashRedelivery(t, true) }

func crashRedelivery(t *testing.T, dvs bool) {
	rounds, parts, perPart := 8, 12, 1500
	if testing.Short() {
		rounds, parts, perPart = 5, 6, 600
	}
	ctx := context.Background()
	dir := t.TempDir()
	uri := filepath.Join(dir, "table")
	sc := base("crash", column{name: "id", kind: kString})
	sc.partValues = days(parts)
	sc.initParts = parts
	sc.initRows = parts * perPart
	sc.batchRows = parts * 50
	g := newGen(&sc)
	writeTable(t, uri, g, g.initial(), 3)
	const appID = "crash-test"
	spec := procSpec{
		Table: uri, AppID: appID, Keys: sc.keyNames(),
		// One partition and one file at a time, every file rewritten: the
		// upsert takes long enough to be killed in any phase.
		PruneStrategy: upsert.PruneNone, MaxParallelPartitions: 1, MaxParallelFiles: 1, TargetFileSize: 256 << 10,
	}
	r := rand.New(rand.NewPCG(sc.seed, 1))
	before := g.m.lines()
	version := int64(2)
	if dvs {
		tb, err := deltalite.Open(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.SetProperties(ctx, map[string]string{protocol.PropEnableDeletionVectors: "true"}, deltalite.PropertiesOptions{}); err != nil {
			t.Fatal(err)
		}
		version++
	}
	var took time.Duration
	outcomes := map[string]int{}
	for round := range rounds {
		bt := g.next(stepAllPartitions)
		after := bt.lines
		path := filepath.Join(dir, fmt.Sprintf("batch%d.parquet", round))
		rec := record(g.cols, allColumns(g.cols), bt.upserts, plain, "", nil)
		writeParquet(t, path, rec)
		rec.Release()
		spec.Batches, spec.FirstVersion = []string{path}, int64(round+1)

		known := map[string]bool{}
		for _, f := range dataFiles(t, uri) {
			known[f] = true
		}
		cmd := upsertProcess(t, spec)
		var out bytes.Buffer
		cmd.Stdout = &out
		started := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		how := "finished"
		switch {
		case round == 0:
			// The first round runs to the end, to time an upsert.
			if err := cmd.Wait(); err != nil {
				t.Fatalf("upsert process: %v", err)
			}
			took = time.Since(started)
		case round%4 == 1:
			// Anywhere.
			delay := time.Duration(r.Int64N(int64(took)))
			time.Sleep(delay)
			how = fmt.Sprintf("killed after %v", delay.Round(time.Millisecond))
		case round%4 == 2:
			// Once the rewrite has written some of its files.
			want := 1 + r.IntN(parts)
			deadline := time.Now().Add(3 * took)
			for newFiles(uri, known) < want && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			how = fmt.Sprintf("killed at %d new files", want)
		case round%4 == 3:
			// Around the commit.
			delay := time.Duration(int64(took)*7/10 + r.Int64N(int64(took)*35/100))
			time.Sleep(delay)
			how = fmt.Sprintf("killed after %v (near the end)", delay.Round(time.Millisecond))
		default:
			// As soon as the commit exists, before the process reports it.
			commit := filepath.Join(uri, "_delta_log", fmt.Sprintf("%020d.json", version+1))
			deadline := time.Now().Add(3 * took)
			for time.Now().Before(deadline) {
				if _, err := os.Stat(commit); err == nil {
					break
				}
				time.Sleep(200 * time.Microsecond)
			}
			how = "killed once the commit existed"
		}
		if round > 0 {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			if err := cmd.Wait(); err == nil {
				how = "finished before the kill"
			}
		}

		tb, err := deltalite.Open(ctx, uri)
		if err != nil {
			t.Fatalf("round %d (%s): the table does not open: %v", round, how, err)
		}
		got, v := readLines(t, uri)
		state := ""
		switch v {
		case version:
			state = "previous version"
			sameLines(t, fmt.Sprintf("round %d (%s) at the previous version", round, how), got, before, "table", "before")
		case version + 1:
			state = "committed"
			sameLines(t, fmt.Sprintf("round %d (%s) at the new version", round, how), got, after, "table", "after")
		default:
			t.Fatalf("round %d (%s): table at version %d, want %d or %d", round, how, v, version, version+1)
		}
		outcomes[state]++
		written := newFiles(uri, known)

		// Redeliver: skipped when it had committed, applied once otherwise.
		src := readParquetTable(t, path)
		st, err := tb.UpsertTable(ctx, src, deltalite.UpsertOptions{
			PrimaryKeys: sc.keyNames(), AppID: appID, AppVersion: int64(round + 1),
		})
		src.Release()
		if err != nil {
			t.Fatalf("round %d: redelivery: %v", round, err)
		}
		if st.Skipped != (v == version+1) || st.Version != version+1 {
			t.Fatalf("round %d (%s, %s): redelivery %v", round, how, state, st)
		}
		got, v = readLines(t, uri)
		if v != version+1 {
			t.Fatalf("round %d: after redelivery at version %d, want %d", round, v, version+1)
		}
		if !sameLines(t, fmt.Sprintf("round %d after redelivery", round), got, after, "table", "after") {
			t.FailNow()
		}
		if av, _ := appVersion(t, uri, appID); av != int64(round+1) {
			t.Fatalf("round %d: app version %d", round, av)
		}
		t.Logf("round %d: %s: %s, %d files written; redelivery skipped=%t", round, how, state, written, st.Skipped)
		version++
		before = after
	}
	t.Logf("upsert time %v; outcomes %v", took.Round(time.Millisecond), outcomes)
	if mergeAvailable(t) {
		final := peers.ReadTable(t, peers.DeltaRS, uri, peers.ReadOptions{}).Lines(t)
		sameLines(t, "delta-rs reading the table after the crashes", final, before, "delta-rs", "model")
	}
}
