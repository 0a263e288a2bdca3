package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

func table(t *testing.T, rel string) storage.Store {
	t.Helper()
	st, err := storage.NewLocal(corpus.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestLoadVersions(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		table          string
		version        int64 // -1 latest
		wantVersion    int64
		wantFiles      int
		wantCheckpoint int64
	}{
		{"delta-rs/simple_table", -1, 4, 5, -1},
		{"delta-rs/simple_table", 0, 0, 6, -1},
		{"delta-rs/simple_table_with_checkpoint", -1, 10, 11, 10},
		{"delta-rs/simple_table_with_checkpoint", 5, 5, 6, -1},
		{"delta-rs/latest_not_checkpointed", -1, 3, -1, 2},
		{"delta-rs/with_checkpoint_no_last_checkpoint", -1, 3, -1, 2},
		{"delta-rs/table_failed_last_checkpoint_update", -1, 3, -1, 3},
		{"delta-rs/checkpoints_vacuumed", -1, 12, -1, 10},
		{"delta-rs/checkpoints_vacuumed", 7, 7, -1, 5},
		{"delta-rs-err-logs/table_b", -1, 13, -1, 10},
		{"dat/no_replay/delta", -1, 5, -1, 4},
		{"delta-rs/checkpoint-v2-table", -1, 9, -1, 8},
		{"delta-rs/table-with-domain-metadata", -1, 108, -1, 108},
	}
	for _, c := range cases {
		s, err := LoadVersion(ctx, table(t, c.table), c.version)
		if err != nil {
			t.Errorf("%s@%d: %v", c.table, c.version, err)
			continue
		}
		if s.Version() != c.wantVersion {
			t.Errorf("%s@%d: version %d, want %d", c.table, c.version, s.Version(), c.wantVersion)
		}
		if c.wantFiles >= 0 && s.NumFiles() != c.wantFiles {
			t.Errorf("%s@%d: %d files, want %d", c.table, c.version, s.NumFiles(), c.wantFiles)
		}
		if s.segStart != c.wantCheckpoint {
			t.Errorf("%s@%d: replay started at checkpoint %d, want %d", c.table, c.version, s.segStart, c.wantCheckpoint)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		table string
		kind  *errs.Error
		text  string
	}{
		{"delta-rs-err-logs/table_c", errs.ErrCorruptTable, "00000000000000000012.json"},
		{"delta-rs-err-logs/table_d", errs.ErrUnsupportedTable, "catalogOwned"},
		{"delta-rs-err-logs/table_e", errs.ErrUnsupportedTable, "catalogOwned"},
		{"delta-rs-err-logs/table_f", errs.ErrUnsupportedTable, "catalogOwned"},
		{"delta-rs-err-logs/table_h", errs.ErrCorruptTable, "jumps from version 13 to 9999"},
		{"golden/deltalog-invalid-protocol-version/delta", errs.ErrUnsupportedTable, "readerVersion 99"},
		{"golden/deltalog-state-reconstruction-without-metadata/delta", errs.ErrCorruptTable, "no metaData"},
		{"golden/deltalog-state-reconstruction-from-checkpoint-missing-protocol/delta", errs.ErrCorruptTable, "no protocol"},
		{"golden/no-delta-log-folder/delta", errs.ErrTableNotFound, "_delta_log"},
		{"delta-rs/simple_table_features", errs.ErrUnsupportedTable, "blahabl"},
	}
	for _, c := range cases {
		_, err := Load(ctx, table(t, c.table))
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: error %v, want kind %v mentioning %q", c.table, err, c.kind.Kind, c.text)
		}
	}
	// A path that is a file holds no table: not found, not an internal error.
	file := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(file, []byte("id\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := storage.NewLocal(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, st); !errors.Is(err, errs.ErrTableNotFound) || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("a file as table: %v, want table not found", err)
	}
	if _, err := History(ctx, st, 0); !errors.Is(err, errs.ErrTableNotFound) {
		t.Errorf("history of a file as table: %v, want table not found", err)
	}
	if _, err := LoadVersion(ctx, table(t, "delta-rs/checkpoints_vacuumed"), 2); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("version before the oldest checkpoint: %v", err)
	}
	if _, err := LoadVersion(ctx, table(t, "delta-rs/simple_table"), 9); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("version after the latest: %v", err)
	}
}

// copyTable copies a conformance table into a memory store, setting each
// commit's time as delta-rs's time travel tests do.
func copyTable(t *testing.T, rel string, mtimes map[string]time.Time) *storage.Memory {
	t.Helper()
	src := corpus.Path(t, rel)
	m := storage.NewMemory()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		key, _ := filepath.Rel(src, p)
		key = filepath.ToSlash(key)
		if err := m.PutIfAbsent(context.Background(), key, data); err != nil {
			return err
		}
		if ts, ok := mtimes[key]; ok {
			return m.SetModTime(key, ts)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoadAtTimestamp(t *testing.T) {
	ctx := context.Background()
	zone := time.FixedZone("-07:00", -7*3600)
	mtimes := map[string]time.Time{}
	for v := 0; v <= 4; v++ {
		mtimes[strings.Replace("_delta_log/0000000000000000000X.json", "X", string(rune('0'+v)), 1)] =
			time.Date(2020, 5, 1+v, 22, 47, 31, 0, zone)
	}
	st := copyTable(t, "delta-rs/simple_table", mtimes)
	at := func(s string) (int64, error) {
		ts, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := LoadAt(ctx, st, ts)
		if err != nil {
			return -1, err
		}
		return snap.Version(), nil
	}
	for ts, want := range map[string]int64{
		"2020-05-02T23:47:31-07:00": 1,
		"2020-05-01T22:47:31-07:00": 0,
		"2020-05-04T22:47:30-07:00": 2,
		"2020-05-05T22:47:31-07:00": 4, // the latest commit's own time
	} {
		if got, err := at(ts); err != nil || got != want {
			t.Errorf("at %s: version %d (%v), want %d", ts, got, err, want)
		}
	}
	// After the latest commit: refused as Spark refuses it, naming the
	// latest commit's time, rather than read as the latest version.
	for _, ts := range []string{"2030-01-01T00:00:00Z", "2020-05-05T22:47:32-07:00"} {
		if _, err := at(ts); !errors.Is(err, errs.ErrInvalidArgument) ||
			!strings.Contains(err.Error(), "after the latest commit (version 4 at 2020-05-06T05:47:31Z)") {
			t.Errorf("at %s: %v", ts, err)
		}
	}
	if _, err := at("2019-01-01T00:00:00Z"); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("before the first commit: %v", err)
	}
}

func TestRefresh(t *testing.T) {
	ctx := context.Background()
	st := copyTable(t, "delta-rs/simple_table", nil)
	s1, err := LoadVersion(ctx, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	s4, err := s1.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if s4.Version() != 4 || s4.NumFiles() != full.NumFiles() {
		t.Fatalf("refresh gave v%d with %d files, full load v%d with %d", s4.Version(), s4.NumFiles(), full.Version(), full.NumFiles())
	}
	for i, f := range s4.Files() {
		if f.Path != full.Files()[i].Path {
			t.Errorf("file %d: %s vs %s", i, f.Path, full.Files()[i].Path)
		}
	}
	if again, _ := s4.Refresh(ctx); again != s4 {
		t.Errorf("refresh with no new commits should return the same snapshot")
	}
}

func TestHistory(t *testing.T) {
	ctx := context.Background()
	h, err := History(ctx, table(t, "delta-rs/simple_table"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Version != 4 || h[1].Version != 3 || h[0].Info.Operation != "DELETE" {
		t.Fatalf("history = %+v", h)
	}
	h, err = History(ctx, table(t, "delta-rs/http_requests"), 0) // commitInfo without an operation
	if err != nil || len(h) != 2 || h[0].Info == nil || h[0].Info.Operation != "" || h[1].Version != 0 {
		t.Fatalf("history without commitInfo = %+v, %v", h, err)
	}
}
