package merge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/write"
)

// reader yields the JSON rows as one batch of the schema.
func reader(t *testing.T, sc *schema.Struct, rows string) array.RecordReader {
	t.Helper()
	rec := batch(t, memory.DefaultAllocator, sc, rows)
	defer rec.Release()
	r, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// newTable creates a table of sc partitioned by parts, one append (one
// commit, a file per partition) per rows argument.
func newTable(t *testing.T, sc *schema.Struct, parts []string, rows ...string) (string, *snapshot.Snapshot) {
	t.Helper()
	dir := t.TempDir()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := op.Empty(st, sc, op.NewTableOptions{PartitionBy: parts})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, snap, err = write.Run(context.Background(), snap, reader(t, sc, r), write.Options{Mode: write.ModeAppend}); err != nil {
			t.Fatal(err)
		}
	}
	return dir, snap
}

// contents are the table's rows rendered in its schema, sorted.
func contents(t *testing.T, snap *snapshot.Snapshot) []string {
	t.Helper()
	return scanRows(t, snap, func(rec arrow.RecordBatch) []string { return renderAll(snap.Schema(), rec) })
}

// scanRows reads the table's rows, each batch rendered by render, sorted.
func scanRows(t *testing.T, snap *snapshot.Snapshot, render func(arrow.RecordBatch) []string) []string {
	t.Helper()
	_, seq, err := scan.New(snap).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, render(rec)...)
	}
	slices.Sort(out)
	return out
}

// commitInfo reads the commitInfo of a version from the log.
func commitInfo(t *testing.T, dir string, version int64) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", version)))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var m map[string]map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["commitInfo"] != nil {
			return m["commitInfo"]
		}
	}
	t.Fatalf("version %d has no commitInfo", version)
	return nil
}

var (
	partSchema = cols("id long", "v string", "day string")
	day1       = `[{"id":1,"v":"a","day":"d1"},{"id":2,"v":"b","day":"d1"},{"id":3,"v":"c","day":"d1"}]`
	day2       = `[{"id":1,"v":"x","day":"d2"},{"id":5,"v":"y","day":"d2"}]`
	day3       = `[{"id":9,"v":"z","day":"d3"}]`
)

func TestRunUpsert(t *testing.T) {
	dir, snap := newTable(t, partSchema, []string{"day"}, day1, day2, day3)
	src := `[{"id":2,"v":"B","day":"d1"},{"id":4,"v":"D","day":"d1"},{"id":6,"v":"F","day":"d4"}]`
	s, post, err := Run(context.Background(), snap, reader(t, partSchema, src), Options{Predicate: "t.id = s.id AND t.day = s.day", MergeType: TypeUpsert})
	if err != nil {
		t.Fatal(err)
	}
	want := sorted("1|a|d1", "2|B|d1", "3|c|d1", "4|D|d1", "1|x|d2", "5|y|d2", "9|z|d3", "6|F|d4")
	if got := contents(t, post); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	// Only d1 holds a match: the other days' files are neither read nor
	// rewritten, with no literal partition term in the predicate.
	if s.TargetFilesScanned != 1 || s.TargetFilesSkipped != 2 || s.TargetFilesRemoved != 1 ||
		s.TargetRowsUpdated != 1 || s.TargetRowsInserted != 2 || s.TargetRowsCopied != 2 || s.SourceRows != 3 || s.OutputRows != 5 || s.NestedLoop {
		t.Fatalf("stats %+v", s)
	}
	ci := commitInfo(t, dir, s.Version)
	m, _ := ci["operationMetrics"].(map[string]any)
	if ci["operation"] != "MERGE" || m["numTargetRowsUpdated"] != "1" || m["numTargetRowsInserted"] != "2" || m["numTargetRowsCopied"] != "2" {
		t.Fatalf("commitInfo %v", ci)
	}
}

// A merge that changes nothing commits nothing; a multiple match fails and
// leaves the table as it was.
func TestRunNoChangeAndFailure(t *testing.T) {
	_, snap := newTable(t, partSchema, []string{"day"}, day1, day2)
	s, post, err := Run(context.Background(), snap, reader(t, partSchema, `[{"id":2,"v":"B","day":"d1"}]`),
		Options{Predicate: "t.id = s.id AND t.day = s.day", MergeType: TypeDeduplicateInsert})
	if err != nil || s.Version != snap.Version() || post != snap || s.TargetRowsInserted != 0 {
		t.Fatalf("no-op merge: %+v %v", s, err)
	}
	_, _, err = Run(context.Background(), snap, reader(t, partSchema, `[{"id":2,"v":"B","day":"d1"},{"id":2,"v":"C","day":"d1"}]`),
		Options{Predicate: "t.id = s.id", MergeType: TypeUpsert})
	if err == nil || !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "t.id = 2") {
		t.Fatalf("multiple match: %v", err)
	}
	fresh, err := snap.Refresh(context.Background())
	if err != nil || fresh.Version() != snap.Version() {
		t.Fatalf("the failed merge committed: %v %v", fresh, err)
	}
}

// NOT MATCHED BY SOURCE reads the files its condition allows, and schema
// evolution lands in the same commit.
func TestRunBySourceAndEvolution(t *testing.T) {
	_, snap := newTable(t, partSchema, []string{"day"}, day1, day2, day3)
	src := cols("id long", "v string", "day string", "w long")
	opt := Options{Predicate: "t.id = s.id AND t.day = s.day", SchemaMode: SchemaModeMerge, Clauses: []Clause{
		{When: Matched, Action: UpdateAll},
		{When: NotMatchedBySource, Action: Delete, Predicate: "t.day = 'd2'"},
	}}
	s, post, err := Run(context.Background(), snap, reader(t, src, `[{"id":3,"v":"C","day":"d1","w":30}]`), opt)
	if err != nil {
		t.Fatal(err)
	}
	want := sorted("1|a|d1|NULL", "2|b|d1|NULL", "3|C|d1|30", "9|z|d3|NULL")
	if got := contents(t, post); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if s.TargetFilesScanned != 2 || s.TargetRowsNotMatchedBySourceDeleted != 2 || s.TargetRowsMatchedUpdated != 1 {
		t.Fatalf("stats %+v", s)
	}
	if post.Schema().Field("w") == nil || post.Version() != snap.Version()+1 {
		t.Fatalf("schema %v at version %d", post.Schema(), post.Version())
	}
}

func TestStatsJSON(t *testing.T) {
	s := Stats{Version: 3, Counts: Counts{SourceRows: 4, TargetRowsInserted: 1, TargetRowsUpdated: 2}, TargetRowsCopied: 5, NestedLoop: true,
		TargetFilesScanned: 2, TargetFilesSkipped: 7, ScanDuration: 12 * time.Millisecond}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range []string{`"version":3`, `"num_source_rows":4`, `"num_target_rows_inserted":1`, `"num_target_rows_updated":2`,
		`"num_target_rows_copied":5`, `"nested_loop":true`, `"num_target_files_skipped_during_scan":7`, `"scan_time_ms":12`} {
		if !strings.Contains(string(b), kv) {
			t.Errorf("JSON %s lacks %s", b, kv)
		}
	}
	var back Stats
	if err := json.Unmarshal(b, &back); err != nil || back != s {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	if got := s.String(); !strings.HasPrefix(got, "MergeStats(version=3, skipped=false, nested_loop=true, num_source_rows=4") {
		t.Fatalf("String: %s", got)
	}
}

// The first pass reads under the call's budget, within the process
// limits: with the process's only file permit taken, the merge waits.
func TestRunProbeWaitsForTheLimits(t *testing.T) {
	_, snap := newTable(t, partSchema, nil, `[{"id":1,"v":"a","day":"d1"},{"id":3,"v":"c","day":"d1"}]`)
	lim := limits.New(limits.Config{MaxParallelPartitions: 1, MaxParallelFiles: 1, MaxDecodedBytes: 1 << 20})
	release, err := lim.NewBudget(limits.CallConfig{MaxParallelFiles: 1}).AcquireFile(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		s   Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		// Key 2 lies within the file's range: only reading it shows no match.
		s, _, err := Run(context.Background(), snap, reader(t, partSchema, `[{"id":2,"v":"b","day":"d1"}]`),
			Options{Predicate: "t.id = s.id", MergeType: TypeDeduplicateInsert, Limits: lim})
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("the merge read a file without a permit: %+v %v", r.s, r.err)
	case <-time.After(300 * time.Millisecond):
	}
	release()
	r := <-done
	if r.err != nil || r.s.TargetFilesScanned != 1 || r.s.TargetRowsInserted != 1 || r.s.TargetFilesRemoved != 0 {
		t.Fatalf("%+v %v", r.s, r.err)
	}
	if p, f, b := lim.InUse(); p+f != 0 || b != 0 {
		t.Fatalf("the merge left %d partitions, %d files and %d bytes held", p, f, b)
	}
}

// A merge into a table being created (snapshot.Empty) inserts what its
// insert clauses insert and creates the table in the same commit; one
// that inserts nothing creates nothing.
func TestRunCreatesTable(t *testing.T) {
	dir := t.TempDir()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	md, p, _, err := op.NewTable(st.URL(), "id-1", partSchema, op.NewTableOptions{PartitionBy: []string{"day"}})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := snapshot.Empty(st, p, md)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: NotMatched, Action: InsertAll, Predicate: "s.id > 1"}}}
	s, _, err := Run(context.Background(), empty, reader(t, partSchema, `[{"id":1,"v":"a","day":"d1"}]`), opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.Load(context.Background(), st); !errors.Is(err, errs.ErrTableNotFound) || s.TargetRowsInserted != 0 {
		t.Fatalf("a merge inserting nothing: %v, %+v", err, s)
	}
	s, post, err := Run(context.Background(), empty, reader(t, partSchema, day1), opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := sorted("2|b|d1", "3|c|d1"); s.Version != 0 || !reflect.DeepEqual(contents(t, post), want) || s.TargetRowsInserted != 2 {
		t.Fatalf("version %d rows %v stats %+v", s.Version, contents(t, post), s)
	}
	loaded, err := snapshot.Load(context.Background(), st)
	if err != nil || !slices.Equal(loaded.PartitionColumns(), []string{"day"}) || loaded.Version() != 0 {
		t.Fatalf("%v %v", loaded, err)
	}
	if ci := commitInfo(t, dir, 0); ci["operation"] != "MERGE" {
		t.Fatalf("commitInfo %v", ci)
	}
}

// Nulls for a NOT NULL column fail the merge naming the column and the
// null rows of every file it rewrote and of its inserts, and nothing is
// committed.
func TestRunNotNullCountsEveryFile(t *testing.T) {
	strict := cols("id long", "v string", "day string")
	strict.Fields[1].Nullable = false
	_, snap := newTable(t, strict, []string{"day"}, day1, day2, day3)
	src := `[{"id":2,"v":null,"day":"d1"},{"id":3,"v":null,"day":"d1"},{"id":5,"v":null,"day":"d2"},{"id":7,"v":null,"day":"d4"}]`
	_, _, err := Run(context.Background(), snap, reader(t, partSchema, src),
		Options{Predicate: "t.id = s.id AND t.day = s.day", MergeType: TypeUpsert, MaxParallelFiles: 1})
	if !errors.Is(err, errs.ErrSchemaMismatch) || !strings.Contains(err.Error(), `"v" has 4 nulls`) {
		t.Fatalf("got %v, want the 4 null rows of column v over both files and the insert", err)
	}
	if fresh, err := snap.Refresh(context.Background()); err != nil || fresh.Version() != snap.Version() {
		t.Fatalf("the failed merge committed: %v %v", fresh, err)
	}
}
