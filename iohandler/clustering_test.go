package iohandler_test

import (
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
)

// TestClusterBy: delta/cluster_by creates a liquid-clustered table (mode
// overwrite and merge alike), the next writes keep it, and it is refused
// with delta/partition_expr or an empty column name.
func TestClusterBy(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	rec := batch([]int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"})
	defer rec.Release()
	md := map[string]string{iohandler.KeyClusterBy: "day, id"}
	mustWrite(t, h, iohandler.OutputContext{Asset: "c", Metadata: md}, rec)
	mustWrite(t, h, iohandler.OutputContext{Asset: "c", Metadata: map[string]string{iohandler.KeyClusterBy: "day,id", iohandler.KeyMode: "append"}}, rec)
	tb, err := deltalite.Open(ctx, h.AssetTableURI("c", nil))
	if err != nil {
		t.Fatal(err)
	}
	if cols, err := tb.Snapshot().ClusteringColumns(); err != nil || !slices.Equal(cols, []string{"day", "id"}) || tb.Version() != 1 {
		t.Fatalf("clustering columns %v (%v) at version %d", cols, err, tb.Version())
	}
	_, err = h.HandleOutput(ctx, iohandler.OutputContext{Asset: "d", Metadata: map[string]string{iohandler.KeyClusterBy: "id", iohandler.KeyPartitionExpr: "day"}}, rec)
	wantErr(t, err, "delta/cluster_by", "cannot be partitioned too")
	_, err = h.HandleOutput(ctx, iohandler.OutputContext{Asset: "d", Metadata: map[string]string{iohandler.KeyClusterBy: "id,"}}, rec)
	wantErr(t, err, "delta/cluster_by", "an empty column name")
	_, err = h.HandleOutput(ctx, iohandler.OutputContext{Asset: "c", Metadata: map[string]string{iohandler.KeyClusterBy: "name", iohandler.KeyMode: "append"}}, rec)
	wantErr(t, err, "clustered by [day, id], not [name]")
}
