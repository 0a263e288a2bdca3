package datafile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

const mappedSchema = `{"type":"struct","fields":[
{"name":"id","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a1"}},
{"name":"s","type":{"type":"struct","fields":[
  {"name":"x","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-c3"}}]},
 "nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-b2"}},
{"name":"p","type":"integer","nullable":true,"metadata":{"delta.columnMapping.id":4,"delta.columnMapping.physicalName":"col-d4"}}]}`

func TestColumnMappingWritesPhysicalNamesAndIDs(t *testing.T) {
	for _, mode := range []schema.Mode{schema.MappingName, schema.MappingID} {
		t.Run(string(mode), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			sc := mustSchema(t, mappedSchema)
			rec := batch(t, mem, sc, `[{"id":1,"s":{"x":"a"},"p":7},{"id":2,"s":null,"p":7},{"id":3,"s":{"x":"b"},"p":null}]`)
			defer rec.Release()
			st := storage.NewMemory()
			adds := writeAll(t, st, Options{Schema: sc, PartitionColumns: []string{"p"}, ColumnMapping: mode, Allocator: mem}, rec)
			if len(adds) != 2 {
				t.Fatalf("%d files, want 2", len(adds))
			}
			for _, a := range adds {
				if _, ok := a.PartitionValues["col-d4"]; !ok || len(a.PartitionValues) != 1 {
					t.Errorf("partition values %v, want keyed by the physical name col-d4", a.PartitionValues)
				}
				// Random two-character directories, as Spark writes them.
				dir, name, _ := strings.Cut(a.Path, "/")
				if len(dir) != 2 || !strings.HasPrefix(name, "part-") {
					t.Errorf("path %q, want XX/part-...", a.Path)
				}
				var raw map[string]json.RawMessage
				if err := json.Unmarshal([]byte(a.Stats), &raw); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(raw["nullCount"]), `"col-a1":0`) || !strings.Contains(string(raw["nullCount"]), `"col-b2":{"col-c3":`) {
					t.Errorf("stats not keyed by physical names: %s", a.Stats)
				}
				if f := stats.Parse(a.Stats, sc, mode); f.Column("s", "x").NullCount < 0 || !f.Column("id").Min.Known() {
					t.Errorf("stats do not parse under %s mapping: %s", mode, a.Stats)
				}
				checkParquetFields(t, st, a, map[string]int32{"col-a1": 1, "col-b2": 2, "col-b2.col-c3": 3})
			}
			got := readRows(t, &addsSource{st: st, sc: sc, parts: []string{"p"}, mode: mode, files: adds})
			arrowrows.Diff(t, got, arrowrows.Rows(rec))
		})
	}
}

// checkParquetFields asserts the file's fields are exactly the given
// dotted physical paths with their field ids.
func checkParquetFields(t *testing.T, st storage.Store, a *protocol.Add, want map[string]int32) {
	t.Helper()
	pf := openParquet(t, st, a)
	got := map[string]int32{}
	var walk func(prefix string, n pqschema.Node)
	walk = func(prefix string, n pqschema.Node) {
		name := prefix + n.Name()
		got[name] = n.FieldID()
		if g, ok := n.(*pqschema.GroupNode); ok {
			for i := 0; i < g.NumFields(); i++ {
				walk(name+".", g.Field(i))
			}
		}
	}
	root := pf.MetaData().Schema.Root()
	for i := 0; i < root.NumFields(); i++ {
		walk("", root.Field(i))
	}
	if len(got) != len(want) {
		t.Errorf("file fields %v, want %v", got, want)
	}
	for k, id := range want {
		if g, ok := got[k]; !ok || g != id {
			t.Errorf("file field %s: id %d (present %v), want %d", k, g, ok, id)
		}
	}
}
