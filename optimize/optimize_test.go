package optimize_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/optimize"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/corpus"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "p", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "q", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
}, nil)

// appendRows appends one batch of JSON rows (one file per partition).
func appendRows(t testing.TB, dir, rows string, partitionBy ...string) {
	t.Helper()
	if err := writeRows(dir, rows, partitionBy...); err != nil {
		t.Fatal(err)
	}
}

func writeRows(dir, rows string, partitionBy ...string) error {
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, testSchema, strings.NewReader(rows))
	if err != nil {
		return err
	}
	defer rec.Release()
	rr, _ := array.NewRecordReader(testSchema, []arrow.RecordBatch{rec})
	_, err = deltalite.Write(context.Background(), dir, rr, deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: partitionBy})
	return err
}

// smallFiles writes a table partitioned by p: per partition, files
// appends of one row each.
func smallFiles(t testing.TB, files map[string]int) string {
	t.Helper()
	dir := t.TempDir()
	id := 0
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		for range files[p] {
			id++
			appendRows(t, dir, `[{"id":`+itoa(id)+`,"s":"row `+itoa(id)+`","p":"`+p+`","q":`+itoa(id%3)+`}]`, "p")
		}
	}
	return dir
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func open(t testing.TB, dir string) *deltalite.Table {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// rows reads the table at dir as canonical rows, sorted.
var rows = tablerows.Read

// filesByPartition counts the live files of each partition value of col.
func filesByPartition(t testing.TB, dir, col string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, a := range open(t, dir).Snapshot().Files() {
		out[a.PartitionValues[col]]++
	}
	return out
}

// commitActions are the actions of one commit file.
func commitActions(t testing.TB, dir string, v int64) []protocol.Action {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "_delta_log", strings.TrimPrefix(protocol.CommitKey(v), "_delta_log/")))
	if err != nil {
		t.Fatal(err)
	}
	var out []protocol.Action
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var a protocol.Action
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

func run(t testing.TB, dir string, opt optimize.Options) optimize.Stats {
	t.Helper()
	s, err := open(t, dir).Optimize(context.Background(), opt)
	if err != nil {
		t.Fatalf("optimize %+v: %v", opt, err)
	}
	return s
}

// TestCompactsSmallFiles: the four one-row files of partition a become
// one file with the same rows; partition b's single file is left; the
// commit is OPTIMIZE with dataChange=false actions carrying statistics
// and delta-rs's parameters and metrics.
func TestCompactsSmallFiles(t *testing.T) {
	dir := smallFiles(t, map[string]int{"a": 4, "b": 1})
	before := rows(t, dir)
	s := run(t, dir, optimize.Options{})
	if s.Version != 5 || s.Commits != 1 || s.FilesRemoved.TotalFiles != 4 || s.FilesAdded.TotalFiles != 1 ||
		s.ConsideredFiles != 5 || s.SkippedFiles != 1 || s.PartitionsOptimized != 1 || s.RowsRewritten != 4 || s.Batches < 4 {
		t.Fatalf("stats %s", s)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	if got := filesByPartition(t, dir, "p"); got["a"] != 1 || got["b"] != 1 {
		t.Fatalf("files per partition after: %v", got)
	}

	acts := commitActions(t, dir, 5)
	ci := acts[0].CommitInfo
	if ci == nil || ci.Operation != "OPTIMIZE" {
		t.Fatalf("first action %+v", acts[0])
	}
	wantParams := map[string]string{"predicate": "[]", "targetSize": "104857600", "zOrderBy": "[]"}
	for k, v := range wantParams {
		if ci.OperationParameters[k] != v {
			t.Errorf("operationParameters[%s] = %q, want %q", k, ci.OperationParameters[k], v)
		}
	}
	m, _ := ci.Raw["operationMetrics"].(map[string]any)
	for k, v := range map[string]any{"numFilesAdded": 1.0, "numFilesRemoved": 4.0, "partitionsOptimized": 1.0,
		"totalConsideredFiles": 5.0, "totalFilesSkipped": 1.0, "preserveInsertionOrder": true} {
		if m[k] != v {
			t.Errorf("operationMetrics[%s] = %v (%T), want %v", k, m[k], m[k], v)
		}
	}
	var removed map[string]any
	if err := json.Unmarshal([]byte(m["filesRemoved"].(string)), &removed); err != nil || removed["totalFiles"] != 4.0 ||
		removed["totalSize"] != float64(s.FilesRemoved.TotalSize) || removed["min"] == 0.0 {
		t.Errorf("filesRemoved %v: %v", m["filesRemoved"], err)
	}
	if !strings.Contains(m["filesAdded"].(string), `"avg":`) || !strings.HasPrefix(m["filesAdded"].(string), `{"avg":`) {
		t.Errorf("filesAdded %v", m["filesAdded"])
	}
	var adds, removes int
	for _, a := range acts[1:] {
		switch {
		case a.Add != nil:
			adds++
			if a.Add.DataChange || a.Add.PartitionValues["p"] != "a" || !strings.Contains(a.Add.Stats, `"numRecords":4`) ||
				!strings.HasPrefix(a.Add.Path, "p=a/") {
				t.Errorf("add %+v", a.Add)
			}
		case a.Remove != nil:
			removes++
			if a.Remove.DataChange || a.Remove.PartitionValues["p"] != "a" || a.Remove.Size == nil {
				t.Errorf("remove %+v", a.Remove)
			}
		}
	}
	if adds != 1 || removes != 4 {
		t.Fatalf("%d adds, %d removes", adds, removes)
	}

	// Nothing left to do: no commit, and the stats say so.
	s = run(t, dir, optimize.Options{})
	if s.Version != 5 || s.Commits != 0 || s.FilesAdded.TotalFiles != 0 || s.ConsideredFiles != 2 || s.SkippedFiles != 2 {
		t.Fatalf("second run %s", s)
	}
	if v := open(t, dir).Version(); v != 5 {
		t.Fatalf("version %d after a run with nothing to do", v)
	}
}

// TestBinPacking: with a target of a little over two files, six files of
// one partition make three bins of two, each written as one file; files
// at or over the target are left; bins under MinInputFiles are skipped.
func TestBinPacking(t *testing.T) {
	dir := smallFiles(t, map[string]int{"a": 6})
	size := open(t, dir).Snapshot().Files()[0].Size
	before := rows(t, dir)

	s := run(t, dir, optimize.Options{TargetSize: size, MinInputFiles: 1})
	if s.Commits != 0 || s.SkippedFiles != 6 {
		t.Fatalf("target at the file size: %s", s)
	}
	s = run(t, dir, optimize.Options{TargetSize: size*2 + size/2, MinInputFiles: 3})
	if s.Commits != 0 || s.SkippedFiles != 6 {
		t.Fatalf("bins of two under MinInputFiles 3: %s", s)
	}
	s = run(t, dir, optimize.Options{TargetSize: size*2 + size/2, MaxConcurrentTasks: 2})
	if s.Commits != 1 || s.FilesRemoved.TotalFiles != 6 || s.FilesAdded.TotalFiles != 3 || s.Batches != 6 {
		t.Fatalf("three bins of two: %s", s)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	// Each new file holds two neighbouring rows: next fit in write order.
	for _, a := range open(t, dir).Snapshot().Files() {
		if !strings.Contains(a.Stats, `"numRecords":2`) {
			t.Fatalf("file %s stats %s", a.Path, a.Stats)
		}
		var st struct{ MinValues, MaxValues map[string]any }
		_ = json.Unmarshal([]byte(a.Stats), &st)
		if lo, hi := st.MinValues["id"].(float64), st.MaxValues["id"].(float64); hi != lo+1 || int(lo)%2 != 1 {
			t.Fatalf("file %s holds ids %v..%v, want two neighbours", a.Path, lo, hi)
		}
	}
}

// TestPartitionSelection: Where and DNF partition filters restrict the
// partitions compacted; a filter value is cast to the column's type.
func TestPartitionSelection(t *testing.T) {
	cases := []struct {
		name string
		opt  optimize.Options
		want map[string]int // files per partition after
		pred string         // operationParameters.predicate
	}{
		{"where", optimize.Options{Predicate: "p = 'a' OR p > 'c'"}, map[string]int{"a": 1, "b": 2, "c": 2, "d": 1},
			`["p = 'a' OR p > 'c'"]`},
		{"in", optimize.Options{PartitionFilters: [][]scan.Filter{{{Column: "p", Op: "in", Value: []string{"b", "c"}}}}},
			map[string]int{"a": 2, "b": 1, "c": 1, "d": 2}, `["p IN ('b', 'c')"]`},
		{"dnf", optimize.Options{PartitionFilters: [][]scan.Filter{
			{{Column: "p", Op: "=", Value: "a"}}, {{Column: "p", Op: ">=", Value: "c"}, {Column: "p", Op: "not in", Value: []any{"c"}}}}},
			map[string]int{"a": 1, "b": 2, "c": 2, "d": 1}, ""},
		{"both", optimize.Options{Predicate: "p != 'a'", PartitionFilters: [][]scan.Filter{{{Column: "p", Op: "<", Value: "c"}}}},
			map[string]int{"a": 2, "b": 1, "c": 2, "d": 2}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := smallFiles(t, map[string]int{"a": 2, "b": 2, "c": 2, "d": 2})
			s := run(t, dir, c.opt)
			if got := filesByPartition(t, dir, "p"); !maps(got, c.want) {
				t.Fatalf("files per partition %v, want %v (%s)", got, c.want, s)
			}
			if s.ConsideredFiles != 2*countOne(c.want) {
				t.Fatalf("considered %d for %v", s.ConsideredFiles, c.want)
			}
			if c.pred != "" {
				ci := commitActions(t, dir, s.Version)[0].CommitInfo
				if got := ci.OperationParameters["predicate"]; got != c.pred {
					t.Fatalf("predicate parameter %s, want %s", got, c.pred)
				}
			}
		})
	}
}

func countOne(m map[string]int) int {
	n := 0
	for _, v := range m {
		if v == 1 {
			n++
		}
	}
	return n
}

func maps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestTypedPartitionFilter: filters on an integer partition column
// compare numbers, not text ("10" > "9").
func TestTypedPartitionFilter(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		for _, q := range []string{"9", "10"} {
			appendRows(t, dir, `[{"id":`+itoa(i)+`,"p":"x","q":`+q+`}]`, "q")
		}
	}
	s := run(t, dir, optimize.Options{PartitionFilters: [][]scan.Filter{{{Column: "q", Op: ">", Value: 9}}}})
	if got := filesByPartition(t, dir, "q"); got["10"] != 1 || got["9"] != 3 {
		t.Fatalf("files per partition %v (%s)", got, s)
	}
}

// TestBadSelection: a predicate or filter that is not over partition
// columns, or does not parse, fails naming what is wrong, and nothing is
// committed.
func TestBadSelection(t *testing.T) {
	dir := smallFiles(t, map[string]int{"a": 2})
	for _, c := range []struct {
		opt  optimize.Options
		want string
	}{
		{optimize.Options{Predicate: "id > 1"}, "id is not one (partition columns: p)"},
		{optimize.Options{Predicate: "p = 'a' AND s = 'x'"}, "s is not one"},
		{optimize.Options{Predicate: "p = "}, "OPTIMIZE predicate"},
		{optimize.Options{Predicate: "nope = 1"}, "nope"},
		{optimize.Options{PartitionFilters: [][]scan.Filter{{{Column: "p", Op: "like", Value: "a"}}}}, `operator "like" of column p`},
		{optimize.Options{PartitionFilters: [][]scan.Filter{{{Column: "p", Op: "in", Value: "a"}}}}, "needs a list"},
		{optimize.Options{PartitionFilters: [][]scan.Filter{{{Column: "id", Op: "=", Value: "1"}}}}, "id is not one"},
		{optimize.Options{TargetFileSize: -1}, "TargetFileSize must not be negative"},
	} {
		_, err := open(t, dir).Optimize(context.Background(), c.opt)
		if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an invalid-argument error with %q", c.opt, err, c.want)
		}
	}
	if v := open(t, dir).Version(); v != 1 {
		t.Fatalf("version %d after refused runs", v)
	}
}

// copyCorpus copies a conformance table to a temporary directory.
func copyCorpus(t *testing.T, rel string) string {
	t.Helper()
	src := corpus.Path(t, rel)
	dst := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestDeletionVectorsDropped: files with deletion vectors are rewritten
// without their deleted rows, a single such file included; the rows read
// are the same and no live file keeps a deletion vector.
func TestDeletionVectorsDropped(t *testing.T) {
	for _, rel := range []string{"dat/deletion_vectors/delta", "golden/dv-partitioned-with-checkpoint/delta"} {
		t.Run(rel, func(t *testing.T) {
			dir := copyCorpus(t, rel)
			before := rows(t, dir)
			var hidden int64
			for _, a := range open(t, dir).Snapshot().Files() {
				if a.DeletionVector != nil {
					hidden += a.DeletionVector.Cardinality
				}
			}
			if hidden == 0 {
				t.Fatal("the table has no deletion vector")
			}
			s := run(t, dir, optimize.Options{})
			if s.RowsDropped != hidden || s.Commits != 1 {
				t.Fatalf("dropped %d rows, deletion vectors hid %d (%s)", s.RowsDropped, hidden, s)
			}
			arrowrows.Diff(t, rows(t, dir), before)
			for _, a := range open(t, dir).Snapshot().Files() {
				if a.DeletionVector != nil {
					t.Fatalf("file %s still has a deletion vector", a.Path)
				}
			}
		})
	}
}

// TestColumnMappingAndPartitionsKept: on a name-mapped table (with a
// renamed column) and on a partitioned id-mapped one, compaction keeps the
// rows, the partition values, and writes physical names.
func TestColumnMappingAndPartitionsKept(t *testing.T) {
	dir := copyCorpus(t, "dat/column_mapping/delta")
	before := rows(t, dir)
	s := run(t, dir, optimize.Options{})
	if s.FilesRemoved.TotalFiles != 2 || s.FilesAdded.TotalFiles != 1 {
		t.Fatalf("stats %s", s)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	snap := open(t, dir).Snapshot()
	a := snap.Files()[0]
	if strings.Contains(a.Stats, `"new_int"`) || !strings.Contains(a.Stats, `"col-`) {
		t.Fatalf("stats of the new file do not use physical names: %s", a.Stats)
	}

	dir = copyCorpus(t, "delta-rs/table_with_column_mapping")
	before = rows(t, dir)
	parts := map[string]int{}
	for _, a := range open(t, dir).Snapshot().Files() {
		parts[partitionText(a.PartitionValues)]++
	}
	// A second append per partition gives each one two files to compact.
	tb := open(t, dir)
	_, seq, err := tb.Scan().Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	rr, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Write(context.Background(), rr, deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
		t.Fatal(err)
	}
	before = append(before, before...)
	slices.Sort(before)
	s = run(t, dir, optimize.Options{})
	if s.FilesAdded.TotalFiles != len(parts) || s.FilesRemoved.TotalFiles != 2*len(parts) {
		t.Fatalf("stats %s for partitions %v", s, parts)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	after := map[string]int{}
	for _, a := range open(t, dir).Snapshot().Files() {
		after[partitionText(a.PartitionValues)]++
	}
	for k := range parts {
		if after[k] != 1 {
			t.Fatalf("partitions after %v, before %v", after, parts)
		}
	}
}

func partitionText(v map[string]string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMinCommitInterval: a run whose interval passes after every bin
// makes one OPTIMIZE commit per bin, with the counts split between them.
func TestMinCommitInterval(t *testing.T) {
	dir := smallFiles(t, map[string]int{"a": 2, "b": 2, "c": 2})
	before := rows(t, dir)
	var progress []optimize.Progress
	s := run(t, dir, optimize.Options{MinCommitInterval: 1, MaxConcurrentTasks: 1,
		Progress: func(p optimize.Progress) { progress = append(progress, p) }})
	if s.Commits != 3 || s.Version != 8 || s.FilesRemoved.TotalFiles != 6 || s.FilesAdded.TotalFiles != 3 ||
		s.ConsideredFiles != 6 || s.PartitionsOptimized != 3 {
		t.Fatalf("stats %s", s)
	}
	if len(progress) != 3 || progress[2].BinsDone != 3 || progress[2].Bins != 3 || progress[2].FilesRemoved != 6 {
		t.Fatalf("progress %+v", progress)
	}
	arrowrows.Diff(t, rows(t, dir), before)
	total := 0.0
	for v := int64(6); v <= 8; v++ {
		ci := commitActions(t, dir, v)[0].CommitInfo
		m, _ := ci.Raw["operationMetrics"].(map[string]any)
		if ci.Operation != "OPTIMIZE" || m["numFilesRemoved"] != 2.0 {
			t.Fatalf("commit %d: %s %v", v, ci.Operation, m)
		}
		total += m["totalConsideredFiles"].(float64)
	}
	if total != 6 {
		t.Fatalf("totalConsideredFiles over the commits: %v", total)
	}
}

// TestStatsJSON: the stats survive their JSON form.
func TestStatsJSON(t *testing.T) {
	dir := smallFiles(t, map[string]int{"a": 3})
	s := run(t, dir, optimize.Options{})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back optimize.Stats
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	s.ExecutionDuration = s.ExecutionDuration.Truncate(1e6)
	if back != s || !strings.Contains(string(b), `"numFilesRemoved":3`) {
		t.Fatalf("%s -> %+v, want %+v", b, back, s)
	}
}

// TestAppendOnlyAndChangeFeedTables: a compaction removes no data, so an
// append-only table and one with the change data feed are compacted
// (Spark's rule), with no change data files.
func TestAppendOnlyAndChangeFeedTables(t *testing.T) {
	for _, prop := range []string{"delta.appendOnly", "delta.enableChangeDataFeed"} {
		t.Run(prop, func(t *testing.T) {
			dir := t.TempDir()
			for i := range 3 {
				rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, testSchema,
					strings.NewReader(`[{"id":`+itoa(i)+`,"s":"x","p":"a","q":1}]`))
				if err != nil {
					t.Fatal(err)
				}
				rr, _ := array.NewRecordReader(testSchema, []arrow.RecordBatch{rec})
				wo := deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"p"}}
				if i == 0 {
					wo.Properties = map[string]string{prop: "true"}
				}
				if _, err := deltalite.Write(context.Background(), dir, rr, wo); err != nil {
					t.Fatal(err)
				}
				rec.Release()
			}
			before := rows(t, dir)
			if s := run(t, dir, optimize.Options{}); s.FilesRemoved.TotalFiles != 3 || s.FilesAdded.TotalFiles != 1 {
				t.Fatalf("stats %s", s)
			}
			arrowrows.Diff(t, rows(t, dir), before)
			for _, a := range commitActions(t, dir, 3) {
				if a.CDC != nil {
					t.Fatalf("change data file %s written by a compaction", a.CDC.Path)
				}
			}
		})
	}
}
