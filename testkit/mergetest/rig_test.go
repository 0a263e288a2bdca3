package mergetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/del"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// script is the reference side, relative to the repository's python/
// directory (where peers looks for scripts).
const script = "../testkit/mergetest/testdata/deltars_ops.py"

func arrowType(k kind) arrow.DataType {
	switch k {
	case kInt64:
		return arrow.PrimitiveTypes.Int64
	case kInt32:
		return arrow.PrimitiveTypes.Int32
	case kString:
		return arrow.BinaryTypes.String
	case kFloat64:
		return arrow.PrimitiveTypes.Float64
	case kDecimal:
		return &arrow.Decimal128Type{Precision: 10, Scale: 2}
	case kDecimal8:
		return &arrow.Decimal128Type{Precision: 8, Scale: 2}
	case kFloat32:
		return arrow.PrimitiveTypes.Float32
	case kDate:
		return arrow.FixedWidthTypes.Date32
	case kTS:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case kBool:
		return arrow.FixedWidthTypes.Boolean
	}
	panic("unknown kind")
}

// record builds a batch of rows over cols; a nil value is NULL.
func record(cols []column, rows [][]any) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: arrowType(c.kind), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			fb := b.Field(i)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.Int64Builder:
				fb.Append(v.(int64))
			case *array.Int32Builder:
				fb.Append(int32(v.(int64)))
			case *array.StringBuilder:
				fb.Append(v.(string))
			case *array.Float64Builder:
				fb.Append(v.(float64))
			case *array.Float32Builder:
				fb.Append(float32(v.(float64)))
			case *array.Decimal128Builder:
				fb.Append(decimal128.FromI64(v.(int64)))
			case *array.Date32Builder:
				fb.Append(arrow.Date32(v.(int64)))
			case *array.TimestampBuilder:
				fb.Append(arrow.Timestamp(v.(int64)))
			case *array.BooleanBuilder:
				fb.Append(v.(bool))
			}
		}
	}
	return b.NewRecordBatch()
}

// writeParquet writes rows as a Parquet file with the Arrow schema stored,
// so that pyarrow reads back the exact types (int32 stays int32).
func writeParquet(t testing.TB, path string, cols []column, rows [][]any) {
	t.Helper()
	rec := record(cols, rows)
	defer rec.Release()
	tbl := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
	defer tbl.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = pqarrow.WriteTable(tbl, f, 1<<20, parquet.NewWriterProperties(),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
}

// content reads the table at uri, freshly opened, as sorted canonical rows
// with its version and its columns ("name type", sorted: see columnsOf).
func content(t testing.TB, uri string) (rows []string, version int64, columns []string) {
	t.Helper()
	ctx := context.Background()
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatalf("open %s: %v", uri, err)
	}
	sch, batches, err := tb.Scan().Records(ctx)
	if err != nil {
		t.Fatalf("scan %s: %v", uri, err)
	}
	for rec, err := range batches {
		if err != nil {
			t.Fatalf("scan %s: %v", uri, err)
		}
		rows = append(rows, arrowrows.Rows(rec)...)
	}
	slices.Sort(rows)
	return rows, tb.Version(), columnsOf(sch)
}

// columnsOf lists a schema's columns as "name type", sorted: delta-rs's
// reader may put partition columns last, and readers differ in string and
// timestamp representations that say nothing of the table's types.
func columnsOf(sch *arrow.Schema) []string {
	var out []string
	for _, f := range sch.Fields() {
		typ := f.Type.String()
		switch dt := f.Type.(type) {
		case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
			typ = "string"
		case *arrow.TimestampType:
			typ = "timestamp"
			if dt.TimeZone == "" {
				typ = "timestamp_ntz"
			}
		}
		out = append(out, f.Name+" "+typ)
	}
	slices.Sort(out)
	return out
}

// refStep is the reference's report of one step.
type refStep struct {
	OK      bool           `json:"ok"`
	Error   string         `json:"error"`
	Metrics map[string]any `json:"metrics"`
	Version int64          `json:"version"`
	Seconds float64        `json:"seconds"`
}

// reference runs the scenario's steps through delta-rs in one process:
// it builds the table at dir/ref from the initial rows, copies it to
// dir/ours for the engine, and returns each step's report and content.
// skip marks the steps delta-rs must not run.
func reference(t *testing.T, sc *scenario, dir string, skip []bool) ([]refStep, []peers.Table) {
	t.Helper()
	var files []string
	per := (len(sc.initRows) + sc.appends - 1) / sc.appends
	for i, rows := range slices.Collect(slices.Chunk(sc.initRows, per)) {
		p := filepath.Join(dir, fmt.Sprintf("init%d.parquet", i))
		writeParquet(t, p, sc.cols, rows)
		files = append(files, p)
	}
	var parts []string
	if sc.partitioned {
		parts = []string{"grp"}
	}
	steps := make([]map[string]any, len(sc.steps))
	for i, st := range sc.steps {
		s := map[string]any{"op": st.op, "out": filepath.Join(dir, fmt.Sprintf("ref%d.json", i))}
		switch {
		case skip[i]:
			s["op"] = "skip"
		case st.op == opMerge:
			src := filepath.Join(dir, fmt.Sprintf("source%d.parquet", i))
			writeParquet(t, src, st.srcCols, st.srcRows)
			var clauses []map[string]any
			for _, c := range st.clauses {
				clauses = append(clauses, map[string]any{"when": c.When.String(), "action": c.Action.String(),
					"predicate": c.Predicate, "updates": c.Set, "except_cols": c.Except})
			}
			s["source"], s["predicate"], s["clauses"], s["schema_mode"] = src, st.predicate, clauses, st.schemaMode
		default:
			s["predicate"], s["updates"] = st.predicate, st.updates
		}
		steps[i] = s
	}
	spec, err := json.Marshal(map[string]any{
		"table": filepath.Join(dir, "ref"), "copy_to": filepath.Join(dir, "ours"), "partition_by": parts,
		"create": map[string]any{"files": files, "max_row_group_size": 8}, "steps": steps,
	})
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(specPath, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	out := peers.RunPythonWith(t, peers.Options{Timeout: 4 * time.Minute}, script, specPath)
	var run struct {
		Steps []refStep `json:"steps"`
	}
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("%s output %.300q: %v", script, out, err)
	}
	if len(run.Steps) != len(sc.steps) {
		t.Fatalf("%s reported %d steps, want %d", script, len(run.Steps), len(sc.steps))
	}
	tables := make([]peers.Table, len(sc.steps))
	for i := range sc.steps {
		doc, err := os.ReadFile(steps[i]["out"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if tables[i], err = peers.DecodeTable(doc); err != nil {
			t.Fatal(err)
		}
	}
	return run.Steps, tables
}

// counts are the metrics both engines report, under delta-rs's names.
type counts map[string]int64

// ours applies one step to the engine's table at uri and returns its
// counts under delta-rs's metric names, and whether it changed anything.
func ours(ctx context.Context, uri string, sc *scenario, st step) (counts, bool, error) {
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		return nil, false, err
	}
	switch st.op {
	case opMerge:
		rec := record(st.srcCols, st.srcRows)
		defer rec.Release()
		opts := deltalite.MergeOptions{Predicate: st.predicate, MergeType: merge.TypeCustom, Clauses: st.clauses,
			SchemaMode: st.schemaMode, TargetFileSize: 4 << 10, ReadBatchSize: 5 + int(sc.seed%20)}
		s, err := tb.MergeBatch(ctx, rec, opts)
		c := counts{"num_source_rows": s.SourceRows, "num_target_rows_inserted": s.TargetRowsInserted,
			"num_target_rows_updated": s.TargetRowsUpdated, "num_target_rows_deleted": s.TargetRowsDeleted}
		return c, s.TargetRowsInserted+s.TargetRowsUpdated+s.TargetRowsDeleted > 0, err
	case opDelete:
		s, err := tb.Delete(ctx, del.Options{Predicate: st.predicate, All: st.predicate == "", TargetFileSize: 4 << 10})
		return counts{"num_deleted_rows": s.RowsDeleted}, s.RowsDeleted > 0, err
	case opUpdate:
		s, err := tb.Update(ctx, deltalite.UpdateOptions{Set: st.updates, Predicate: st.predicate, All: st.predicate == "", TargetFileSize: 4 << 10})
		// Copied rows are not compared: delta-rs rewrites files this engine
		// proves hold no matching row.
		return counts{"num_updated_rows": s.RowsUpdated}, s.RowsUpdated > 0, err
	}
	return nil, false, fmt.Errorf("operation %s is not wired to the engine", st.op)
}

// runScenario applies every step to delta-rs's copy and the engine's and
// compares content and counts after each.
func runScenario(t *testing.T, sc *scenario, dvs bool) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	skip := make([]bool, len(sc.steps))
	for i, st := range sc.steps {
		skip[i] = st.multiMatch == sparkRefuses
	}
	started := time.Now()
	refs, tables := reference(t, sc, dir, skip)
	refTime := time.Since(started)
	uri := filepath.Join(dir, "ours")
	if dvs {
		tb, err := deltalite.Open(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.SetProperties(ctx, map[string]string{protocol.PropEnableDeletionVectors: "true"}, deltalite.PropertiesOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if tablerows.CommittedDeletionVector(t, uri) {
				dvScenarios.Add(1)
			}
		}()
	}
	prev, version, _ := content(t, uri)
	started = time.Now()
	for i, st := range sc.steps {
		got, changed, err := ours(ctx, uri, sc, st)
		if refuse := st.multiMatch == bothRefuse || st.multiMatch == sparkRefuses; refuse && hasKey(prev) {
			if !isInvalid(err) || !strings.Contains(err.Error(), "source rows match") {
				t.Errorf("%s: error %v, want an invalid-argument error: a target row matched by two source rows", st.label, err)
			}
		}
		if skip[i] {
			if !hasKey(prev) {
				t.Logf("%s: not compared: the table has no key to match twice, and delta-rs did not run it", st.label)
				break
			}
			t.Logf("%s: delta-rs not run: it takes a target row matched twice here, which Spark refuses", st.label)
		}
		ref := refs[i]
		rows, v, cols := content(t, uri)
		prev = rows
		switch {
		case skip[i]:
		case err != nil && ref.OK:
			t.Fatalf("%s: the engine failed where delta-rs did not: %v", st.label, err)
		case err != nil:
			t.Logf("%s: both refused it\n  engine: %v\n  delta-rs: %s", st.label, err, ref.Error)
		case !ref.OK:
			t.Fatalf("%s: delta-rs failed where the engine did not: %s", st.label, ref.Error)
		}
		if err != nil || !changed {
			if v != version {
				t.Errorf("%s: the table moved from version %d to %d without a change", st.label, version, v)
			}
		} else if v != version+1 {
			t.Errorf("%s: the table moved from version %d to %d, want one commit", st.label, version, v)
		}
		version = v
		want := tables[i].Lines(t)
		if !sameRows(t, st.label, rows, want) {
			t.FailNow()
		}
		refSchema, serr := tables[i].Schema()
		if serr != nil {
			t.Fatal(serr)
		}
		if refCols := columnsOf(refSchema); !slices.Equal(cols, refCols) {
			t.Errorf("%s: columns %v, delta-rs has %v", st.label, cols, refCols)
		}
		if err == nil {
			checkCounts(t, st.label, got, ref.Metrics)
		}
	}
	t.Logf("seed %d: %d steps, partitioned=%t, source casts %v; delta-rs %v, engine %v",
		sc.seed, len(sc.steps), sc.partitioned, sc.casts, refTime.Round(time.Millisecond), time.Since(started).Round(time.Millisecond))
}

// checkCounts compares the engine's counts with delta-rs's metrics; a
// metric delta-rs leaves out is not compared.
func checkCounts(t *testing.T, label string, got counts, ref map[string]any) {
	t.Helper()
	var diffs []string
	for k, g := range got {
		r, ok := ref[k].(float64)
		if !ok {
			continue
		}
		if int64(r) != g {
			diffs = append(diffs, fmt.Sprintf("%s: engine %d, delta-rs %d", k, g, int64(r)))
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		t.Errorf("%s: metrics differ:\n  %s", label, strings.Join(diffs, "\n  "))
	}
}

// sameRows reports whether the engine's rows equal delta-rs's as
// multisets, and says which rows differ when they do not.
func sameRows(t *testing.T, label string, got, want []string) bool {
	t.Helper()
	return sameRowsAs(t, label, got, want, "the engine's", "delta-rs's")
}

// sameRowsAs is sameRows naming the two sides.
func sameRowsAs(t *testing.T, label string, got, want []string, gotName, wantName string) bool {
	t.Helper()
	if slices.Equal(got, want) {
		return true
	}
	onlyGot, onlyWant := multisetDiff(got, want)
	t.Errorf("%s: %d rows in %s table, %d in %s\n  only in %s:\n    %s\n  only in %s:\n    %s",
		label, len(got), gotName, len(want), wantName, gotName, clip(onlyGot), wantName, clip(onlyWant))
	return false
}

// multisetDiff returns the rows only in a and only in b; both are sorted.
func multisetDiff(a, b []string) (onlyA, onlyB []string) {
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || (len(a) > 0 && a[0] < b[0]):
			onlyA, a = append(onlyA, a[0]), a[1:]
		case len(a) == 0 || b[0] < a[0]:
			onlyB, b = append(onlyB, b[0]), b[1:]
		default:
			a, b = a[1:], b[1:]
		}
	}
	return onlyA, onlyB
}

func clip(rows []string) string {
	if len(rows) == 0 {
		return "(none)"
	}
	if len(rows) > 10 {
		return strings.Join(rows[:10], "\n    ") + fmt.Sprintf("\n    ... (%d more)", len(rows)-10)
	}
	return strings.Join(rows, "\n    ")
}

// isInvalid reports an invalid-argument error from the engine.
func isInvalid(err error) bool { return errors.Is(err, deltalite.ErrInvalidArgument) }

// dvScenarios counts the scenarios run with deletion vectors on in which
// a commit of ours added one.
var dvScenarios atomic.Int64
