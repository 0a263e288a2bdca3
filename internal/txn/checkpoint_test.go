package txn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/deltalite-go/deltalite/internal/checkpoint"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// appendN commits n blind appends one after another.
func appendN(t *testing.T, snap *snapshot.Snapshot, n int, opt Options) (*snapshot.Snapshot, []*Result) {
	t.Helper()
	var out []*Result
	for range n {
		tx := Begin(snap, Operation{Name: OpWrite}, opt)
		tx.Add(addAction(addIn("")))
		res, err := tx.Commit(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) > 0 {
			t.Fatalf("commit %d warnings: %v", res.Version, res.Warnings)
		}
		out = append(out, res)
		snap = res.Snapshot
	}
	return snap, out
}

func exists(t *testing.T, st storage.Store, key string) bool {
	t.Helper()
	_, err := st.Head(context.Background(), key)
	if err != nil && !errors.Is(err, storage.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

func lastCheckpoint(t *testing.T, st storage.Store) checkpoint.LastCheckpoint {
	t.Helper()
	data, err := storage.ReadAll(context.Background(), st, protocol.LastCheckpointKey)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := checkpoint.DecodeLastCheckpoint(data)
	if err != nil {
		t.Fatal(err)
	}
	return lc
}

func TestCheckpointAtInterval(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			snap := create(t, st, tableSpec{partitioned: true, props: map[string]string{
				protocol.PropCheckpointInterval: "5", protocol.PropWriteStatsAsStruct: "true"}})
			snap, results := appendN(t, snap, 11, Options{})
			for _, r := range results {
				if want := r.Version%5 == 0; r.CheckpointWritten != want {
					t.Fatalf("version %d: checkpoint written %v", r.Version, r.CheckpointWritten)
				}
			}
			for _, v := range []int64{5, 10} {
				if !exists(t, st, protocol.CheckpointKey(v)) {
					t.Fatalf("no checkpoint at %d", v)
				}
			}
			if exists(t, st, protocol.CheckpointKey(0)) || exists(t, st, protocol.CheckpointKey(11)) {
				t.Fatal("checkpoint off the interval")
			}
			if lc := lastCheckpoint(t, st); lc.Version != 10 || lc.Size != 2+10 || lc.NumOfAddFiles != 10 {
				t.Fatalf("_last_checkpoint %+v, want version 10 with 12 actions, 10 adds", lc)
			}
			// stats_parsed is written as the table asks.
			data, err := storage.ReadAll(ctx, st, protocol.CheckpointKey(10))
			if err != nil {
				t.Fatal(err)
			}
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var cols []string
			for i := range pf.MetaData().Schema.NumColumns() {
				cols = append(cols, pf.MetaData().Schema.Column(i).Path())
			}
			pf.Close()
			if !strings.Contains(strings.Join(cols, " "), "add.stats_parsed.minValues.id") {
				t.Fatalf("checkpoint columns lack add.stats_parsed: %v", cols)
			}

			// Loading starts from the checkpoint: the commits before it no
			// longer matter.
			for v := int64(0); v < 10; v++ {
				if err := st.Put(ctx, protocol.CommitKey(v), strings.NewReader("not json\n")); err != nil {
					t.Fatal(err)
				}
			}
			s := load(t, st)
			if s.Version() != 11 || s.NumFiles() != 11 {
				t.Fatalf("loaded v%d with %d files, want v11 with 11", s.Version(), s.NumFiles())
			}
			if got, want := paths(s.Files()), paths(snap.Files()); len(got) != len(want) {
				t.Fatalf("files %v, want %v", got, want)
			}
			if _, err := snapshot.LoadVersion(ctx, st, 7); err == nil {
				t.Fatal("version 7 loaded from corrupted commits: the test would not notice a replay")
			}
		})
	}
}

func TestCheckpointV2Table(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	p := &protocol.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"v2Checkpoint"}, WriterFeatures: []string{"v2Checkpoint"}}
	snap := create(t, st, tableSpec{proto: p, props: map[string]string{protocol.PropCheckpointInterval: "2"}})
	appendN(t, snap, 2, Options{})
	kinds := map[string]int{}
	f, err := st.Open(ctx, protocol.CheckpointKey(2))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = checkpoint.Decode(ctx, st.URL(), protocol.CheckpointKey(2), f, func(a protocol.Action) error {
		switch {
		case a.CheckpointMetadata != nil:
			kinds["checkpointMetadata"]++
		case a.Add != nil:
			kinds["add"]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if kinds["checkpointMetadata"] != 1 || kinds["add"] != 2 {
		t.Fatalf("v2 checkpoint actions %v, want checkpointMetadata and 2 adds", kinds)
	}
	if s := load(t, st); s.Version() != 2 || s.NumFiles() != 2 {
		t.Fatalf("loaded v%d, %d files", s.Version(), s.NumFiles())
	}
}

// failingPut fails every checkpoint write.
type failingPut struct{ storage.Store }

func (s failingPut) Put(ctx context.Context, key string, r io.Reader) error {
	if strings.Contains(key, "checkpoint") {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(r) // drain, as a real store would before failing
		return errors.New("disk full")
	}
	return s.Store.Put(ctx, key, r)
}

func TestCheckpointFailureIsAWarning(t *testing.T) {
	mem := storage.NewMemory()
	create(t, mem, tableSpec{props: map[string]string{protocol.PropCheckpointInterval: "2"}})
	snap := load(t, failingPut{mem})
	tx := Begin(snap, Operation{Name: OpWrite}, Options{})
	tx.Add(addAction(addIn("")))
	if _, err := tx.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	tx = Begin(load(t, failingPut{mem}), Operation{Name: OpWrite}, Options{})
	tx.Add(addAction(addIn("")))
	res, err := tx.Commit(context.Background())
	if err != nil {
		t.Fatalf("a failed checkpoint failed the commit: %v", err)
	}
	if res.Version != 2 || res.CheckpointWritten || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), "disk full") {
		t.Fatalf("result %+v", res)
	}
	if s := load(t, mem); s.Version() != 2 || s.NumFiles() != 2 {
		t.Fatalf("table v%d with %d files", s.Version(), s.NumFiles())
	}
}

func TestLogCleanup(t *testing.T) {
	ctx := context.Background()
	old := time.Now().Add(-40 * 24 * time.Hour)
	setup := func(t *testing.T, props map[string]string) (*storage.Memory, *snapshot.Snapshot) {
		st := storage.NewMemory()
		props[protocol.PropCheckpointInterval] = "5"
		snap := create(t, st, tableSpec{props: props})
		snap, _ = appendN(t, snap, 14, Options{})
		// Side files of old versions.
		for _, k := range []string{"00000000000000000002.crc", ".00000000000000000003.json.crc", "00000000000000000001.00000000000000000003.compacted.json", "00000000000000000012.crc"} {
			if err := st.Put(ctx, protocol.LogDir+k, strings.NewReader("{}")); err != nil {
				t.Fatal(err)
			}
		}
		// Versions 0..7 were committed 40 days ago.
		for v := int64(0); v <= 7; v++ {
			if err := st.SetModTime(protocol.CommitKey(v), old); err != nil {
				t.Fatal(err)
			}
		}
		return st, snap
	}
	t.Run("expired", func(t *testing.T) {
		st, snap := setup(t, map[string]string{})
		_, results := appendN(t, snap, 1, Options{})
		res := results[0]
		if res.Version != 15 || !res.CheckpointWritten {
			t.Fatalf("result %+v", res)
		}
		// Cutoff commit 7, newest checkpoint at or before it 5: versions
		// 0..4 go (5 commits, 2 checksums, 1 compaction).
		if res.LogFilesDeleted != 8 {
			t.Fatalf("%d log files deleted, want 8", res.LogFilesDeleted)
		}
		for v := int64(0); v <= 15; v++ {
			if got, want := exists(t, st, protocol.CommitKey(v)), v >= 5; got != want {
				t.Fatalf("commit %d exists: %v, want %v", v, got, want)
			}
		}
		for _, k := range []string{"00000000000000000002.crc", ".00000000000000000003.json.crc", "00000000000000000001.00000000000000000003.compacted.json"} {
			if exists(t, st, protocol.LogDir+k) {
				t.Fatalf("%s survived", k)
			}
		}
		for _, v := range []int64{5, 10, 15} {
			if !exists(t, st, protocol.CheckpointKey(v)) {
				t.Fatalf("checkpoint %d deleted", v)
			}
		}
		if !exists(t, st, protocol.LogDir+"00000000000000000012.crc") {
			t.Fatal("checksum of a retained version deleted")
		}
		// Every retained version still loads; older ones do not.
		for _, v := range []int64{5, 7, 12, 15} {
			s, err := snapshot.LoadVersion(ctx, st, v)
			if err != nil || s.NumFiles() != int(v) {
				t.Fatalf("version %d after cleanup: %v, %v", v, s, err)
			}
		}
		if _, err := snapshot.LoadVersion(ctx, st, 4); err == nil {
			t.Fatal("version 4 still loads after its commits were cleaned up")
		}
		if s := load(t, st); s.Version() != 15 || s.NumFiles() != 15 {
			t.Fatalf("latest: v%d, %d files", s.Version(), s.NumFiles())
		}
		// Writers keep going.
		if _, more := appendN(t, load(t, st), 2, Options{}); more[1].Version != 17 {
			t.Fatalf("commit after cleanup at %d", more[1].Version)
		}
	})
	t.Run("disabled", func(t *testing.T) {
		st, snap := setup(t, map[string]string{protocol.PropEnableExpiredLogCleanup: "false"})
		_, results := appendN(t, snap, 1, Options{})
		if results[0].LogFilesDeleted != 0 || !exists(t, st, protocol.CommitKey(0)) {
			t.Fatalf("cleanup ran while disabled: %+v", results[0])
		}
	})
	t.Run("longer retention", func(t *testing.T) {
		st, snap := setup(t, map[string]string{protocol.PropLogRetentionDuration: "interval 60 days"})
		_, results := appendN(t, snap, 1, Options{})
		if results[0].LogFilesDeleted != 0 || !exists(t, st, protocol.CommitKey(0)) {
			t.Fatalf("cleanup deleted unexpired files: %+v", results[0])
		}
	})
}

// TestLogCleanupLocal runs the cleanup on a local table with the clock
// moved 40 days ahead, so every commit has expired: only the newest
// checkpoint's version and later remain.
func TestLogCleanupLocal(t *testing.T) {
	ctx := context.Background()
	st, err := storage.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	snap := create(t, st, tableSpec{props: map[string]string{protocol.PropCheckpointInterval: "4"}})
	snap, _ = appendN(t, snap, 7, Options{})
	future := func() time.Time { return time.Now().Add(40 * 24 * time.Hour) }
	snap, results := appendN(t, snap, 1, Options{Now: future})
	if results[0].Version != 8 || results[0].LogFilesDeleted != 9 {
		t.Fatalf("result %+v, want checkpoint 8 and commits 0..7 plus checkpoint 4 deleted", results[0])
	}
	if exists(t, st, protocol.CommitKey(7)) || !exists(t, st, protocol.CommitKey(8)) || exists(t, st, protocol.CheckpointKey(4)) {
		t.Fatal("wrong files kept")
	}
	if s, err := snapshot.LoadVersion(ctx, st, 8); err != nil || s.NumFiles() != 8 {
		t.Fatalf("version 8: %v", err)
	}
	if _, err := snapshot.LoadVersion(ctx, st, 7); err == nil {
		t.Fatal("version 7 loads without its commits")
	}
	if _, more := appendN(t, snap, 1, Options{}); more[0].Version != 9 {
		t.Fatal("append after cleanup")
	}
	if s := load(t, st); s.Version() != 9 || s.NumFiles() != 9 {
		t.Fatalf("latest v%d with %d files", s.Version(), s.NumFiles())
	}
}

// TestWriteCheckpointKeepsAnExistingOne: a checkpoint of the version that
// another engine wrote stays byte for byte, and so does _last_checkpoint.
func TestWriteCheckpointKeepsAnExistingOne(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	snap, _ := appendN(t, create(t, st, tableSpec{}), 2, Options{})
	theirs := []byte("another engine's checkpoint")
	if err := st.Put(ctx, protocol.CheckpointKey(2), bytes.NewReader(theirs)); err != nil {
		t.Fatal(err)
	}
	if err := WriteCheckpoint(ctx, snap, time.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := storage.ReadAll(ctx, st, protocol.CheckpointKey(2))
	if err != nil || !bytes.Equal(got, theirs) {
		t.Fatalf("checkpoint 2 is now %q (%v)", got, err)
	}
	if exists(t, st, protocol.LastCheckpointKey) {
		t.Fatal("_last_checkpoint written for a checkpoint this call did not write")
	}
	// Version 1 has none: it is written.
	one, err := snapshot.LoadVersion(ctx, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteCheckpoint(ctx, one, time.Now()); err != nil || lastCheckpoint(t, st).Version != 1 {
		t.Fatalf("checkpoint 1: %v", err)
	}
}
