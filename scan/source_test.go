package scan

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

const conformance = "../../shared/conformance"

// logSource is a test-only Source: it replays a table's JSON commits (the
// latest add or remove per path and deletion vector wins, the last
// metaData wins).
type logSource struct {
	st    storage.Store
	sc    *schema.Struct
	parts []string
	mode  schema.Mode
	files []*protocol.Add
}

func (s *logSource) Store() storage.Store       { return s.st }
func (s *logSource) Schema() *schema.Struct     { return s.sc }
func (s *logSource) PartitionColumns() []string { return s.parts }
func (s *logSource) ColumnMapping() schema.Mode { return s.mode }
func (s *logSource) Files() []*protocol.Add     { return s.files }

// openTable replays the JSON log of a table directory.
func openTable(t testing.TB, dir string) *logSource {
	t.Helper()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "_delta_log", "*.json"))
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("no commits under %s", dir)
	}
	s := &logSource{st: st}
	live := map[string]*protocol.Add{}
	var order []string
	for _, name := range names {
		if strings.HasPrefix(filepath.Base(name), ".") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		actions, err := protocol.DecodeCommit(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, a := range actions {
			switch {
			case a.Metadata != nil:
				if s.sc, err = schema.Parse(a.Metadata.SchemaString); err != nil {
					t.Fatal(err)
				}
				if s.mode, err = schema.ParseMode(a.Metadata.Configuration["delta.columnMapping.mode"]); err != nil {
					t.Fatal(err)
				}
				s.parts = a.Metadata.PartitionColumns
			case a.Add != nil:
				k := a.Add.Path + "\x00" + a.Add.DeletionVector.UniqueID()
				if _, ok := live[k]; !ok {
					order = append(order, k)
				}
				live[k] = a.Add
			case a.Remove != nil:
				delete(live, a.Remove.Path+"\x00"+a.Remove.DeletionVector.UniqueID())
			}
		}
	}
	for _, p := range order {
		if a, ok := live[p]; ok {
			s.files = append(s.files, a)
			delete(live, p) // a path re-added after removal appears once
		}
	}
	return s
}
