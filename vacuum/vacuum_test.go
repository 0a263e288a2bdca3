package vacuum_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/vacuum"
)

// scenario is a table whose history has every kind of file a vacuum
// judges, all written 20 days ago unless said otherwise:
//
//	v0 ids 1,2 in day=a (file A1); v1 id 3 in day=b (B1);
//	v2 id 4 in day=x y (C1, an escaped path); v3 removes A1 10 days ago
//	(expired); v4 removes B1 an hour ago (within the retention);
//	v5 ids 5,6 in day=a (A2); v6-v7 a DV on A2 deleting id 5.
type scenario struct {
	dir, uri     string
	a1, b1, c1   string
	dvKey        string
	deleted      []string // what a full vacuum with the default retention deletes
	readableRows map[int64][]int64
}

func newScenario(t *testing.T) *scenario {
	t.Helper()
	dir := t.TempDir()
	s := &scenario{dir: dir, uri: dir}
	st := localStore(t, dir)
	now := time.Now()
	write(t, dir, []int64{1, 2}, []string{"a", "a"}, deltalite.WriteOptions{Properties: map[string]string{"delta.enableDeletionVectors": "true"}})
	write(t, dir, []int64{3}, []string{"b"}, deltalite.WriteOptions{})
	write(t, dir, []int64{4}, []string{"x y"}, deltalite.WriteOptions{})
	s.a1 = fileOf(t, st, inDir("day=a"))
	s.b1 = fileOf(t, st, inDir("day=b"))
	s.c1 = fileOf(t, st, inDir("day=x%20y"))
	removeAt(t, st, now.Add(-10*24*time.Hour), inDir("day=a"))
	removeAt(t, st, now.Add(-time.Hour), inDir("day=b"))
	write(t, dir, []int64{5, 6}, []string{"a", "a"}, deltalite.WriteOptions{})
	s.dvKey = withDV(t, st, inDir("day=a"))
	old := now.Add(-20 * 24 * time.Hour)
	age(t, dir, old)
	for _, k := range []string{"orphan.parquet", "day=a/orphan2.parquet", "_change_data/cdc-1.parquet",
		"_delta_index/idx", "deletion_vector_0a1b2c3d-0000-0000-0000-000000000000.bin",
		"_hidden/x.parquet", ".hidden.parquet", "day=a/.part.crc", "_tmp=1/f.parquet", "_delta_log/junk.tmp"} {
		put(t, dir, k, old)
	}
	put(t, dir, "fresh.parquet", now)
	s.deleted = []string{s.a1, "_change_data/cdc-1.parquet", "_delta_index/idx", "day=a/orphan2.parquet",
		"deletion_vector_0a1b2c3d-0000-0000-0000-000000000000.bin", "orphan.parquet"}
	slices.Sort(s.deleted)
	s.readableRows = map[int64][]int64{3: {3, 4}, 4: {4}, 5: {4, 5, 6}, 6: {4, 6}}
	return s
}

func TestDryRunListsExactlyTheUnneededFiles(t *testing.T) {
	s := newScenario(t)
	before := keysOf(t, s.dir)
	tb := open(t, s.uri)
	v := tb.Version()
	stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(stats.Files, s.deleted) {
		t.Fatalf("dry run lists\n%q\nwant\n%q", stats.Files, s.deleted)
	}
	if stats.FilesDeleted != 0 || stats.Version != v || stats.Retention != 7*24*time.Hour {
		t.Fatalf("stats %+v", stats)
	}
	if after := keysOf(t, s.dir); !slices.Equal(after, before) {
		t.Fatalf("a dry run changed files: %q", after)
	}
	if got := open(t, s.uri).Version(); got != v {
		t.Fatalf("a dry run committed: version %d", got)
	}
}

func TestVacuumDeletesAndCommits(t *testing.T) {
	s := newScenario(t)
	before := keysOf(t, s.dir)
	tb := open(t, s.uri)
	v := tb.Version()
	stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range before {
		if !slices.Contains(s.deleted, k) {
			want = append(want, k)
		}
	}
	if got := keysOf(t, s.dir); !slices.Equal(got, want) {
		t.Fatalf("left\n%q\nwant\n%q", got, want)
	}
	if stats.FilesDeleted != len(s.deleted) || stats.Version != v+2 || tb.Version() != v+2 {
		t.Fatalf("stats %+v, table at %d", stats, tb.Version())
	}
	// Directories: the root, day=a, day=b, day=x y, _change_data, _delta_index.
	if stats.Directories != 6 {
		t.Errorf("numVacuumedDirectories = %d, want 6", stats.Directories)
	}
	start := commitInfo(t, s.dir, v+1)
	if start["operation"] != "VACUUM START" {
		t.Fatalf("commit %d: %v", v+1, start)
	}
	params := start["operationParameters"].(map[string]any)
	if params["retentionCheckEnabled"] != "true" || params["defaultRetentionMillis"] != "604800000" || params["specifiedRetentionMillis"] != nil {
		t.Errorf("VACUUM START parameters %v", params)
	}
	m := start["operationMetrics"].(map[string]any)
	if m["numFilesToDelete"] != "6" || m["sizeOfDataToDelete"] != jsonNum(stats.BytesToDelete) || stats.BytesToDelete <= 5 {
		t.Errorf("VACUUM START metrics %v (stats %d bytes)", m, stats.BytesToDelete)
	}
	end := commitInfo(t, s.dir, v+2)
	if end["operation"] != "VACUUM END" || end["operationParameters"].(map[string]any)["status"] != "COMPLETED" {
		t.Fatalf("commit %d: %v", v+2, end)
	}
	m = end["operationMetrics"].(map[string]any)
	if m["numDeletedFiles"] != "6" || m["numVacuumedDirectories"] != "6" {
		t.Errorf("VACUUM END metrics %v", m)
	}
	// Every version within the retention reads as before; v0-v2, whose A1
	// is gone, fail naming it and the vacuum.
	for ver, want := range s.readableRows {
		if got, err := ids(t, s.uri, ver); err != nil || !slices.Equal(got, want) {
			t.Errorf("version %d: %v, %v; want %v", ver, got, err, want)
		}
	}
	if got, err := ids(t, s.uri, -1); err != nil || !slices.Equal(got, []int64{4, 6}) {
		t.Errorf("current: %v, %v", got, err)
	}
	for ver := int64(0); ver <= 2; ver++ {
		_, err := ids(t, s.uri, ver)
		if !errors.Is(err, deltalite.ErrNotFound) || !strings.Contains(err.Error(), s.a1) ||
			!strings.Contains(err.Error(), "VACUUM") || !strings.Contains(err.Error(), "read a newer version") {
			t.Errorf("version %d: %v", ver, err)
		}
	}
	// A second vacuum finds nothing and commits nothing.
	again, err := tb.Vacuum(ctx, deltalite.VacuumOptions{})
	if err != nil || len(again.Files) != 0 || again.Version != v+2 {
		t.Fatalf("second vacuum: %+v, %v", again, err)
	}
}

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }

func commitInfo(t *testing.T, dir string, v int64) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(protocol.CommitKey(v))))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	var line map[string]map[string]any
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatal(err)
	}
	return line["commitInfo"]
}

func TestLiteDeletesOnlyExpiredTombstones(t *testing.T) {
	s := newScenario(t)
	tb := open(t, s.uri)
	stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{Lite: true, DryRun: true})
	if err != nil || !slices.Equal(stats.Files, []string{s.a1}) {
		t.Fatalf("lite dry run: %q, %v", stats.Files, err)
	}
	stats, err = tb.Vacuum(ctx, deltalite.VacuumOptions{Lite: true})
	if err != nil || stats.FilesDeleted != 1 || stats.Directories != 0 {
		t.Fatalf("lite: %+v, %v", stats, err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, s.a1)); !os.IsNotExist(err) {
		t.Fatalf("%s still there: %v", s.a1, err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "orphan.parquet")); err != nil {
		t.Fatalf("lite deleted an orphan: %v", err)
	}
}

func TestRetentionBelowTheTablesIsRefused(t *testing.T) {
	s := newScenario(t)
	before := keysOf(t, s.dir)
	tb := open(t, s.uri)
	v := tb.Version()
	_, err := tb.Vacuum(ctx, deltalite.VacuumOptions{RetentionHours: vacuum.Hours(0)})
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "at least 168 hours") ||
		!strings.Contains(err.Error(), "NoEnforceRetention") {
		t.Fatalf("want a refusal naming 168 hours, got %v", err)
	}
	if _, err := tb.Vacuum(ctx, deltalite.VacuumOptions{RetentionHours: vacuum.Hours(-1), NoEnforceRetention: true}); !errors.Is(err, deltalite.ErrInvalidArgument) {
		t.Fatalf("negative retention: %v", err)
	}
	if got := keysOf(t, s.dir); !slices.Equal(got, before) || open(t, s.uri).Version() != v {
		t.Fatal("a refused vacuum changed the table")
	}
	// Retention 0, not enforced: B1's tombstone (an hour old) expires too,
	// and so does fresh.parquet, an orphan of a moment ago (what a writer
	// about to commit would lose: why the check exists).
	stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{RetentionHours: vacuum.Hours(0), NoEnforceRetention: true, DryRun: true})
	want := append(slices.Clone(s.deleted), s.b1, "fresh.parquet")
	slices.Sort(want)
	if err != nil || !slices.Equal(stats.Files, want) {
		t.Fatalf("retention 0: %q, %v; want %q", stats.Files, err, want)
	}
}

func TestTableRetentionProperty(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, []int64{1}, []string{"a"}, deltalite.WriteOptions{Properties: map[string]string{protocol.PropDeletedFileRetention: "interval 2 days"}})
	tb := open(t, dir)
	_, err := tb.Vacuum(ctx, deltalite.VacuumOptions{RetentionHours: vacuum.Hours(47), DryRun: true})
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "at least 48 hours") {
		t.Fatalf("want a refusal naming 48 hours, got %v", err)
	}
	stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{DryRun: true})
	if err != nil || stats.Retention != 48*time.Hour || stats.DefaultRetention != 48*time.Hour {
		t.Fatalf("%+v, %v", stats, err)
	}
}

// An orphan 3 days old goes with a 2-day retention given as a clock 3
// days ahead, and stays with the default 7 days.
func TestInjectedClock(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, []int64{1}, []string{"a"}, deltalite.WriteOptions{})
	put(t, dir, "day=a/orphan.parquet", time.Now())
	tb := open(t, dir)
	later := func() time.Time { return time.Now().Add(8 * 24 * time.Hour) }
	stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{DryRun: true, Now: later})
	if err != nil || !slices.Equal(stats.Files, []string{"day=a/orphan.parquet"}) {
		t.Fatalf("%q, %v", stats.Files, err)
	}
	stats, err = tb.Vacuum(ctx, deltalite.VacuumOptions{DryRun: true})
	if err != nil || len(stats.Files) != 0 {
		t.Fatalf("%q, %v", stats.Files, err)
	}
}

// A table with a writer feature this engine does not know is not
// vacuumed: which files it needs is not ours to judge.
func TestUnknownWriterFeatureRefused(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, []int64{1}, []string{"a"}, deltalite.WriteOptions{})
	put(t, dir, "orphan.parquet", time.Now().Add(-30*24*time.Hour))
	p := `{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["vacuumProtocolCheck"],"writerFeatures":["vacuumProtocolCheck","madeUpFeature"]}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "_delta_log", "00000000000000000001.json"), []byte(p), 0o644); err != nil {
		t.Fatal(err)
	}
	tb := open(t, dir)
	_, err := tb.Vacuum(ctx, deltalite.VacuumOptions{})
	if !errors.Is(err, deltalite.ErrUnsupportedTable) || !strings.Contains(err.Error(), "madeUpFeature") {
		t.Fatalf("want unsupported naming madeUpFeature, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "orphan.parquet")); err != nil {
		t.Fatal("the refused vacuum deleted a file")
	}
}

// On an object store the listing runs in parallel key ranges split at the
// table's top-level folders; every range together must see every key
// once, and none of _delta_log.
func TestParallelListingOnObjectStore(t *testing.T) {
	st := storage.NewMemory()
	var days []string
	var idv []int64
	for i := range 12 {
		days = append(days, fmt.Sprintf("d%02d", i))
		idv = append(idv, int64(i))
	}
	write(t, "memory://vacuum", idv, days, deltalite.WriteOptions{Store: st})
	removed := removeAt(t, st, time.Now(), func(a *protocol.Add) bool { return a.PartitionValues["day"] < "d04" })
	var want []string
	for _, a := range removed {
		want = append(want, keyOf(t, st, a.Path))
	}
	for _, k := range []string{"a.parquet", "d05.parquet", "day=d03/orphan.parquet", "day=d07/orphan.parquet", "day=d99/x.parquet", "zzz/y.parquet"} {
		if err := st.Put(ctx, k, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
		want = append(want, k)
	}
	for _, k := range []string{"_delta_log/junk", "_delta_log0", "_x/y.parquet", "day=d05/.crc"} {
		if err := st.Put(ctx, k, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(want)
	tb, err := deltalite.Open(ctx, "memory://vacuum", deltalite.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	later := func() time.Time { return time.Now().Add(30 * 24 * time.Hour) }
	for _, par := range []int{1, 2, 3, 8} {
		stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{DryRun: true, Now: later, MaxParallelList: par})
		if err != nil || !slices.Equal(stats.Files, want) {
			t.Fatalf("parallel %d: %q, %v; want %q", par, stats.Files, err, want)
		}
		// The root, 12 partitions, day=d99 and zzz.
		if stats.Directories != 15 {
			t.Errorf("parallel %d: %d directories", par, stats.Directories)
		}
	}
}

// A version whose deletion vector file was vacuumed fails naming the DV
// file and the vacuum, never reading the rows the DV deleted.
func TestVacuumedDVNamesTheVacuum(t *testing.T) {
	dir := t.TempDir()
	st := localStore(t, dir)
	write(t, dir, []int64{1, 2}, []string{"a", "a"}, deltalite.WriteOptions{Properties: map[string]string{"delta.enableDeletionVectors": "true"}})
	dvKey := withDV(t, st, inDir("day=a")) // v1 deletes id 1
	data := fileOf(t, st, inDir("day=a"))
	removeAt(t, st, time.Now().Add(-10*24*time.Hour), inDir("day=a")) // v2
	age(t, dir, time.Now().Add(-20*24*time.Hour))
	// The data file stays: v0 (without the DV) is within the retention,
	// its removal at v1 being recent.
	stats, err := open(t, dir).Vacuum(ctx, deltalite.VacuumOptions{})
	if err != nil || !slices.Equal(stats.Files, []string{dvKey}) {
		t.Fatalf("vacuum: %q, %v; want only %q (not %s)", stats.Files, err, dvKey, data)
	}
	if got, err := ids(t, dir, 0); err != nil || !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("version 0: %v, %v", got, err)
	}
	_, err = ids(t, dir, 1)
	if !errors.Is(err, deltalite.ErrNotFound) || !strings.Contains(err.Error(), "deletion vector file") ||
		!strings.Contains(err.Error(), dvKey) || !strings.Contains(err.Error(), "VACUUM") {
		t.Fatalf("version 1: %v", err)
	}
}

func TestProgressAfterEachBatch(t *testing.T) {
	s := newScenario(t)
	var got []vacuum.Progress
	_, err := open(t, s.dir).Vacuum(ctx, deltalite.VacuumOptions{DeleteBatchSize: 2, MaxParallelDeletes: 1,
		Progress: func(p vacuum.Progress) { got = append(got, p) }})
	if err != nil {
		t.Fatal(err)
	}
	var deleted []int
	for _, p := range got {
		if p.ToDelete != 6 || p.Listed < 10 {
			t.Errorf("progress %+v", p)
		}
		deleted = append(deleted, p.Deleted)
	}
	if !slices.Equal(deleted, []int{2, 4, 6}) {
		t.Fatalf("progress after batches: %v", deleted)
	}
}

// Features that put conditions on rows (generated columns, CHECK
// constraints) do not stop a vacuum, which writes no rows.
func TestRowFeaturesDoNotStopVacuum(t *testing.T) {
	dir := t.TempDir()
	sc := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"g","type":"long","nullable":true,"metadata":{"delta.generationExpression":"id * 2"}}]}`
	md, _ := json.Marshal(map[string]any{"metaData": map[string]any{"id": "t", "format": map[string]any{"provider": "parquet", "options": map[string]any{}},
		"schemaString": sc, "partitionColumns": []string{}, "configuration": map[string]string{"delta.constraints.pos": "id > 0"}, "createdTime": 1}})
	log := `{"protocol":{"minReaderVersion":1,"minWriterVersion":7,"writerFeatures":["generatedColumns","checkConstraints"]}}` + "\n" + string(md) + "\n"
	if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "_delta_log", "00000000000000000000.json"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	put(t, dir, "orphan.parquet", time.Now().Add(-30*24*time.Hour))
	stats, err := open(t, dir).Vacuum(ctx, deltalite.VacuumOptions{})
	if err != nil || !slices.Equal(stats.Files, []string{"orphan.parquet"}) || stats.Version != 2 {
		t.Fatalf("%+v, %v", stats, err)
	}
}

// TestTempFilesOfKilledWrites: the temporary files a killed write leaves
// (the local store's .deltalite-tmp-*, at the root and in a partition
// folder) go once older than the retention, listed by a dry run and
// counted; a fresh one stays, as do other engines' hidden files and
// anything under _delta_log or a hidden folder. Lite mode lists no
// storage and leaves them.
func TestTempFilesOfKilledWrites(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, []int64{1, 2}, []string{"a", "b"}, deltalite.WriteOptions{})
	now := time.Now()
	old := now.Add(-20 * 24 * time.Hour)
	age(t, dir, old)
	want := []string{".deltalite-tmp-0123456789abcdef", "day=a/.deltalite-tmp-fedcba9876543210"}
	for _, k := range append([]string{".spark-foo", "_foo", "day=a/.spark-foo", "day=a/_foo", "day=a/.part-0.parquet.crc",
		"_delta_log/.deltalite-tmp-0000000000000000", "_hidden/.deltalite-tmp-1111111111111111",
		".spark-staging/.deltalite-tmp-2222222222222222"}, want...) {
		put(t, dir, k, old)
	}
	put(t, dir, "day=b/.deltalite-tmp-3333333333333333", now)
	before := keysOf(t, dir)
	tb := open(t, dir)

	lite, err := tb.Vacuum(ctx, deltalite.VacuumOptions{Lite: true, DryRun: true})
	if err != nil || len(lite.Files) != 0 {
		t.Fatalf("lite dry run: %q, %v; want nothing", lite.Files, err)
	}
	plan, err := tb.Vacuum(ctx, deltalite.VacuumOptions{DryRun: true})
	if err != nil || !slices.Equal(plan.Files, want) || plan.BytesToDelete != 2 {
		t.Fatalf("dry run: %q (%d bytes), %v; want %q", plan.Files, plan.BytesToDelete, err, want)
	}
	stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{})
	if err != nil || stats.FilesDeleted != 2 || !slices.Equal(stats.Files, want) {
		t.Fatalf("vacuum: %+v, %v", stats, err)
	}
	if m := commitInfo(t, dir, tb.Version()-1)["operationMetrics"].(map[string]any); m["numFilesToDelete"] != "2" {
		t.Errorf("VACUUM START metrics %v", m)
	}
	left := slices.DeleteFunc(before, func(k string) bool { return slices.Contains(want, k) })
	if got := keysOf(t, dir); !slices.Equal(got, left) {
		t.Errorf("left\n%q\nwant\n%q", got, left)
	}
	if _, err := os.Stat(filepath.Join(dir, "_delta_log", ".deltalite-tmp-0000000000000000")); err != nil {
		t.Errorf("a temporary file under _delta_log was touched: %v", err)
	}
	if got, err := ids(t, dir, -1); err != nil || !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("after the vacuum: %v, %v", got, err)
	}
}

// TestTempObjectOnObjectStore: on an object store, where temporary
// objects are listed like any other (a conditional-write probe of a killed
// process), an old one goes and another engine's hidden object stays.
func TestTempObjectOnObjectStore(t *testing.T) {
	st := storage.NewMemory()
	write(t, "memory://vacuum-temp", []int64{1}, []string{"a"}, deltalite.WriteOptions{Store: st})
	for _, k := range []string{".deltalite-tmp-conditional-write-probe-0123456789abcdef", ".spark-foo", "day=a/_foo"} {
		if err := st.Put(ctx, k, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	tb, err := deltalite.Open(ctx, "memory://vacuum-temp", deltalite.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	stats, err := tb.Vacuum(ctx, deltalite.VacuumOptions{Now: func() time.Time { return time.Now().Add(30 * 24 * time.Hour) }})
	if want := []string{".deltalite-tmp-conditional-write-probe-0123456789abcdef"}; err != nil || !slices.Equal(stats.Files, want) || stats.FilesDeleted != 1 {
		t.Fatalf("vacuum: %q (%d deleted), %v; want %q", stats.Files, stats.FilesDeleted, err, want)
	}
	for _, k := range []string{".spark-foo", "day=a/_foo"} {
		if _, err := st.Head(ctx, k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}
