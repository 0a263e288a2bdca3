package upsert

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

var byID = Options{PrimaryKeys: []string{"id"}}

// TestNullKeys: a null key never matches (neither a source nor a table
// null) and always inserts; two null-key rows are not duplicates.
func TestNullKeys(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d","val":"a"},{"id":null,"day":"d","val":"n1"}]`)
	s := tb.mustUpsert(nil, `[{"id":null,"day":"d","val":"n2"},{"id":null,"day":"d","val":"n3"},{"id":1,"day":"d","val":"A"}]`, byID)
	tb.checkRows(`[{"id":1,"day":"d","val":"A"},{"id":null,"day":"d","val":"n1"},{"id":null,"day":"d","val":"n2"},{"id":null,"day":"d","val":"n3"}]`)
	if s.NullPKRows != 2 || s.RowsInserted != 2 || s.RowsUpdated != 1 || s.RowsCopied != 1 {
		t.Errorf("stats %v", s)
	}
	// A batch of null keys only: nothing can match, no file is read.
	s = tb.mustUpsert(nil, `[{"id":null,"day":"d","val":"n4"}]`, byID)
	if s.FilesProbed != 0 || s.FilesRemoved != 0 || s.FilesCarriedOver != 1 || s.RowsInserted != 1 || s.NullPKRows != 1 {
		t.Errorf("null-only stats %v", s)
	}
}

// TestDuplicateKeys: two rows with one key in one partition are refused,
// naming the key; the table is untouched and no file is left behind. The
// same key in two partitions is two identities.
func TestDuplicateKeys(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d","val":"a"}]`)
	v := tb.snap.Version()
	_, err := tb.upsert(nil, `[{"id":7,"day":"d","val":"x"},{"id":1,"day":"e","val":"y"},{"id":7,"day":"d","val":"z"}]`, byID)
	if !isKind(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "id=7") || !strings.Contains(err.Error(), "day=d") {
		t.Fatalf("err = %v", err)
	}
	if tb.snap.Version() != v {
		t.Fatal("table changed")
	}
	tb.assertNoOrphans()
	tb.mustUpsert(nil, `[{"id":1,"day":"d","val":"b"},{"id":1,"day":"e","val":"c"}]`, byID)
	tb.checkRows(`[{"id":1,"day":"d","val":"b"},{"id":1,"day":"e","val":"c"}]`)
}

// TestEmptySource: no rows commit nothing, unless AllowEmptyCommit asks
// for one tagged commit without file actions.
func TestEmptySource(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d","val":"a"}]`)
	v := tb.snap.Version()
	s := tb.mustUpsert(nil, `[]`, byID)
	if s.Version != v || tb.snap.Version() != v || s.SourceRows != 0 {
		t.Fatalf("empty upsert committed: %v", s)
	}
	md := map[string]any{"run": "r1"}
	s = tb.mustUpsert(nil, `[]`, Options{PrimaryKeys: []string{"id"}, AllowEmptyCommit: true, CommitMetadata: md})
	if s.Version != v+1 {
		t.Fatalf("version %d", s.Version)
	}
	actions := commitActions(t, tb.st, s.Version)
	if len(actions) != 1 || actions[0].CommitInfo == nil || actions[0].CommitInfo.Raw["run"] != "r1" || actions[0].CommitInfo.Operation != "MERGE" {
		t.Fatalf("empty commit %s", mustJSON(actions))
	}
	tb.checkRows(`[{"id":1,"day":"d","val":"a"}]`)
}

// TestKeyMovesPartition: identity includes the partition, so a key seen
// in a new partition inserts there and its old row stays.
func TestKeyMovesPartition(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d1","val":"a"},{"id":2,"day":"d1","val":"b"}]`)
	s := tb.mustUpsert(nil, `[{"id":1,"day":"d2","val":"moved"}]`, byID)
	tb.checkRows(`[{"id":1,"day":"d1","val":"a"},{"id":2,"day":"d1","val":"b"},{"id":1,"day":"d2","val":"moved"}]`)
	if s.PartitionsTouched != 1 || s.RowsInserted != 1 || s.FilesRemoved != 0 || s.FilesCarriedOver != 0 {
		t.Errorf("stats %v", s)
	}
}

// TestDeletes: rows flagged by DeleteColumn remove their key; a delete of a
// missing key does nothing; the flag column is not written; a null flag
// upserts.
func TestDeletes(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d","val":"a"},{"id":2,"day":"d","val":"b"},{"id":3,"day":"d","val":"c"}]`)
	src := arrow.NewSchema(append(tb.arrowSchema().Fields(), arrow.Field{Name: "_deleted", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}), nil)
	s := tb.mustUpsert(src, `[{"id":1,"day":"d","val":"x","_deleted":true},{"id":2,"day":"d","val":"B","_deleted":false},
		{"id":8,"day":"d","val":"gone","_deleted":true},{"id":9,"day":"d","val":"new","_deleted":null}]`,
		Options{PrimaryKeys: []string{"id"}, DeleteColumn: "_deleted"})
	tb.checkRows(`[{"id":2,"day":"d","val":"B"},{"id":3,"day":"d","val":"c"},{"id":9,"day":"d","val":"new"}]`)
	want := Stats{Version: s.Version, PartitionsTouched: 1, FilesAdded: 1, FilesRemoved: 1, FilesProbed: 1,
		RowsUpdated: 1, RowsDeleted: 1, RowsInserted: 1, RowsCopied: 1, SourceRows: 4}
	if got := clearDurations(s); got != want {
		t.Errorf("stats\n got  %v\n want %v", got, want)
	}
	if tb.snap.Schema().Field("_deleted") != nil {
		t.Error("the delete column reached the table schema")
	}
	// Deleting every row of a file removes it and adds nothing.
	s = tb.mustUpsert(src, `[{"id":2,"day":"d","_deleted":true},{"id":3,"day":"d","_deleted":true},{"id":9,"day":"d","_deleted":true}]`,
		Options{PrimaryKeys: []string{"id"}, DeleteColumn: "_deleted"})
	tb.checkRows(`[]`)
	if s.FilesAdded != 0 || s.FilesRemoved != 1 || s.RowsDeleted != 3 {
		t.Errorf("stats %v", s)
	}
	// A delete column that is not boolean, or absent, is refused.
	bad := arrow.NewSchema(append(tb.arrowSchema().Fields(), arrow.Field{Name: "_deleted", Type: arrow.PrimitiveTypes.Int64}), nil)
	if _, err := tb.upsert(bad, `[{"id":1,"day":"d","_deleted":1}]`, Options{PrimaryKeys: []string{"id"}, DeleteColumn: "_deleted"}); !isKind(err, errs.ErrInvalidArgument) {
		t.Errorf("int delete column: %v", err)
	}
	if _, err := tb.upsert(nil, `[{"id":1,"day":"d"}]`, Options{PrimaryKeys: []string{"id"}, DeleteColumn: "_deleted"}); !isKind(err, errs.ErrInvalidArgument) {
		t.Errorf("absent delete column: %v", err)
	}
}

// TestAppTransactions: an (AppID, AppVersion) the table has seen is
// skipped and reported; a newer version applies; the txn action is in the
// log.
func TestAppTransactions(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	opt := Options{PrimaryKeys: []string{"id"}, AppID: "sync-1", AppVersion: 5}
	s := tb.mustUpsert(nil, `[{"id":1,"day":"d","val":"a"}]`, opt)
	if s.Skipped {
		t.Fatal("first delivery skipped")
	}
	if v, ok := tb.snap.AppTransactionVersion("sync-1"); !ok || v != 5 {
		t.Fatalf("app version %d %v", v, ok)
	}
	again := tb.mustUpsert(nil, `[{"id":1,"day":"d","val":"CHANGED"}]`, opt)
	if !again.Skipped || again.Version != s.Version || again.SourceRows != 0 {
		t.Fatalf("redelivery: %v", again)
	}
	opt.AppVersion = 4
	if older := tb.mustUpsert(nil, `[{"id":1,"day":"d","val":"OLD"}]`, opt); !older.Skipped {
		t.Fatal("older version applied")
	}
	opt.AppVersion = 6
	if newer := tb.mustUpsert(nil, `[{"id":1,"day":"d","val":"b"}]`, opt); newer.Skipped || newer.Version != s.Version+1 {
		t.Fatalf("newer: %v", newer)
	}
	tb.checkRows(`[{"id":1,"day":"d","val":"b"}]`)
	// A batch that changes nothing still records its delivery.
	opt.AppVersion = 7
	src := arrow.NewSchema(append(tb.arrowSchema().Fields(), arrow.Field{Name: "del", Type: arrow.FixedWidthTypes.Boolean}), nil)
	opt.DeleteColumn = "del"
	s = tb.mustUpsert(src, `[{"id":99,"day":"d","del":true}]`, opt)
	if v, _ := tb.snap.AppTransactionVersion("sync-1"); v != 7 || s.FilesAdded+s.FilesRemoved != 0 {
		t.Fatalf("no-op delivery: version %d, stats %v", v, s)
	}
}

// TestSchemaHandling: missing source columns are null (a matched row is
// replaced whole); a column the table lacks is a schema mismatch; values
// are cast to the table's types.
func TestSchemaHandling(t *testing.T) {
	tb := newTable(t, fields("id long", "day string", "val string", "n long"), []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d","val":"a","n":10}]`)
	narrow := arrow.NewSchema([]arrow.Field{
		{Name: "ID", Type: arrow.PrimitiveTypes.Int32}, {Name: "day", Type: arrow.BinaryTypes.LargeString},
		{Name: "n", Type: arrow.PrimitiveTypes.Int16}}, nil)
	tb.mustUpsert(narrow, `[{"ID":1,"day":"d","n":11},{"ID":2,"day":"d","n":12}]`, byID)
	tb.checkRows(`[{"id":1,"day":"d","val":null,"n":11},{"id":2,"day":"d","val":null,"n":12}]`)
	v := tb.snap.Version()
	extra := arrow.NewSchema(append(tb.arrowSchema().Fields(), arrow.Field{Name: "surprise", Type: arrow.PrimitiveTypes.Int64}), nil)
	_, err := tb.upsert(extra, `[{"id":1,"day":"d","surprise":1}]`, byID)
	if !isKind(err, errs.ErrSchemaMismatch) || !strings.Contains(err.Error(), "surprise") {
		t.Fatalf("extra column: %v", err)
	}
	noKey := arrow.NewSchema([]arrow.Field{{Name: "day", Type: arrow.BinaryTypes.String}}, nil)
	if _, err := tb.upsert(noKey, `[{"day":"d"}]`, byID); !isKind(err, errs.ErrSchemaMismatch) || !strings.Contains(err.Error(), `"id"`) {
		t.Fatalf("missing key column: %v", err)
	}
	noPart := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	if _, err := tb.upsert(noPart, `[{"id":3}]`, byID); !isKind(err, errs.ErrSchemaMismatch) || !strings.Contains(err.Error(), `"day"`) {
		t.Fatalf("missing partition column: %v", err)
	}
	if tb.snap.Version() != v {
		t.Fatal("a refused upsert changed the table")
	}
	tb.assertNoOrphans()
}

// TestArguments: bad options are invalid arguments, named.
func TestArguments(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	cases := []struct {
		opt  Options
		kind *errs.Error
		text string
	}{
		{Options{}, errs.ErrInvalidArgument, "primary key"},
		{Options{PrimaryKeys: []string{"nope"}}, errs.ErrSchemaMismatch, "nope"},
		{Options{PrimaryKeys: []string{"id", "ID"}}, errs.ErrInvalidArgument, "twice"},
		{Options{PrimaryKeys: []string{"id"}, PruneStrategy: "join"}, errs.ErrInvalidArgument, "join"},
		{Options{PrimaryKeys: []string{"id"}, PartitionBy: []string{"region"}}, errs.ErrInvalidArgument, "region"},
		{Options{PrimaryKeys: []string{"id"}, MaxParallelFiles: -1}, errs.ErrInvalidArgument, "MaxParallelFiles"},
		{Options{PrimaryKeys: []string{"id"}, DeleteColumn: "val"}, errs.ErrInvalidArgument, "val"},
		{Options{PrimaryKeys: []string{"id"}, AppVersion: 3}, errs.ErrInvalidArgument, "AppID"},
	}
	for _, c := range cases {
		_, err := tb.upsert(nil, `[{"id":1,"day":"d"}]`, c.opt)
		if !isKind(err, c.kind) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%+v: err = %v", c.opt, err)
		}
	}
	// The hint may name the partition column in any case; an unpartitioned
	// table ignores it.
	tb.mustUpsert(nil, `[{"id":1,"day":"d"}]`, Options{PrimaryKeys: []string{"id"}, PartitionBy: []string{"DAY"}})
	flat := newTable(t, basic, nil, nil)
	s := flat.mustUpsert(nil, `[{"id":1,"day":"d"},{"id":2,"day":"e"}]`, Options{PrimaryKeys: []string{"id"}, PartitionBy: []string{"day"}})
	if s.PartitionsTouched != 1 {
		t.Errorf("unpartitioned: %v", s)
	}
	s = flat.mustUpsert(nil, `[{"id":1,"day":"x"}]`, Options{PrimaryKeys: []string{"id"}, PartitionBy: []string{"day"}})
	if s.RowsUpdated != 1 {
		t.Errorf("unpartitioned identity is the key alone: %v", s)
	}
	flat.checkRows(`[{"id":1,"day":"x","val":null},{"id":2,"day":"e","val":null}]`)
}

// TestUnsupportedTables: features the engine cannot keep are refused by
// name before anything is written (the change data feed with column
// mapping); append-only tables take inserts only.
func TestUnsupportedTables(t *testing.T) {
	cdf := newTable(t, basic, nil, map[string]string{"delta.enableChangeDataFeed": "true", "delta.columnMapping.mode": "name"})
	if _, err := cdf.upsert(nil, `[{"id":1}]`, byID); !isKind(err, errs.ErrUnsupportedTable) || !strings.Contains(err.Error(), "changeDataFeed") {
		t.Errorf("CDF: %v", err)
	}
	ao := newTable(t, basic, nil, map[string]string{"delta.appendOnly": "true"})
	ao.mustUpsert(nil, `[{"id":1,"val":"a"}]`, byID) // inserts are fine
	if _, err := ao.upsert(nil, `[{"id":1,"val":"b"}]`, byID); !isKind(err, errs.ErrUnsupportedTable) || !strings.Contains(err.Error(), "append-only") {
		t.Errorf("append-only update: %v", err)
	}
	ao.checkRows(`[{"id":1,"day":null,"val":"a"}]`)
	ao.assertNoOrphans()
}

// TestStatsForms: String and JSON use the Python engine's names.
func TestStatsForms(t *testing.T) {
	s := Stats{Version: 3, PartitionsTouched: 2, RowsUpdated: 5, PlanDuration: 1500000, CommitDuration: 2e6}
	if str := s.String(); !strings.HasPrefix(str, "UpsertStats(version=3, ") || !strings.Contains(str, "rows_updated=5") || !strings.Contains(str, "plan_ms=1") {
		t.Errorf("String %s", str)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "partitions_touched", "files_added", "files_removed", "files_carried_over", "files_probed",
		"rows_updated", "rows_inserted", "rows_copied", "source_rows", "null_pk_rows", "plan_ms", "rewrite_ms", "commit_ms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if m["commit_ms"] != float64(2) {
		t.Errorf("commit_ms %v", m["commit_ms"])
	}
	var back Stats
	if err := json.Unmarshal(b, &back); err != nil || back.RowsUpdated != 5 || back.CommitDuration != 2e6 {
		t.Errorf("round trip %v %v", back, err)
	}
}

// TestCommitRecord: one MERGE commit with the caller's metadata, the
// operation metrics, removes carrying their file's metadata.
func TestCommitRecord(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d","val":"a"},{"id":2,"day":"d","val":"b"}]`)
	old := tb.snap.Files()[0]
	s := tb.mustUpsert(nil, `[{"id":1,"day":"d","val":"A"},{"id":3,"day":"e","val":"c"}]`,
		Options{PrimaryKeys: []string{"id"}, CommitMetadata: map[string]any{"batch": "7"}})
	actions := commitActions(t, tb.st, s.Version)
	ci := actions[0].CommitInfo
	if ci == nil || ci.Operation != "MERGE" || ci.Raw["batch"] != "7" {
		t.Fatalf("commitInfo %s", mustJSON(ci))
	}
	om, _ := ci.Raw["operationMetrics"].(map[string]any)
	if om["numTargetRowsUpdated"] != "1" || om["numTargetRowsInserted"] != "1" || om["numTargetRowsCopied"] != "1" || om["numSourceRows"] != "2" {
		t.Errorf("operationMetrics %v", om)
	}
	if p, _ := ci.OperationParameters["predicate"].(string); !strings.Contains(p, "source.`id` = target.`id`") || !strings.Contains(p, "`day`") {
		t.Errorf("predicate %q", p)
	}
	var removes, adds int
	for _, a := range actions[1:] {
		switch {
		case a.Remove != nil:
			removes++
			r := a.Remove
			if r.Path != old.Path || !r.DataChange || r.Size == nil || *r.Size != old.Size || r.PartitionValues["day"] != "d" || r.DeletionTimestamp == nil {
				t.Errorf("remove %s", mustJSON(r))
			}
		case a.Add != nil:
			adds++
			if !a.Add.DataChange || a.Add.Stats == "" {
				t.Errorf("add %s", mustJSON(a.Add))
			}
		}
	}
	if removes != 1 || adds != 2 {
		t.Errorf("%d removes, %d adds", removes, adds)
	}
}

func commitActions(t *testing.T, st storage.Store, v int64) []protocol.Action {
	t.Helper()
	data, err := storage.ReadAll(context.Background(), st, protocol.CommitKey(v))
	if err != nil {
		t.Fatal(err)
	}
	actions, err := protocol.DecodeCommit(data)
	if err != nil {
		t.Fatal(err)
	}
	return actions
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSourceAcrossBatches: keys of one partition spread over source
// batches; duplicates across batches are found too.
func TestSourceAcrossBatches(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d","val":"a"},{"id":2,"day":"e","val":"b"}]`)
	as := tb.arrowSchema()
	b1 := batchOf(t, as, `[{"id":1,"day":"d","val":"A"},{"id":3,"day":"e","val":"c"}]`)
	b2 := batchOf(t, as, `[]`)
	b3 := batchOf(t, as, `[{"id":2,"day":"e","val":"B"},{"id":4,"day":"d","val":"x"}]`)
	defer b1.Release()
	defer b2.Release()
	defer b3.Release()
	s, err := tb.upsertBatches(byID, b1, b2, b3)
	if err != nil {
		t.Fatal(err)
	}
	tb.checkRows(`[{"id":1,"day":"d","val":"A"},{"id":2,"day":"e","val":"B"},{"id":3,"day":"e","val":"c"},{"id":4,"day":"d","val":"x"}]`)
	if s.SourceRows != 4 || s.RowsUpdated != 2 || s.RowsInserted != 2 {
		t.Errorf("stats %v", s)
	}
	b4 := batchOf(t, as, `[{"id":3,"day":"e","val":"again"}]`)
	defer b4.Release()
	if _, err := tb.upsertBatches(byID, b1, b4, b3, b4); !isKind(err, errs.ErrInvalidArgument) {
		t.Errorf("duplicate across batches: %v", err)
	}
	// A reader that fails mid-stream fails the upsert.
	rr := &failingReader{schema: as, recs: []arrow.RecordBatch{b1}}
	if _, _, err := Run(context.Background(), tb.snap, rr, quiet(byID)); err == nil || !strings.Contains(err.Error(), "source broke") {
		t.Errorf("failing reader: %v", err)
	}
}

type failingReader struct {
	schema *arrow.Schema
	recs   []arrow.RecordBatch
	cur    arrow.RecordBatch
	done   bool
}

func (r *failingReader) Retain()                        {}
func (r *failingReader) Release()                       {}
func (r *failingReader) Schema() *arrow.Schema          { return r.schema }
func (r *failingReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *failingReader) Record() arrow.RecordBatch      { return r.cur }
func (r *failingReader) Next() bool {
	if len(r.recs) == 0 {
		r.done = true
		return false
	}
	r.cur, r.recs = r.recs[0], r.recs[1:]
	return true
}
func (r *failingReader) Err() error {
	if r.done {
		return errSourceBroke
	}
	return nil
}

var errSourceBroke = &errs.Error{Kind: errs.Internal, Msg: "source broke"}

var _ array.RecordReader = (*failingReader)(nil)
var _ = memory.DefaultAllocator

// TestHostilePartitionValues: values needing escapes in paths and quotes
// in SQL keep their identity: rows land in, and are matched within, the
// right partition.
func TestHostilePartitionValues(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	values := []string{`quote"dq`, "üñîçødé", "sp ace", `back\slash`, "a,b", "o'brien", "a/b=c%d", "#?&*"}
	var rows, upd, want []string
	for i, v := range values {
		js, _ := json.Marshal(v)
		rows = append(rows, fmt.Sprintf(`{"id":1,"day":%s,"val":"old%d"}`, js, i))
		if i%2 == 0 {
			upd = append(upd, fmt.Sprintf(`{"id":1,"day":%s,"val":"new%d"}`, js, i))
			want = append(want, fmt.Sprintf(`{"id":1,"day":%s,"val":"new%d"}`, js, i))
		} else {
			want = append(want, fmt.Sprintf(`{"id":1,"day":%s,"val":"old%d"}`, js, i))
		}
	}
	tb.appendFile("[" + strings.Join(rows, ",") + "]")
	s := tb.mustUpsert(nil, "["+strings.Join(upd, ",")+"]", byID)
	if s.PartitionsTouched != len(values)/2 || s.RowsUpdated != int64(len(values)/2) || s.RowsInserted != 0 || s.FilesRemoved != len(values)/2 {
		t.Errorf("stats %v", s)
	}
	tb.checkRows("[" + strings.Join(want, ",") + "]")
}

// TestNullPartition: a null partition value is the partition's identity
// (null = null for the partition, as Spark's MERGE on a null-safe partition
// condition), so rows of the null partition are replaced by key; keys keep
// SQL semantics. An empty string is stored as null, so it is that partition
// too.
func TestNullPartition(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":null,"val":"a"},{"id":2,"day":null,"val":"b"},{"id":1,"day":"d","val":"x"}]`)
	s := tb.mustUpsert(nil, `[{"id":1,"day":null,"val":"A"},{"id":3,"day":null,"val":"c"},{"id":null,"day":null,"val":"n"}]`, byID)
	tb.checkRows(`[{"id":1,"day":null,"val":"A"},{"id":2,"day":null,"val":"b"},{"id":3,"day":null,"val":"c"},{"id":null,"day":null,"val":"n"},{"id":1,"day":"d","val":"x"}]`)
	if s.PartitionsTouched != 1 || s.RowsUpdated != 1 || s.RowsInserted != 2 || s.RowsCopied != 1 || s.FilesRemoved != 1 {
		t.Errorf("stats %v", s)
	}
	s = tb.mustUpsert(nil, `[{"id":2,"day":"","val":"B"}]`, byID)
	tb.checkRows(`[{"id":1,"day":null,"val":"A"},{"id":2,"day":null,"val":"B"},{"id":3,"day":null,"val":"c"},{"id":null,"day":null,"val":"n"},{"id":1,"day":"d","val":"x"}]`)
	if s.RowsUpdated != 1 || s.RowsInserted != 0 {
		t.Errorf("empty-string stats %v", s)
	}
	// Two rows of one key in the null partition are duplicates.
	if _, err := tb.upsert(nil, `[{"id":5,"day":null,"val":"p"},{"id":5,"day":"","val":"q"}]`, byID); !isKind(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "id=5") {
		t.Errorf("duplicate in the null partition: %v", err)
	}
}

// The deprecated option names still work for a release: PartitionKey
// (comma-separated) and TableProperties, the current names winning.
func TestDeprecatedOptionNames(t *testing.T) {
	n := Options{PartitionKey: " region, day ", TableProperties: map[string]string{"a": "1"}}.Normalized()
	if !slices.Equal(n.PartitionBy, []string{"region", "day"}) || n.Properties["a"] != "1" || n.PartitionKey != "" || n.TableProperties != nil {
		t.Errorf("Normalized: %+v", n)
	}
	n = Options{PartitionBy: []string{"p"}, PartitionKey: "q", Properties: map[string]string{}, TableProperties: map[string]string{"a": "1"}}.Normalized()
	if !slices.Equal(n.PartitionBy, []string{"p"}) || len(n.Properties) != 0 {
		t.Errorf("the current names must win: %+v", n)
	}
}
