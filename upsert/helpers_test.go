package upsert

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/metrics"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
)

// The shared rig builds the tests' schemas.
var fields = jsonrows.Fields

// table is a test table on local disk.
type table struct {
	t    testing.TB
	dir  string
	st   storage.Store
	snap *snapshot.Snapshot
}

func newTable(t testing.TB, schemaString string, parts []string, props map[string]string) *table {
	t.Helper()
	dir := t.TempDir()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := schema.Parse(schemaString)
	if err != nil {
		t.Fatal(err)
	}
	if props == nil {
		props = map[string]string{}
	}
	if parts == nil {
		parts = []string{}
	}
	p := protocol.MinimalProtocol(protocol.RequiredFeatures(sc, props))
	md := &protocol.Metadata{ID: "00000000-0000-4000-8000-000000000001", Format: protocol.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString: schemaString, PartitionColumns: parts, Configuration: props}
	res, err := txn.Create(context.Background(), st, &p, md, nil, txn.Operation{Name: txn.OpCreateTable}, txn.Options{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return &table{t: t, dir: dir, st: st, snap: res.Snapshot}
}

// openTable opens an existing table directory (copied to a temp dir).
func openTable(t testing.TB, src string) *table {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return &table{t: t, dir: dir, st: st, snap: snap}
}

// arrowSchema is the table's logical Arrow schema.
func (tb *table) arrowSchema() *arrow.Schema {
	as, err := schema.ToArrow(tb.snap.Schema(), schema.ArrowOptions{})
	if err != nil {
		tb.t.Fatal(err)
	}
	return as
}

// batchOf builds a batch from JSON rows.
func batchOf(t testing.TB, as *arrow.Schema, rows string) arrow.RecordBatch {
	t.Helper()
	return jsonrows.Record(t, memory.DefaultAllocator, as, rows)
}

// appendFile commits the rows as a blind append, one write per call
// (so each call adds at least one file per partition).
func (tb *table) appendFile(rows string, opt ...func(*datafile.Options)) {
	tb.t.Helper()
	rec := batchOf(tb.t, tb.arrowSchema(), rows)
	defer rec.Release()
	tb.appendBatches(opt, rec)
}

func (tb *table) appendBatches(opt []func(*datafile.Options), recs ...arrow.RecordBatch) {
	tb.t.Helper()
	ctx := context.Background()
	o := datafile.Options{Schema: tb.snap.Schema(), PartitionColumns: tb.snap.PartitionColumns(), ColumnMapping: tb.snap.ColumnMapping(),
		Properties: protocol.Properties(tb.snap.Properties()), DataChange: true}
	for _, f := range opt {
		f(&o)
	}
	w, err := datafile.NewWriter(ctx, tb.st, o)
	if err != nil {
		tb.t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			tb.t.Fatal(err)
		}
	}
	adds, err := w.Close()
	if err != nil {
		tb.t.Fatal(err)
	}
	x := txn.Begin(tb.snap, txn.Operation{Name: txn.OpWrite, Parameters: map[string]any{"mode": "Append"}}, txn.Options{})
	for _, a := range adds {
		x.Add(protocol.Action{Add: a})
	}
	res, err := x.Commit(ctx)
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.snap = res.Snapshot
}

// quiet are options that keep tests off the process metrics and limits.
func quiet(o Options) Options {
	if o.Metrics == nil {
		o.Metrics = metrics.New()
	}
	if o.Limits == nil {
		o.Limits = limits.New(limits.DefaultConfig())
	}
	return o
}

// upsert runs an upsert of JSON rows of the given source schema (the
// table's when nil) and adopts the post-commit snapshot.
func (tb *table) upsert(as *arrow.Schema, rows string, opt Options) (Stats, error) {
	tb.t.Helper()
	if as == nil {
		as = tb.arrowSchema()
	}
	rec := batchOf(tb.t, as, rows)
	defer rec.Release()
	return tb.upsertBatches(opt, rec)
}

func (tb *table) upsertBatches(opt Options, recs ...arrow.RecordBatch) (Stats, error) {
	tb.t.Helper()
	var sc *arrow.Schema
	if len(recs) > 0 {
		sc = recs[0].Schema()
	} else {
		sc = tb.arrowSchema()
	}
	rr, err := array.NewRecordReader(sc, recs)
	if err != nil {
		tb.t.Fatal(err)
	}
	defer rr.Release()
	s, post, err := Run(context.Background(), tb.snap, rr, quiet(opt))
	if err != nil {
		return s, err
	}
	if post == nil {
		tb.t.Fatalf("no post-commit snapshot (stats %v)", s)
	}
	if post.Version() != s.Version {
		tb.t.Fatalf("post-commit snapshot at version %d, stats say %d", post.Version(), s.Version)
	}
	tb.snap = post
	return s, nil
}

// mustUpsert fails the test on an error.
func (tb *table) mustUpsert(as *arrow.Schema, rows string, opt Options) Stats {
	tb.t.Helper()
	s, err := tb.upsert(as, rows, opt)
	if err != nil {
		tb.t.Fatalf("upsert: %v", err)
	}
	return s
}

// rows reads the table as it is on disk (reloading the log) as canonical
// sorted rows.
func (tb *table) rows() []string {
	tb.t.Helper()
	snap, err := snapshot.Load(context.Background(), tb.st)
	if err != nil {
		tb.t.Fatal(err)
	}
	if snap.Version() != tb.snap.Version() {
		tb.t.Fatalf("the log is at version %d, the upsert reported %d", snap.Version(), tb.snap.Version())
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(tb.t, 0)
	_, seq, err := scan.New(snap, scan.WithAllocator(mem)).Records(context.Background())
	if err != nil {
		tb.t.Fatal(err)
	}
	var out []string
	for rec, err := range seq {
		if err != nil {
			tb.t.Fatal(err)
		}
		out = append(out, arrowrows.Rows(rec)...)
	}
	sort.Strings(out)
	return out
}

// want renders JSON rows of the table schema canonically.
func (tb *table) want(rows string) []string {
	tb.t.Helper()
	rec := batchOf(tb.t, tb.arrowSchema(), rows)
	defer rec.Release()
	return arrowrows.Rows(rec)
}

func (tb *table) checkRows(want string) {
	tb.t.Helper()
	arrowrows.Diff(tb.t, tb.rows(), tb.want(want))
}

// parquetFiles lists every data file on disk, live or not.
func (tb *table) parquetFiles() []string {
	tb.t.Helper()
	var out []string
	err := filepath.WalkDir(tb.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.Contains(p, "_delta_log") {
			rel, _ := filepath.Rel(tb.dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		tb.t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// assertNoOrphans checks that every data file on disk is live or was
// removed by a commit: no file a failed or aborted upsert wrote remains.
func (tb *table) assertNoOrphans() {
	tb.t.Helper()
	known := map[string]bool{}
	for _, a := range tb.snap.Files() {
		k, _ := objectKey(tb.st, a.Path)
		known[k] = true
	}
	for _, r := range tb.snap.Tombstones() {
		k, _ := objectKey(tb.st, r.Path)
		known[k] = true
	}
	for _, f := range tb.parquetFiles() {
		if !known[f] {
			tb.t.Errorf("data file %s is on disk but no commit names it", f)
		}
	}
}
