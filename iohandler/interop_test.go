package iohandler_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/internal/testkit/peers"
	"github.com/deltalite-go/deltalite/internal/testkit/tablerows"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
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
