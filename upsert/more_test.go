package upsert

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/metrics"
	"github.com/deltalite-go/deltalite/protocol"
)

// TestColumnMapping: on a name-mapped table the probe finds key columns
// by physical name and the rewrite writes physical names.
func TestColumnMapping(t *testing.T) {
	sc := `{"type":"struct","fields":[` +
		`{"name":"id","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a1"}},` +
		`{"name":"day","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-b2"}},` +
		`{"name":"val","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-c3"}}]}`
	tb := newTable(t, sc, []string{"day"}, map[string]string{"delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": "3"})
	tb.appendFile(`[{"id":1,"day":"d","val":"a"},{"id":2,"day":"d","val":"b"}]`)
	tb.appendFile(`[{"id":3,"day":"d","val":"c"}]`)
	tr := &trace{}
	s := tb.mustUpsert(nil, `[{"id":2,"day":"d","val":"B"},{"id":4,"day":"d","val":"n"}]`, Options{PrimaryKeys: []string{"id"}, trace: tr})
	tb.checkRows(`[{"id":1,"day":"d","val":"a"},{"id":2,"day":"d","val":"B"},{"id":3,"day":"d","val":"c"},{"id":4,"day":"d","val":"n"}]`)
	if s.RowsUpdated != 1 || s.FilesRemoved != 1 || s.FilesCarriedOver != 1 || tr.narrowFiles.Load() != 1 {
		t.Errorf("stats %v, narrow probes %d", s, tr.narrowFiles.Load())
	}
}

// TestProbeFallsBackToScan: a foreign file storing the key in another
// physical form (milliseconds) is probed through scan, which reads it as
// the table's type.
func TestProbeFallsBackToScan(t *testing.T) {
	tb := newTable(t, fields("ts timestamp", "v long"), nil, nil)
	ms := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	as := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: ms, Nullable: true}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec := batchOf(t, as, `[{"ts":"2024-01-01T00:00:00.001Z","v":1},{"ts":"2024-01-01T00:00:00.002Z","v":2}]`)
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(as, &buf, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithCoerceTimestamps(arrow.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	size := int64(buf.Len())
	if err := tb.st.Put(context.Background(), "ms.parquet", &buf); err != nil {
		t.Fatal(err)
	}
	x := txn.Begin(tb.snap, txn.Operation{Name: txn.OpWrite}, txn.Options{})
	x.Add(protocol.Action{Add: &protocol.Add{Path: "ms.parquet", PartitionValues: protocol.PartitionValues{}, Size: size, DataChange: true}})
	res, err := x.Commit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tb.snap = res.Snapshot
	tr := &trace{}
	s := tb.mustUpsert(nil, `[{"ts":"2024-01-01T00:00:00.002Z","v":20}]`, Options{PrimaryKeys: []string{"ts"}, trace: tr})
	if s.RowsUpdated != 1 || s.FilesRemoved != 1 || tr.scanFiles.Load() != 1 || tr.narrowFiles.Load() != 0 {
		t.Errorf("stats %v, scan probes %d", s, tr.scanFiles.Load())
	}
	tb.checkRows(`[{"ts":"2024-01-01T00:00:00.001Z","v":1},{"ts":"2024-01-01T00:00:00.002Z","v":20}]`)
}

// TestSourceGuard: a source past MaxSourceBytes is refused before anything
// is written; 0 takes the process limit; NoSourceLimit disables the guard.
func TestSourceGuard(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d","val":"a"}]`)
	v := tb.snap.Version()
	rows := `[{"id":1,"day":"d","val":"b"},{"id":2,"day":"d","val":"c"}]`
	_, err := tb.upsert(nil, rows, Options{PrimaryKeys: []string{"id"}, MaxSourceBytes: 10})
	if !isKind(err, errs.ErrSourceTooLarge) || !strings.Contains(err.Error(), "MaxSourceBytes") {
		t.Fatalf("small ceiling: %v", err)
	}
	_, err = tb.upsert(nil, rows, Options{PrimaryKeys: []string{"id"}, MaxSourceBytes: 0, Limits: limits.New(limits.Config{MaxSourceBytes: 10})})
	if !isKind(err, errs.ErrSourceTooLarge) {
		t.Fatalf("process ceiling: %v", err)
	}
	if tb.snap.Version() != v {
		t.Fatal("a refused upsert committed")
	}
	tb.assertNoOrphans()
	tb.mustUpsert(nil, rows, Options{PrimaryKeys: []string{"id"}, MaxSourceBytes: NoSourceLimit, Limits: limits.New(limits.Config{MaxSourceBytes: 10})})
	tb.checkRows(`[{"id":1,"day":"d","val":"b"},{"id":2,"day":"d","val":"c"}]`)
}

// TestMetrics: successes and failures are observed with their strategy,
// error kind and counts.
func TestMetrics(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d","val":"a"}]`)
	m := metrics.New()
	tb.mustUpsert(nil, `[{"id":1,"day":"d","val":"b"},{"id":2,"day":"d","val":"c"}]`, Options{PrimaryKeys: []string{"id"}, Metrics: m})
	tb.mustUpsert(nil, `[{"id":3,"day":"d","val":"c"}]`, Options{PrimaryKeys: []string{"id"}, Metrics: m, PruneStrategy: "none"})
	if _, err := tb.upsert(nil, `[{"id":1,"day":"d"},{"id":1,"day":"d"}]`, Options{PrimaryKeys: []string{"id"}, Metrics: m}); err == nil {
		t.Fatal("duplicates accepted")
	}
	reg := m.Registry()
	expect := `
# HELP deltalite_upserts_total Upserts finished, by outcome (ok/error), prune strategy and error kind (empty on success).
# TYPE deltalite_upserts_total counter
deltalite_upserts_total{error_kind="",outcome="ok",prune_strategy="none"} 1
deltalite_upserts_total{error_kind="",outcome="ok",prune_strategy="probe"} 1
deltalite_upserts_total{error_kind="invalid_argument",outcome="error",prune_strategy="probe"} 1
# HELP deltalite_rows_updated_total Rows replaced by successful upserts.
# TYPE deltalite_rows_updated_total counter
deltalite_rows_updated_total 1
# HELP deltalite_rows_inserted_total Rows inserted by successful upserts.
# TYPE deltalite_rows_inserted_total counter
deltalite_rows_inserted_total 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(expect), "deltalite_upserts_total", "deltalite_rows_updated_total", "deltalite_rows_inserted_total"); err != nil {
		t.Error(err)
	}
}

// TestMissingDataFile: a file the log lists but the store lacks fails the
// upsert as not found, leaving the table as it was.
func TestMissingDataFile(t *testing.T) {
	tb := newTable(t, basic, nil, nil)
	tb.appendFile(`[{"id":1,"val":"a"}]`)
	k, _ := objectKey(tb.st, tb.snap.Files()[0].Path)
	if err := os.Remove(tb.dir + "/" + k); err != nil {
		t.Fatal(err)
	}
	v := tb.snap.Version()
	_, err := tb.upsert(nil, `[{"id":1,"val":"b"}]`, byID)
	if !isKind(err, errs.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if tb.snap.Version() != v {
		t.Fatal("committed")
	}
}

// TestLargeSourceRollsFiles: source rows alone are split at the target
// file size.
func TestLargeSourceRollsFiles(t *testing.T) {
	tb := newTable(t, fields("id long", "pad string"), nil, nil)
	var rows []string
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 4000 {
		pad := make([]byte, 200)
		for j := range pad {
			pad[j] = byte('a' + r.IntN(26))
		}
		rows = append(rows, fmt.Sprintf(`{"id":%d,"pad":"%s"}`, i, pad))
	}
	s := tb.mustUpsert(nil, "["+strings.Join(rows, ",")+"]", Options{PrimaryKeys: []string{"id"}, TargetFileSize: 64 << 10, ReadBatchSize: 500})
	if s.FilesAdded < 3 || s.RowsInserted != 4000 {
		t.Errorf("stats %v", s)
	}
	for _, a := range tb.snap.Files() {
		if a.Size > 256<<10 {
			t.Errorf("file of %d bytes with a 64 KiB target", a.Size)
		}
	}
	if n := len(tb.rows()); n != 4000 {
		t.Errorf("%d rows", n)
	}
}

var _ = array.NewRecordReader
var _ = memory.DefaultAllocator
