package upsert

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

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

// matchField finds which of a file's top-level fields stores the table
// field f, or -1 when the file predates it: by Parquet field id under id
// mapping (when the file has ids), else by physical name, and without
// mapping also case-insensitively, as Spark resolves columns.
func matchField(cands []*arrow.Field, f *schema.Field, mode schema.Mode) int {
	if mode == schema.MappingID {
		if id, ok := f.ColumnID(); ok {
			anyID := false
			for i, c := range cands {
				v, has := c.Metadata.GetValue(schema.ParquetFieldIDKey)
				if !has {
					continue
				}
				anyID = true
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n == id {
					return i
				}
			}
			if anyID {
				return -1
			}
		}
	}
	name := f.PhysicalName(mode)
	for i, c := range cands {
		if c.Name == name {
			return i
		}
	}
	if mode == schema.MappingNone {
		for i, c := range cands {
			if strings.EqualFold(c.Name, name) {
				return i
			}
		}
	}
	return -1
}
