package iohandler_test

import (
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// The handler's schema mode merge widens an asset table's column through
// the engine's type widening, in its append and its merge alike, when the
// table enables it.
func TestHandlerWidensColumns(t *testing.T) {
	h := mergeHandler(t, `{"merge_type": "upsert", "predicate": "s.id = t.id"}`)
	sc := &schema.Struct{Fields: []*schema.Field{
		{Name: "id", Type: &schema.Primitive{Name: schema.Integer}, Nullable: true},
		{Name: "v", Type: &schema.Primitive{Name: schema.String}, Nullable: true},
	}}
	plain, wide := h.AssetTableURI("plain", nil), h.AssetTableURI("wide", nil)
	if _, err := deltalite.Create(ctx, plain, sc, deltalite.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := deltalite.Create(ctx, wide, sc, deltalite.CreateOptions{Properties: map[string]string{"delta.enableTypeWidening": "true"}}); err != nil {
		t.Fatal(err)
	}
	merge := map[string]string{"delta/schema_mode": "merge"}
	// Without type widening the table keeps its type: the source is cast
	// to it (as Spark's MERGE casts), and a value it cannot hold is refused.
	if _, err := writeKV(t, h, "plain", merge, "1:a"); err != nil {
		t.Fatal(err)
	}
	if _, err := writeKV(t, h, "plain", merge, "5000000000:x"); err == nil {
		t.Fatalf("5000000000 merged into an integer column")
	}
	if p, err := deltalite.Open(ctx, plain); err != nil || p.Snapshot().Schema().String() != "struct<id:integer,v:string>" {
		t.Fatalf("table without type widening: %v", err)
	}
	if _, err := writeKV(t, h, "wide", merge, "1:a", "2:b"); err != nil {
		t.Fatal(err)
	}
	tb, err := deltalite.Open(ctx, wide)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.Snapshot().Schema().String(); got != "struct<id:long,v:string>" {
		t.Fatalf("schema after the handler's merge: %s", got)
	}
	if _, err := writeKV(t, h, "wide", map[string]string{"delta/mode": "append", "delta/schema_mode": "merge"}, "5000000000:c"); err != nil {
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, wide), kvRows("1:a", "2:b", "5000000000:c")...)
}
