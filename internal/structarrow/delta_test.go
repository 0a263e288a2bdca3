package structarrow

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// writeOrders writes orders() to a new Delta table in small batches and
// returns its path.
func writeOrders(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	rr, err := NewReader(orders(), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if _, err := deltalite.Write(context.Background(), dir, rr, deltalite.WriteOptions{Mode: deltalite.ModeOverwrite}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkOrders reads rr (and releases it) and compares its rows, by id,
// with stored().
func checkOrders(t *testing.T, rr array.RecordReader) {
	t.Helper()
	defer rr.Release()
	got, err := Collect[Order](rr)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b Order) int { return int(a.ID - b.ID) })
	equalOrders(t, got, stored())
}

func TestDeltaRoundTrip(t *testing.T) {
	dir := writeOrders(t)
	ctx := context.Background()
	tbl, err := deltalite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := tbl.Scan().RecordReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkOrders(t, rr)
}

// delta-rs reads a table written from structs as we wrote it: its rows,
// back through Collect, equal the structs field by field.
func TestDeltaRSReadsStructTable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs delta-rs")
	}
	dir := writeOrders(t)
	tb := peers.ReadTable(t, peers.DeltaRS, dir, peers.ReadOptions{})
	rec, err := tb.Record()
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	checkOrders(t, rr)
}
