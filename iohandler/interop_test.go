package iohandler_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// TestPeersReadHandlerTables: tables written through the handler
// (partitioned by key, merged in a partition, multi-dimension on a date
// column, created by a merge) read the same in delta-rs and Spark.
func TestPeersReadHandlerTables(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs and Spark: not in -short mode")
	}
	peers.Python(t)
	h := newHandler(t, iohandler.Config{MergeConfig: json.RawMessage(`{"merge_type": "replace_delete_unmatched", "predicate": "s.id = t.id"}`)})
	for _, w := range []struct {
		md   map[string]string
		key  string
		rows []string
	}{
		{nil, "d1", []string{"1:a:d1", "2:b:d1"}},
		{nil, "d2", []string{"3:c:d2", "4:d:d2"}},
		{map[string]string{"delta/mode": "append"}, "d3", []string{"5:e:d3"}},
		{map[string]string{"delta/mode": "merge"}, "d1", []string{"1:A:d1"}},
	} {
		if _, err := keyed(t, h, w.md, []string{w.key}, w.rows...); err != nil {
			t.Fatal(err)
		}
	}
	def := partitions.Multi(map[string]partitions.Definition{
		"region": partitions.Static("us", "eu"),
		"date":   partitions.Daily(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)),
	})
	md := map[string]string{"delta/partition_expr": `{"region": "region", "date": "event_date"}`}
	for i, k := range []struct{ key, row string }{{"date=2024-01-02,region=us", "us/2024-01-02"}, {"date=2024-01-03,region=eu", "eu/2024-01-03"}} {
		rec := dateRows(t, []int64{int64(i)}, k.row)
		mustWrite(t, h, iohandler.OutputContext{Asset: "multi", Metadata: md, Partitions: def, PartitionKeys: []string{k.key}}, rec)
		rec.Release()
	}
	hm := newHandler(t, iohandler.Config{TableURI: strings.TrimSuffix(h.AssetTableURI("x", nil), "/x"), Mode: "merge",
		MergeConfig: json.RawMessage(`{"merge_type": "upsert", "predicate": "s.id = t.id"}`)})
	if _, err := writeKV(t, hm, "created", nil, "1:a", "2:b"); err != nil {
		t.Fatal(err)
	}
	if _, err := writeKV(t, hm, "created", nil, "2:B", "3:c"); err != nil {
		t.Fatal(err)
	}

	names := []string{"ev", "multi", "created"}
	ours := map[string][]string{}
	for _, n := range names {
		ours[n] = tablerows.Read(t, h.AssetTableURI(n, nil))
	}
	equalRows(t, ours["ev"], rowsOf("1:A:d1", "3:c:d2", "4:d:d2", "5:e:d3")...)
	equalRows(t, ours["created"], kvRows("1:a", "2:B", "3:c")...)
	for _, n := range names {
		got := peers.ReadTable(t, peers.DeltaRS, h.AssetTableURI(n, nil), peers.ReadOptions{}).Lines(t)
		if !slices.Equal(got, ours[n]) {
			t.Errorf("delta-rs reads %s as %q, we read %q", n, got, ours[n])
		}
	}
	s := peers.Spark(t)
	ops := make([]peers.Op, len(names))
	for i, n := range names {
		ops[i] = peers.ReadOp(h.AssetTableURI(n, nil), peers.ReadOptions{})
	}
	for i, r := range s.Run(t, ops...) {
		if got := r.Table(t).Lines(t); !slices.Equal(got, ours[names[i]]) {
			t.Errorf("Spark reads %s as %q, we read %q", names[i], got, ours[names[i]])
		}
	}
}

// TestDeltaRSMultiPartitionOrder: a [region, event_date] table delta-rs
// made takes the handler's keyed appends and overwrites (whatever the
// order of delta/partition_expr's keys), and a table the handler made
// from {"region", "date"} is partitioned [region, event_date] and takes
// delta-rs's appends; both engines read the same rows.
func TestDeltaRSMultiPartitionOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs: not in -short mode")
	}
	peers.Python(t)
	h := newHandler(t, iohandler.Config{})
	data := func(ids []int64, rows ...string) map[string]any {
		out := make([]map[string]any, len(rows))
		for i, r := range rows {
			region, day, _ := strings.Cut(r, "/")
			out[i] = map[string]any{"id": ids[i], "region": region, "event_date": day}
		}
		return map[string]any{"schema": []map[string]any{{"name": "id", "type": "long"}, {"name": "region", "type": "string"},
			{"name": "event_date", "type": "date"}}, "rows": out}
	}
	drWrite := func(path, mode string, partitionBy []string, d map[string]any) {
		t.Helper()
		s := map[string]any{"op": "write", "mode": mode, "partition_by": partitionBy}
		for k, v := range d {
			s[k] = v
		}
		peers.WriteTable(t, map[string]any{"engine": "deltalake", "path": path, "steps": []any{s}})
	}
	write := func(asset, expr, key string, md map[string]string, id int64, row string) {
		t.Helper()
		m := map[string]string{"delta/partition_expr": expr}
		for k, v := range md {
			m[k] = v
		}
		rec := dateRows(t, []int64{id}, row)
		defer rec.Release()
		mustWrite(t, h, iohandler.OutputContext{Asset: asset, Metadata: m, Partitions: regionDate, PartitionKeys: []string{key}}, rec)
	}
	check := func(asset string, want ...string) {
		t.Helper()
		uri := h.AssetTableURI(asset, nil)
		tb, err := deltalite.Open(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(tb.PartitionColumns(), ","); got != "region,event_date" {
			t.Errorf("%s: partition columns [%s], want [region, event_date]", asset, got)
		}
		equalRows(t, tablerows.Read(t, uri), want...)
		if got := peers.ReadTable(t, peers.DeltaRS, uri, peers.ReadOptions{}).Lines(t); !slices.Equal(got, tablerows.Read(t, uri)) {
			t.Errorf("%s: delta-rs reads %q, we read %q", asset, got, tablerows.Read(t, uri))
		}
	}

	// delta-rs creates [region, event_date]; the handler appends and
	// overwrites a partition, with the expression's keys in either order.
	drWrite(h.AssetTableURI("theirs", nil), "overwrite", []string{"region", "event_date"}, data([]int64{1, 2}, "us/2024-01-02", "eu/2024-01-02"))
	write("theirs", `{"date": "event_date", "region": "region"}`, "date=2024-01-03,region=us", map[string]string{"delta/mode": "append"}, 3, "us/2024-01-03")
	write("theirs", `{"region": "region", "date": "event_date"}`, "date=2024-01-02,region=us", nil, 4, "us/2024-01-02")
	check("theirs", "event_date=2024-01-02, id=2, region=\"eu\"", "event_date=2024-01-02, id=4, region=\"us\"", "event_date=2024-01-03, id=3, region=\"us\"")

	// The handler creates from {"region", "date"}; delta-rs appends with
	// partition_by [region, event_date], which it checks against the table.
	write("ours", `{"region": "region", "date": "event_date"}`, "date=2024-01-02,region=us", nil, 1, "us/2024-01-02")
	drWrite(h.AssetTableURI("ours", nil), "append", []string{"region", "event_date"}, data([]int64{2}, "eu/2024-01-03"))
	check("ours", "event_date=2024-01-02, id=1, region=\"us\"", "event_date=2024-01-03, id=2, region=\"eu\"")
}
