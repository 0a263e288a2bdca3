package iohandler_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// dayRows are (id, name, day) rows from "id:name:day" triples.
func dayRows(triples ...string) arrow.RecordBatch {
	var ids []int64
	var names, days []string
	for _, tr := range triples {
		p := strings.Split(tr, ":")
		var n int64
		for _, c := range p[0] {
			n = n*10 + int64(c-'0')
		}
		ids, names, days = append(ids, n), append(names, p[1]), append(days, p[2])
	}
	return batch(ids, names, days)
}

// rowsOf renders "id:name:day" triples as tablerows.Read reads them.
func rowsOf(triples ...string) []string {
	out := make([]string, len(triples))
	for i, tr := range triples {
		p := strings.Split(tr, ":")
		out[i] = `day="` + p[2] + `", id=` + p[0] + `, name="` + p[1] + `"`
	}
	return out
}

// keyed writes triples as the output of keys of a static asset
// partitioned by day.
func keyed(t *testing.T, h *iohandler.Handler, md map[string]string, keys []string, triples ...string) (iohandler.Metadata, error) {
	t.Helper()
	m := map[string]string{"delta/partition_expr": "day"}
	for k, v := range md {
		m[k] = v
	}
	rec := dayRows(triples...)
	defer rec.Release()
	return h.HandleOutput(ctx, iohandler.OutputContext{Asset: "ev", Metadata: m, Partitions: days, PartitionKeys: keys}, rec)
}

var days = partitions.Static("d1", "d2", "d3")

func TestPartitionedModes(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	uri := h.AssetTableURI("ev", nil)
	mode := func(m string) map[string]string { return map[string]string{"delta/mode": m} }
	must := func(md iohandler.Metadata, err error) iohandler.Metadata {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return md
	}
	must(keyed(t, h, nil, []string{"d1"}, "1:a:d1", "2:b:d1"))
	must(keyed(t, h, nil, []string{"d2"}, "3:c:d2"))
	tb, _ := deltalite.Open(ctx, uri)
	if pc := tb.PartitionColumns(); len(pc) != 1 || pc[0] != "day" {
		t.Fatalf("partition columns %v", pc)
	}
	// overwrite replaces only the key's partition.
	must(keyed(t, h, nil, []string{"d1"}, "4:x:d1"))
	equalRows(t, tablerows.Read(t, uri), rowsOf("4:x:d1", "3:c:d2")...)
	// Rows outside the partition are refused and nothing is written.
	v := version(t, uri)
	_, err := keyed(t, h, nil, []string{"d1"}, "5:y:d1", "6:z:d2")
	wantErr(t, err, `asset "ev", partition keys ["d1"]`, "replace-where predicate day = 'd1'", "nothing was written")
	if version(t, uri) != v {
		t.Fatal("a refused overwrite committed")
	}
	// append appends.
	must(keyed(t, h, mode("append"), []string{"d2"}, "7:g:d2"))
	equalRows(t, tablerows.Read(t, uri), rowsOf("4:x:d1", "3:c:d2", "7:g:d2")...)
	// error fails when the table exists.
	if _, err := keyed(t, h, mode("error"), []string{"d3"}, "8:h:d3"); !errors.Is(err, deltalite.ErrTableExists) {
		t.Fatalf("error mode: %v", err)
	}
	// ignore skips a partition holding rows, and writes an empty one
	// (rivers skips whenever the table exists).
	md := must(keyed(t, h, mode("ignore"), []string{"d1"}, "9:i:d1"))
	if md[iohandler.OutSkipped] != true || md[iohandler.OutNumRows] != int64(0) {
		t.Fatalf("ignore of a full partition: %v", md)
	}
	md = must(keyed(t, h, mode("ignore"), []string{"d3"}, "9:i:d3"))
	if md[iohandler.OutSkipped] != false || md[iohandler.OutNumRows] != int64(1) {
		t.Fatalf("ignore of an empty partition: %v", md)
	}
	equalRows(t, tablerows.Read(t, uri), rowsOf("4:x:d1", "3:c:d2", "7:g:d2", "9:i:d3")...)
	// create_or_replace with a key is refused, naming what to use instead
	// (rivers wipes every partition).
	v = version(t, uri)
	_, err = keyed(t, h, mode("create_or_replace"), []string{"d1"}, "1:a:d1")
	wantErr(t, err, "create_or_replace", `"overwrite"`, "schema_mode")
	if version(t, uri) != v {
		t.Fatal("a refused create_or_replace committed")
	}
	// Reads of a key see its rows; projecting away the partition column
	// still filters (rivers' polars path fails there).
	read := func(md map[string]string, keys ...string) []string {
		t.Helper()
		m := map[string]string{"delta/partition_expr": "day"}
		for k, v := range md {
			m[k] = v
		}
		tbl, err := iohandler.LoadInput[arrow.Table](ctx, h, iohandler.InputContext{Asset: "ev", Metadata: m, Partitions: days, PartitionKeys: keys})
		if err != nil {
			t.Fatal(err)
		}
		defer tbl.Release()
		return arrowrows.TableRows(tbl)
	}
	equalRows(t, read(nil, "d2"), rowsOf("3:c:d2", "7:g:d2")...)
	equalRows(t, read(map[string]string{"delta/columns": `["id"]`}, "d2"), "id=3", "id=7")
	equalRows(t, read(map[string]string{"delta/columns": `["name"]`}, "d1", "d3"), `name="i"`, `name="x"`)
}

func TestPartitionKeyErrors(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	rec := dayRows("1:a:d1")
	defer rec.Release()
	// A key for an unpartitioned asset.
	_, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "flat", PartitionKeys: []string{"d1"}}, rec)
	wantErr(t, err, `asset "flat" is not partitioned`)
	// A partitioned asset without delta/partition_expr.
	_, err = h.HandleOutput(ctx, iohandler.OutputContext{Asset: "ev", Partitions: days, PartitionKeys: []string{"d1"}}, rec)
	wantErr(t, err, "delta/partition_expr")
	// A key not of the definition.
	_, err = keyed(t, h, nil, []string{"d9"}, "1:a:d9")
	wantErr(t, err, "d9")
	// A partitioned write into an existing unpartitioned table.
	mustWrite(t, h, iohandler.OutputContext{Asset: "ev"}, rec)
	v := version(t, h.AssetTableURI("ev", nil))
	_, err = keyed(t, h, nil, []string{"d1"}, "1:a:d1")
	if !errors.Is(err, deltalite.ErrSchemaMismatch) {
		t.Fatalf("partitioned write into an unpartitioned table: %v", err)
	}
	wantErr(t, err, "partitioned by []", "day")
	if version(t, h.AssetTableURI("ev", nil)) != v {
		t.Fatal("the refused write committed")
	}
}

// The case rivers gets wrong: replace_delete_unmatched on one key must
// leave the other partitions' rows, and a source row whose id matches a
// row of another partition must not update it.
func TestMergeScopedToPartition(t *testing.T) {
	h := newHandler(t, iohandler.Config{MergeConfig: json.RawMessage(`{"merge_type": "replace_delete_unmatched", "predicate": "s.id = t.id"}`)})
	uri := h.AssetTableURI("ev", nil)
	for _, k := range []struct{ key, rows string }{{"d1", "1:a:d1,2:b:d1"}, {"d2", "3:c:d2,4:d:d2"}} {
		if _, err := keyed(t, h, nil, []string{k.key}, strings.Split(k.rows, ",")...); err != nil {
			t.Fatal(err)
		}
	}
	md, err := keyed(t, h, map[string]string{"delta/mode": "merge"}, []string{"d1"}, "1:A:d1")
	if err != nil {
		t.Fatal(err)
	}
	// d1: 1 updated, 2 deleted (unmatched by source in d1); d2 untouched.
	equalRows(t, tablerows.Read(t, uri), rowsOf("1:A:d1", "3:c:d2", "4:d:d2")...)
	var stats map[string]any
	if err := json.Unmarshal([]byte(md[iohandler.OutMergeStats].(string)), &stats); err != nil {
		t.Fatal(err)
	}
	if stats["num_target_rows_deleted"] != 1.0 || stats["num_target_rows_updated"] != 1.0 {
		t.Fatalf("merge stats %v", stats)
	}

	// Upsert on d1 of id 3 (a d2 row's id): inserted into d1, d2's row 3
	// stays as it was.
	h2 := newHandler(t, iohandler.Config{TableURI: strings.TrimSuffix(uri, "/ev"), MergeConfig: json.RawMessage(`{"merge_type": "upsert", "predicate": "s.id = t.id"}`)})
	if _, err := keyed(t, h2, map[string]string{"delta/mode": "merge"}, []string{"d1"}, "3:Z:d1"); err != nil {
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, uri), rowsOf("1:A:d1", "3:Z:d1", "3:c:d2", "4:d:d2")...)

	// A source row of another partition is refused, and nothing changes:
	// the scoped ON could not match it, so it would land in d2 unowned.
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	before := tb.Version()
	_, err = keyed(t, h2, map[string]string{"delta/mode": "merge"}, []string{"d1"}, "1:Q:d1", "9:y:d2")
	if err == nil || !strings.Contains(err.Error(), "source row 1 is outside partition keys") || !strings.Contains(err.Error(), "d1") {
		t.Fatalf("out-of-key source row: %v", err)
	}
	if tb, err = deltalite.Open(ctx, uri); err != nil || tb.Version() != before {
		t.Fatalf("refused merge committed: version %d, want %d (%v)", tb.Version(), before, err)
	}
	equalRows(t, tablerows.Read(t, uri), rowsOf("1:A:d1", "3:Z:d1", "3:c:d2", "4:d:d2")...)
}

// date32 event rows: (id long, event_date date).
func dateRows(t *testing.T, ids []int64, dates ...string) arrow.RecordBatch {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "event_date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, d := range dates {
		region, day, _ := strings.Cut(d, "/")
		tm, err := time.Parse("2006-01-02", day)
		if err != nil {
			t.Fatal(err)
		}
		b.Field(0).(*array.Int64Builder).Append(ids[i])
		b.Field(1).(*array.StringBuilder).Append(region)
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32FromTime(tm))
	}
	return b.NewRecordBatch()
}

// Multi-dimension partitions on a date column: keys written and read per
// (region, date), overwrites touch only their key, predicates typed.
func TestMultiDailyOnDateColumn(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	def := partitions.Multi(map[string]partitions.Definition{
		"region": partitions.Static("us", "eu"),
		"date":   partitions.Daily(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)),
	})
	md := map[string]string{"delta/partition_expr": `{"region": "region", "date": "event_date"}`}
	write := func(key string, ids []int64, dates ...string) {
		t.Helper()
		rec := dateRows(t, ids, dates...)
		defer rec.Release()
		mustWrite(t, h, iohandler.OutputContext{Asset: "m", Metadata: md, Partitions: def, PartitionKeys: []string{key}}, rec)
	}
	write("date=2024-01-02,region=us", []int64{1}, "us/2024-01-02")
	write("date=2024-01-02,region=eu", []int64{2}, "eu/2024-01-02")
	write("date=2024-01-03,region=us", []int64{3}, "us/2024-01-03")
	write("date=2024-01-02,region=us", []int64{4}, "us/2024-01-02") // replaces 1 only
	uri := h.AssetTableURI("m", nil)
	equalRows(t, tablerows.Read(t, uri), "event_date=2024-01-02, id=2, region=\"eu\"", "event_date=2024-01-02, id=4, region=\"us\"", "event_date=2024-01-03, id=3, region=\"us\"")
	tb, _ := deltalite.Open(ctx, uri)
	if pc := tb.PartitionColumns(); len(pc) != 2 {
		t.Fatalf("partition columns %v", pc)
	}
	// The untyped helper keeps the seed's strings; the table's is typed.
	keys := []string{"date=2024-01-02,region=us"}
	p, err := h.PartitionPredicate(md, def, keys)
	if err != nil || p != "event_date >= '2024-01-02' AND event_date < '2024-01-03' AND region = 'us'" {
		t.Fatalf("predicate %q %v", p, err)
	}
	tp, err := h.TablePartitionPredicate(ctx, "m", md, def, keys)
	if err != nil || !strings.Contains(tp, "DATE '2024-01-02'") {
		t.Fatalf("typed predicate %q %v", tp, err)
	}
	f, err := h.PartitionFilters(md, def, []string{"date=2024-01-02,region=us", "date=2024-01-03,region=us"})
	if err != nil || len(f) != 2 || len(f[0]) != 3 {
		t.Fatalf("filters %v %v", f, err)
	}
	if _, err := h.PartitionPredicate(md, def, nil); err == nil || !strings.Contains(err.Error(), "whole table") {
		t.Fatalf("no keys: %v", err)
	}
	// A read of two keys of one region.
	tbl, err := iohandler.LoadInput[arrow.Table](ctx, h, iohandler.InputContext{Asset: "m", Metadata: md, Partitions: def,
		PartitionKeys: []string{"date=2024-01-02,region=us", "date=2024-01-03,region=us"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	equalRows(t, arrowrows.TableRows(tbl), "event_date=2024-01-02, id=4, region=\"us\"", "event_date=2024-01-03, id=3, region=\"us\"")
}

// A backfill over two keys overwrites exactly those partitions; a keyless
// write of a partitioned asset still makes a partitioned table (rivers
// makes an unpartitioned one).
func TestBackfillAndKeylessPartitioned(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	uri := h.AssetTableURI("ev", nil)
	rec := dayRows("1:a:d1", "2:b:d2", "3:c:d3")
	defer rec.Release()
	mustWrite(t, h, iohandler.OutputContext{Asset: "ev", Metadata: map[string]string{"delta/partition_expr": "day"}, Partitions: days}, rec)
	tb, _ := deltalite.Open(ctx, uri)
	if pc := tb.PartitionColumns(); len(pc) != 1 || pc[0] != "day" {
		t.Fatalf("keyless write made partition columns %v", pc)
	}
	if _, err := keyed(t, h, nil, []string{"d1", "d3"}, "4:x:d1", "5:y:d3"); err != nil {
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, uri), rowsOf("4:x:d1", "2:b:d2", "5:y:d3")...)
}

// Column names that need quoting project and filter as any other.
func TestQuotedColumnNames(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "my id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "the-day", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"d1", "d2"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	md := map[string]string{"delta/partition_expr": "the-day"}
	mustWrite(t, h, iohandler.OutputContext{Asset: "q", Metadata: md, Partitions: days}, rec)
	md["delta/columns"] = `["my id"]`
	tbl, err := iohandler.LoadInput[arrow.Table](ctx, h, iohandler.InputContext{Asset: "q", Metadata: md, Partitions: days, PartitionKeys: []string{"d2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	equalRows(t, arrowrows.TableRows(tbl), "my id=2")
}

// regionDate is the multi definition of the partition order tests.
var regionDate = partitions.Multi(map[string]partitions.Definition{
	"region": partitions.Static("us", "eu"),
	"date":   partitions.Daily(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)),
})

// A new multi-dimension table is partitioned in the order delta/partition_expr
// writes its dimensions (as rivers does), not by sorted dimension name; an
// existing table keeps its own order whatever the order of the keys, so
// either order writes into a table made with the other.
func TestMultiPartitionColumnOrder(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	regionFirst := map[string]string{"delta/partition_expr": `{"region": "region", "date": "event_date"}`}
	dateFirst := map[string]string{"delta/partition_expr": `{"date": "event_date", "region": "region"}`}
	write := func(asset string, md map[string]string, key string, id int64, row string) {
		t.Helper()
		rec := dateRows(t, []int64{id}, row)
		defer rec.Release()
		mustWrite(t, h, iohandler.OutputContext{Asset: asset, Metadata: md, Partitions: regionDate, PartitionKeys: []string{key}}, rec)
	}
	for _, c := range []struct {
		asset         string
		create, other map[string]string
		want          string
	}{
		{"rd", regionFirst, dateFirst, "region,event_date"},
		{"dr", dateFirst, regionFirst, "event_date,region"},
	} {
		write(c.asset, c.create, "date=2024-01-02,region=us", 1, "us/2024-01-02")
		write(c.asset, c.other, "date=2024-01-03,region=eu", 2, "eu/2024-01-03")
		write(c.asset, c.other, "date=2024-01-02,region=us", 3, "us/2024-01-02") // overwrites 1
		uri := h.AssetTableURI(c.asset, nil)
		tb, err := deltalite.Open(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(tb.PartitionColumns(), ","); got != c.want {
			t.Errorf("%s: partition columns [%s], want [%s]", c.asset, got, c.want)
		}
		equalRows(t, tablerows.Read(t, uri), "event_date=2024-01-02, id=3, region=\"us\"", "event_date=2024-01-03, id=2, region=\"eu\"")
	}
}
