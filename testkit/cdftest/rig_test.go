package cdftest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

var (
	nSeeds      = flag.Int("cdftest.seeds", 0, "sequences the engine writes (default 100, 10 with -short)")
	nSparkSeeds = flag.Int("cdftest.spark-seeds", 0, "sequences Spark writes (default 3, 1 with -short)")
	oneSeed     = flag.Uint64("cdftest.seed", 0, "run this seed only")
)

// opsPerSequence is the operations after the table's first rows.
const opsPerSequence = 6

// seeds are the seeds of a test: -cdftest.seed alone, else 1..n with n
// from the flag, else def (short in -short mode).
func seeds(flagN, def, short int) []uint64 {
	if *oneSeed != 0 {
		return []uint64{*oneSeed}
	}
	n := def
	if testing.Short() {
		n = short
	}
	if flagN > 0 {
		n = flagN
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

// reproduce is the line a failing seed prints, then its statements.
func reproduce(test string, sq *sequence) string {
	return fmt.Sprintf("reproduce: go test ./testkit/cdftest/ -run '%s' -cdftest.seed=%d -v\n%s", test, sq.seed, sq.describe())
}

// columns are the change rows' columns every reader is asked for.
var columns = []string{"id", "grp", "n", "w", "_change_type", "_commit_version"}

var tableSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "grp", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "w", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// record builds rows as a batch of the table's schema, plus the change
// columns when kinds and versions are given.
func record(rows []row, kinds []string, versions []int64) arrow.RecordBatch {
	fields := tableSchema.Fields()
	if kinds != nil {
		fields = append(fields, arrow.Field{Name: "_change_type", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "_commit_version", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		b.Field(1).(*array.StringBuilder).Append(r.grp)
		if r.n == nil {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Int64Builder).Append(r.n.(int64))
		}
		if r.w == nil {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.StringBuilder).Append(r.w.(string))
		}
		if kinds != nil {
			b.Field(4).(*array.StringBuilder).Append(kinds[i])
			b.Field(5).(*array.Int64Builder).Append(versions[i])
		}
	}
	return b.NewRecordBatch()
}

func reader(rows []row) array.RecordReader {
	rec := record(rows, nil, nil)
	defer rec.Release()
	rr, err := array.NewRecordReader(tableSchema, []arrow.RecordBatch{rec})
	if err != nil {
		panic(err) // the schema is the batch's own
	}
	return rr
}

// expected collects the model's change rows with the versions they landed
// in, as canonical lines.
type expected struct {
	rows     []row
	kinds    []string
	versions []int64
	version  int64 // the table's version after the last operation
}

// landed records that operation i's changes ch landed when the table went
// to version v: an operation that changes rows commits exactly one
// version; one that changes none may commit an empty one or none.
func (e *expected) landed(i int, o op, ch []change, v int64) error {
	prev := e.version
	e.version = v
	switch {
	case len(ch) > 0 && v != prev+1:
		return fmt.Errorf("op %d (%s) changed %d rows but the table went from version %d to %d", i, o.kind, len(ch), prev, v)
	case v != prev && v != prev+1:
		return fmt.Errorf("op %d (%s) moved the table from version %d to %d", i, o.kind, prev, v)
	}
	for _, c := range ch {
		e.rows, e.kinds, e.versions = append(e.rows, c.r), append(e.kinds, c.kind), append(e.versions, v)
	}
	return nil
}

func (e *expected) lines() []string {
	rec := record(e.rows, e.kinds, e.versions)
	defer rec.Release()
	return arrowrows.Rows(rec)
}

// clauses converts the model's clauses to the engine's.
func clauses(cs []mclause) []merge.Clause {
	out := make([]merge.Clause, len(cs))
	for i, c := range cs {
		out[i] = merge.Clause{When: c.when, Action: c.action}
		if c.cond != nil {
			out[i].Predicate = c.cond.sql
		}
		if len(c.set) > 0 {
			out[i].Set = map[string]string{}
			for _, a := range c.set {
				out[i].Set[a.col] = a.e.sql
			}
		}
	}
	return out
}

// runOne applies o to the engine's table at dir.
func runOne(ctx context.Context, dir string, sq *sequence, o op) error {
	switch o.kind {
	case opCreate, opAppend, opOverwrite, opReplaceWhere:
		wo := deltalite.WriteOptions{Mode: deltalite.ModeAppend}
		switch o.kind {
		case opCreate:
			wo = deltalite.WriteOptions{Mode: deltalite.ModeError, Properties: map[string]string{protocol.PropEnableChangeDataFeed: "true"}}
			if sq.partitioned {
				wo.PartitionBy = []string{"grp"}
			}
		case opOverwrite:
			wo.Mode = deltalite.ModeOverwrite
		case opReplaceWhere:
			wo.Mode, wo.ReplaceWhere = deltalite.ModeOverwrite, o.where.sql("")
		}
		rr := reader(o.rows)
		defer rr.Release()
		_, err := deltalite.Write(ctx, dir, rr, wo)
		return err
	}
	tb, err := deltalite.Open(ctx, dir)
	if err != nil {
		return err
	}
	switch o.kind {
	case opUpsert, opMerge:
		rec := record(o.rows, nil, nil)
		defer rec.Release()
		if o.kind == opUpsert {
			_, err = tb.UpsertBatch(ctx, rec, deltalite.UpsertOptions{PrimaryKeys: []string{"id"}})
			return err
		}
		_, err = tb.MergeBatch(ctx, rec, deltalite.MergeOptions{Predicate: "t.id = s.id", MergeType: merge.TypeCustom,
			Clauses: clauses(o.clauses), ReadBatchSize: 3 + int(sq.seed%7)})
		return err
	case opDelete:
		opts := deltalite.DeleteOptions{All: o.where == nil}
		if o.where != nil {
			opts.Predicate = o.where.sql("")
		}
		_, err = tb.Delete(ctx, opts)
		return err
	case opUpdate:
		opts := deltalite.UpdateOptions{All: o.where == nil, Set: map[string]string{}}
		if o.where != nil {
			opts.Predicate = o.where.sql("")
		}
		for _, a := range o.sets {
			opts.Set[a.col] = unqualified(a.e.sql)
		}
		_, err = tb.Update(ctx, opts)
		return err
	case opOptimize:
		_, err = tb.Optimize(ctx, deltalite.OptimizeOptions{})
		return err
	}
	return fmt.Errorf("operation %s is not wired to the engine", o.kind)
}

func version(ctx context.Context, dir string) (int64, error) {
	tb, err := deltalite.Open(ctx, dir)
	if err != nil {
		return 0, err
	}
	return tb.Version(), nil
}

// writeOurs runs sq with the engine on a new table at dir and returns the
// change rows the model expects of it.
func writeOurs(ctx context.Context, dir string, sq *sequence) ([]string, error) {
	e := &expected{version: -1}
	var table []row
	for i, o := range sq.ops {
		var ch []change
		table, ch = apply(table, o)
		if err := runOne(ctx, dir, sq, o); err != nil {
			return nil, fmt.Errorf("op %d (%s): %w", i, o.kind, err)
		}
		v, err := version(ctx, dir)
		if err != nil {
			return nil, err
		}
		if err := e.landed(i, o, ch, v); err != nil {
			return nil, err
		}
	}
	return e.lines(), nil
}

// ourChanges reads the whole change data feed of the table at dir with
// the engine, as canonical lines.
func ourChanges(ctx context.Context, dir string) ([]string, error) {
	tb, err := deltalite.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	rr, err := tb.Changes(ctx, deltalite.ChangesOptions{Columns: columns})
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var out []string
	for rr.Next() {
		out = append(out, arrowrows.Rows(rr.RecordBatch())...)
	}
	if err := rr.Err(); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// sparkChangesOp reads the change data feed of every table in dirs with
// Spark's table_changes into out: one query, a UNION ALL that tags each
// row with its table's index in _table, as one Spark job costs far less
// than a job a table.
func sparkChangesOp(dirs []string, out string) peers.Op {
	parts := make([]string, len(dirs))
	for i, d := range dirs {
		parts[i] = fmt.Sprintf("SELECT %s, %d AS _table FROM table_changes_by_path('%s', 0)", strings.Join(columns, ", "), i, d)
	}
	return peers.Op{"op": "sql", "out": out, "sql": strings.Join(parts, " UNION ALL ")}
}

// sparkLines splits what sparkChangesOp read into each table's change
// rows, as canonical lines.
func sparkLines(t *testing.T, res peers.Result, n int) [][]string {
	t.Helper()
	tb := res.Table(t)
	per := make([]peers.Table, n)
	for i := range per {
		per[i] = tb
		per[i].Rows = nil
		per[i].Fields = slices.DeleteFunc(slices.Clone(tb.Fields), func(f peers.Field) bool { return f.Name == "_table" })
	}
	for _, r := range tb.Rows {
		i, err := r["_table"].(json.Number).Int64()
		if err != nil || i < 0 || int(i) >= n {
			t.Fatalf("Spark's table_changes: row %v has no table index", r)
		}
		delete(r, "_table")
		per[i].Rows = append(per[i].Rows, r)
	}
	out := make([][]string, n)
	for i := range per {
		out[i] = per[i].Lines(t)
	}
	return out
}

// deltaRSChanges reads every table's change data feed with delta-rs's
// load_cdf in one Python process; a table delta-rs fails on has its error
// instead of rows.
func deltaRSChanges(t *testing.T, dirs []string) (lines [][]string, errs []string) {
	t.Helper()
	tmp := t.TempDir()
	var tables []map[string]any
	for i, d := range dirs {
		tables = append(tables, map[string]any{"path": d, "from": 0, "out": filepath.Join(tmp, fmt.Sprintf("%d.json", i))})
	}
	spec, err := json.Marshal(map[string]any{"columns": columns, "tables": tables})
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(tmp, "spec.json")
	if err := os.WriteFile(specPath, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	out := peers.RunPythonWith(t, peers.Options{Timeout: 5 * time.Minute}, "../testkit/cdftest/testdata/load_cdf.py", specPath)
	var res struct {
		Results []struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Results) != len(dirs) {
		t.Fatalf("load_cdf.py output %.300q: %v (%d results for %d tables)", out, err, len(res.Results), len(dirs))
	}
	lines, errs = make([][]string, len(dirs)), make([]string, len(dirs))
	for i, r := range res.Results {
		if !r.OK {
			errs[i] = r.Error
			continue
		}
		doc, err := os.ReadFile(tables[i]["out"].(string))
		if err != nil {
			t.Fatal(err)
		}
		tb, err := peers.DecodeTable(doc)
		if err != nil {
			t.Fatal(err)
		}
		lines[i] = tb.Lines(t)
	}
	return lines, errs
}
