package iohandler_test

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// The handler's writes go through the engine's column rules: on an asset
// table with an identity column and a generated one, append and merge
// number and compute them (the merge's update computes the generated
// column again and keeps the identity value).
func TestHandlerKeepsColumnRules(t *testing.T) {
	h := mergeHandler(t, `{"merge_type": "upsert", "predicate": "s.id = t.id"}`)
	uri := h.AssetTableURI("a", nil)
	sc := &schema.Struct{Fields: []*schema.Field{
		{Name: "id", Type: &schema.Primitive{Name: schema.Long}, Nullable: true},
		{Name: "v", Type: &schema.Primitive{Name: schema.String}, Nullable: true},
		(&schema.Field{Name: "n", Type: &schema.Primitive{Name: schema.Long}}).Identity(1, 1, true),
		(&schema.Field{Name: "up", Type: &schema.Primitive{Name: schema.String}, Nullable: true}).Generated("upper(v)"),
	}}
	if _, err := deltalite.Create(ctx, uri, sc, deltalite.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := writeKV(t, h, "a", map[string]string{"delta/mode": "append"}, "1:a", "2:b"); err != nil {
		t.Fatal(err)
	}
	if _, err := writeKV(t, h, "a", nil, "2:x", "3:c"); err != nil { // the handler's merge mode
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, uri),
		`id=1, n=1, up="A", v="a"`, `id=2, n=2, up="X", v="x"`, `id=3, n=3, up="C", v="c"`)
	_, err := writeKV(t, h, "a", map[string]string{"delta/mode": "append"}, "4:")
	if err != nil {
		t.Fatal(err)
	}
	if rows := tablerows.Read(t, uri); !strings.Contains(strings.Join(rows, "\n"), `id=4, n=4, up="", v=""`) {
		t.Fatalf("rows %q", rows)
	}
}

// The handler's session time zone (session_time_zone, else
// DELTALITE_SESSION_TIME_ZONE) is the one its writes compute generated
// columns in; a zone Spark would not read is refused by New, naming the
// setting.
func TestHandlerSessionTimeZone(t *testing.T) {
	sc := &schema.Struct{Fields: []*schema.Field{
		{Name: "id", Type: &schema.Primitive{Name: schema.Long}, Nullable: true},
		{Name: "v", Type: &schema.Primitive{Name: schema.String}, Nullable: true},
		(&schema.Field{Name: "hm", Type: &schema.Primitive{Name: schema.String}, Nullable: true}).Generated("from_unixtime(id, 'HH:mm')"),
	}}
	for _, c := range []struct{ cfg, env, want string }{
		{"+05:30", "America/Los_Angeles", `hm="05:30", id=0, v="a"`},
		{"", "America/Los_Angeles", `hm="16:00", id=0, v="a"`},
		{"", "", `hm="00:00", id=0, v="a"`},
	} {
		t.Setenv(iohandler.EnvSessionTimeZone, c.env)
		h := newHandler(t, iohandler.Config{SessionTimeZone: c.cfg})
		uri := h.AssetTableURI("a", nil)
		if _, err := deltalite.Create(ctx, uri, sc, deltalite.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := writeKV(t, h, "a", map[string]string{"delta/mode": "append"}, "0:a"); err != nil {
			t.Fatal(err)
		}
		equalRows(t, tablerows.Read(t, uri), c.want)
	}
	t.Setenv(iohandler.EnvSessionTimeZone, "")
	if _, err := iohandler.New(iohandler.Config{TableURI: t.TempDir(), SessionTimeZone: "Mars/Olympus"}); err == nil ||
		!strings.Contains(err.Error(), "session_time_zone") || !strings.Contains(err.Error(), "Mars/Olympus") {
		t.Fatalf("a bad zone: %v", err)
	}
}
