package scan

import (
	"context"
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// openTable loads the latest snapshot of a conformance table (a path
// relative to the corpus root).
func openTable(t testing.TB, rel string) *snapshot.Snapshot {
	t.Helper()
	st, err := storage.NewLocal(corpus.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Load(context.Background(), st)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return snap
}

// altered is a Source with some of its parts replaced, for tests of what a
// real log would rarely hold.
type altered struct {
	Source
	files  []*protocol.Add
	schema *schema.Struct
	store  storage.Store
}

func (a *altered) Files() []*protocol.Add {
	if a.files != nil {
		return a.files
	}
	return a.Source.Files()
}

func (a *altered) Schema() *schema.Struct {
	if a.schema != nil {
		return a.schema
	}
	return a.Source.Schema()
}

func (a *altered) Store() storage.Store {
	if a.store != nil {
		return a.store
	}
	return a.Source.Store()
}
