package upsert

import (
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// fileWork is one file of a touched partition and what planning learned.
type fileWork struct {
	add *protocol.Add
	key string // object key; "" when only scan can resolve the path
	// rewrite: the file holds a source key (probe) or could (other
	// strategies), so it is rewritten.
	rewrite bool
	probed  bool
	// bytesPerRow estimates a decoded row, from the Parquet footer; 0
	// when unknown.
	bytesPerRow float64
	// overhead estimates what a reader of every column holds besides its
	// batches (pages, dictionaries).
	overhead int64
	// checkFrom is the first row position that can hold a source key:
	// rows before it lie in row groups the probe cleared.
	checkFrom int64
	why       string // why the file was carried over, for tests and traces
}

// oneFile is a scan.Source of one file of a snapshot, so that scan's
// reader (deletion vectors, column mapping, casts, partition constants)
// serves a file at a time.
type oneFile struct {
	snap *snapshot.Snapshot
	add  *protocol.Add
}

func (o oneFile) Store() storage.Store       { return o.snap.Store() }
func (o oneFile) Schema() *schema.Struct     { return o.snap.Schema() }
func (o oneFile) PartitionColumns() []string { return o.snap.PartitionColumns() }
func (o oneFile) ColumnMapping() schema.Mode { return o.snap.ColumnMapping() }
func (o oneFile) Files() []*protocol.Add     { return []*protocol.Add{o.add} }

// objectKey resolves an add path to the object key of the data file by
// protocol.ObjectKey's rule; ok is false for a path it cannot resolve
// safely (scan then reports why).
func objectKey(st storage.Store, p string) (string, bool) {
	key, err := protocol.ObjectKey(st.URL(), p)
	return key, err == nil
}
