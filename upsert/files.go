package upsert

import (
	"net/url"
	"strings"

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

// objectKey resolves an add path to the object key of the data file; ok
// is false for a path it cannot resolve safely (scan then reports why).
func objectKey(st storage.Store, p string) (string, bool) {
	rel := p
	if i := strings.Index(p, "://"); i > 0 || strings.HasPrefix(p, "file:") {
		u, err := url.Parse(p)
		if err != nil {
			return "", false
		}
		root, err := url.Parse(st.URL())
		if err != nil || !strings.EqualFold(u.Scheme, root.Scheme) || u.Host != root.Host {
			return "", false
		}
		prefix := strings.TrimSuffix(root.Path, "/") + "/"
		if !strings.HasPrefix(u.Path, prefix) {
			return "", false
		}
		rel = u.Path[len(prefix):]
	} else {
		d, err := protocol.DecodePath(p)
		if err != nil {
			return "", false
		}
		rel = d
	}
	key, err := storage.CleanKey(rel)
	if err != nil {
		return "", false
	}
	return key, true
}
