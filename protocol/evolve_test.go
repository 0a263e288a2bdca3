package protocol

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
)

// Under column mapping the evolved schema's new field gets the next id and
// a physical name, the copy's maxColumnId follows, and the table's
// metadata is left as it was; without column mapping only the schema
// changes.
func TestMetadataWithSchema(t *testing.T) {
	old := `{"type":"struct","fields":[` +
		`{"name":"a","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a"}},` +
		`{"name":"b","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-b"}}]}`
	md := &Metadata{ID: "t", SchemaString: old, Configuration: map[string]string{
		PropColumnMappingMode: "name", PropColumnMappingMaxID: "2", "user.key": "kept",
	}}
	evolve := func() *schema.Struct {
		s, err := schema.Parse(old)
		if err != nil {
			t.Fatal(err)
		}
		s.Fields = append(s.Fields, &schema.Field{Name: "c", Type: &schema.Primitive{Name: schema.String}, Nullable: true})
		return s
	}

	next := md.WithSchema(evolve(), schema.MappingName)
	if md.Configuration[PropColumnMappingMaxID] != "2" || md.SchemaString != old {
		t.Fatalf("the table's metadata changed: %+v", md)
	}
	if next.Configuration[PropColumnMappingMaxID] != "3" || next.Configuration["user.key"] != "kept" || next.ID != "t" {
		t.Fatalf("configuration %v", next.Configuration)
	}
	got, err := schema.Parse(next.SchemaString)
	if err != nil {
		t.Fatal(err)
	}
	c := got.Field("c")
	if id, ok := c.ColumnID(); !ok || id != 3 || !strings.HasPrefix(c.PhysicalName(schema.MappingName), "col-") {
		t.Fatalf("new field %+v", c)
	}
	if id, _ := got.Field("a").ColumnID(); id != 1 || got.Field("b").PhysicalName(schema.MappingName) != "col-b" {
		t.Fatalf("old fields reassigned: %s", next.SchemaString)
	}

	plain := &Metadata{SchemaString: old, Configuration: map[string]string{"user.key": "kept"}}
	s := evolve()
	next = plain.WithSchema(s, schema.MappingNone)
	if _, ok := next.Configuration[PropColumnMappingMaxID]; ok || next.SchemaString != s.JSON() {
		t.Fatalf("without column mapping: %+v", next)
	}
	if _, ok := s.Field("c").ColumnID(); ok {
		t.Fatal("an id was assigned without column mapping")
	}
}
