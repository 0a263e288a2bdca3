package upsert

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
)

// uuidish is a random-looking key, so that file bounds overlap and only
// the probe can tell files apart.
func uuidish(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
}

// TestExactFileSelection: with random keys statistics prune nothing; the
// probe rewrites exactly the files holding a source key, as MERGE's join
// would, and carries the others over. Strategies none and stats rewrite
// every file. Counts are exact.
func TestExactFileSelection(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const files, perFile = 6, 300
	ids := make([][]string, files)
	tb := newTable(t, fields("id string", "v long"), nil, nil)
	for f := range files {
		var rows []string
		for i := range perFile {
			id := uuidish(r)
			ids[f] = append(ids[f], id)
			rows = append(rows, fmt.Sprintf(`{"id":%q,"v":%d}`, id, i))
		}
		tb.appendFile("[" + strings.Join(rows, ",") + "]")
	}
	for _, c := range []struct {
		strategy string
		touched  []int
	}{
		{PruneProbe, []int{5}}, {PruneProbe, []int{0, 3}}, {PruneProbe, []int{1, 2, 4}},
		{PruneNone, []int{2}}, {PruneStats, []int{2}},
	} {
		tb := openTable(t, tb.dir)
		base := tb.snap
		var rows []string
		updates := 0
		for _, f := range c.touched {
			for _, id := range ids[f][:1+r.IntN(40)] {
				rows = append(rows, fmt.Sprintf(`{"id":%q,"v":-1}`, id))
				updates++
			}
		}
		for range 10 {
			rows = append(rows, fmt.Sprintf(`{"id":%q,"v":-2}`, uuidish(r)))
		}
		tr := &trace{}
		s := tb.mustUpsert(nil, "["+strings.Join(rows, ",")+"]", Options{PrimaryKeys: []string{"id"}, PruneStrategy: c.strategy, trace: tr})
		removed, probed := len(c.touched), files
		if c.strategy != PruneProbe {
			removed, probed = files, 0
		}
		want := Stats{Version: base.Version() + 1, PartitionsTouched: 1, FilesAdded: 1, FilesRemoved: removed,
			FilesCarriedOver: files - removed, FilesProbed: probed, RowsUpdated: int64(updates), RowsInserted: 10,
			RowsCopied: int64(removed*perFile - updates), SourceRows: int64(updates + 10)}
		if got := clearDurations(s); got != want {
			t.Errorf("%s %v:\n got  %v\n want %v", c.strategy, c.touched, got, want)
		}
		if n := tr.narrowFiles.Load(); c.strategy == PruneProbe && n != files {
			t.Errorf("%s: %d files probed by the narrow reader", c.strategy, n)
		}
		if got := len(tb.rows()); got != files*perFile+10 {
			t.Errorf("%d rows", got)
		}
	}
}

// TestManyRowGroups: a file of many row groups sorted by key: the probe
// reads only the row group whose statistics admit the key; the rewrite
// keeps every other row.
func TestManyRowGroups(t *testing.T) {
	tb := newTable(t, fields("id long", "pad string"), nil, nil)
	const n = 20000
	var recs []arrow.RecordBatch
	for lo := 0; lo < n; lo += 500 {
		var b strings.Builder
		b.WriteString("[")
		for i := lo; i < lo+500; i++ {
			if i > lo {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":%d,"pad":"%s"}`, i, strings.Repeat("x", 20))
		}
		b.WriteString("]")
		recs = append(recs, batchOf(t, tb.arrowSchema(), b.String()))
	}
	tb.appendBatches([]func(*datafile.Options){func(o *datafile.Options) { o.MaxUnwrittenBytes = 64 << 10 }}, recs...)
	for _, r := range recs {
		r.Release()
	}
	groups := rowGroups(t, tb)
	if groups < 10 {
		t.Fatalf("only %d row groups", groups)
	}
	tr := &trace{}
	s := tb.mustUpsert(nil, fmt.Sprintf(`[{"id":%d,"pad":"last"},{"id":%d,"pad":"new"}]`, n-1, n+5),
		Options{PrimaryKeys: []string{"id"}, ReadBatchSize: 100, trace: tr})
	if s.RowsUpdated != 1 || s.RowsCopied != n-1 || s.FilesRemoved != 1 || s.RowsInserted != 1 {
		t.Errorf("stats %v", s)
	}
	if tr.rowGroupsRead.Load() != 1 || tr.rowGroupsSkippedStats.Load() != int64(groups-1) {
		t.Errorf("read %d row groups, skipped %d by statistics, of %d", tr.rowGroupsRead.Load(), tr.rowGroupsSkippedStats.Load(), groups)
	}
	rows := tb.rows()
	if len(rows) != n+1 || !contains(rows, fmt.Sprintf(`id=%d, pad="last"`, n-1)) || !contains(rows, `id=0, pad="`+strings.Repeat("x", 20)+`"`) {
		t.Errorf("%d rows: %q ... %q", len(rows), rows[0], rows[len(rows)-1])
	}
}

func contains(rows []string, r string) bool {
	for _, x := range rows {
		if x == r {
			return true
		}
	}
	return false
}

// rowGroups counts the row groups of the table's only file.
func rowGroups(t *testing.T, tb *table) int {
	t.Helper()
	files := tb.snap.Files()
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	rd, err := tb.st.Open(context.Background(), files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	data := make([]byte, rd.Size())
	if _, err := rd.ReadAt(data, 0); err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	return pf.NumRowGroups()
}

// TestBloomFilters: a foreign file with bloom filters on the key column
// and row groups whose bounds all admit the key: the filters skip the row
// groups that cannot hold it.
func TestBloomFilters(t *testing.T) {
	tb := newTable(t, fields("id string", "v long"), nil, nil)
	as := tb.arrowSchema()
	r := rand.New(rand.NewPCG(3, 4))
	var keys []string
	const groups, per = 8, 500
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithBloomFilterEnabled(true), parquet.WithMaxRowGroupLength(per),
		parquet.WithStats(true), parquet.WithAllocator(memory.DefaultAllocator))
	w, err := pqarrow.NewFileWriter(as, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	for g := range groups {
		ib := array.NewStringBuilder(memory.DefaultAllocator)
		vb := array.NewInt64Builder(memory.DefaultAllocator)
		// Every row group spans "0..." to "f...": bounds prune nothing.
		ib.Append("0")
		ib.Append("g")
		vb.Append(-1)
		vb.Append(-1)
		for i := range per - 2 {
			k := uuidish(r)
			keys = append(keys, k)
			ib.Append(k)
			vb.Append(int64(g*per + i))
		}
		ia, va := ib.NewArray(), vb.NewArray()
		rec := array.NewRecordBatch(as, []arrow.Array{ia, va}, per)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		ia.Release()
		va.Release()
		ib.Release()
		vb.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tb.st.Put(context.Background(), "foreign.parquet", &buf); err != nil {
		t.Fatal(err)
	}
	x := txn.Begin(tb.snap, txn.Operation{Name: txn.OpWrite}, txn.Options{})
	x.Add(protocol.Action{Add: &protocol.Add{Path: "foreign.parquet", PartitionValues: protocol.PartitionValues{}, Size: int64(buf.Cap()), DataChange: true}})
	res, err := x.Commit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tb.snap = res.Snapshot
	// One key of row group 5.
	target := keys[5*(per-2)+7]
	tr := &trace{}
	s := tb.mustUpsert(nil, fmt.Sprintf(`[{"id":%q,"v":0}]`, target), Options{PrimaryKeys: []string{"id"}, trace: tr})
	if s.RowsUpdated != 1 || s.FilesRemoved != 1 {
		t.Errorf("stats %v", s)
	}
	// Row groups 0-4 are cleared by their filters (5 is read and hits, so
	// 6-7 are never looked at); a false positive may cost one more read.
	if skipped := tr.rowGroupsSkippedBloom.Load(); skipped < 4 || tr.rowGroupsRead.Load() > 2 {
		t.Errorf("bloom skipped %d, read %d", skipped, tr.rowGroupsRead.Load())
	}
	if n := len(tb.rows()); n != groups*per {
		t.Errorf("%d rows", n)
	}
}
