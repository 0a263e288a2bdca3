package upsert

import (
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/protocol"
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
	// when unknown. overhead estimates what a reader of every column holds
	// besides its batches (pages, dictionaries). The rewrite's readers
	// reserve by them (rewrite.Options.ReadCost).
	bytesPerRow float64
	overhead    int64
	// checkFrom is the first row position that can hold a source key:
	// rows before it lie in row groups the probe cleared.
	checkFrom int64
	why       string // why the file was carried over, for tests and traces
	// hits are the positions of the file's live rows that hold a source
	// key, and hitUpdates / hitDeletes how many of them the source updates
	// and deletes: set by a full probe (run.fullProbe) only, nil else.
	hits                   *dv.Bitmap
	hitUpdates, hitDeletes int64
	// next is the position of the next row its rewrite reads.
	next int64
}

// objectKey resolves an add path to the object key of the data file by
// protocol.ObjectKey's rule; ok is false for a path it cannot resolve
// safely (scan then reports why).
func objectKey(st storage.Store, p string) (string, bool) {
	key, err := protocol.ObjectKey(st.URL(), p)
	return key, err == nil
}
