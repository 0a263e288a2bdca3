package vacuum

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// logRange is the key range of _delta_log/: every key from "_delta_log/"
// sorts before "_delta_log0" ('/' < '0').
const logStart, logEnd = "_delta_log/", "_delta_log0"

// keyRange is the keys k with after < k <= upTo ("" upTo: no bound).
type keyRange struct{ after, upTo string }

// listUnneeded lists the table's storage, the stores' temporary files
// included, and returns the files older than cutoff (ms) that are neither
// hidden nor needed, and the number of directories the listing found
// (Spark's count: the root included).
func listUnneeded(ctx context.Context, snap *snapshot.Snapshot, needed map[string]bool, cutoff int64, parallel int, prog *progress) ([]storage.ObjectInfo, int, error) {
	st := snap.Store()
	parts := snap.PartitionColumns()
	ranges := keyRanges(snap, parallel)
	found := make([][]storage.ObjectInfo, len(ranges))
	dirs := make([]map[string]bool, len(ranges))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i, r := range ranges {
		dirs[i] = map[string]bool{}
		g.Go(func() error {
			for o, err := range storage.ListWithTemp(gctx, st, "", r.after) {
				if err != nil {
					return errs.Wrap(errs.Internal, st.URL(), err, "listing the table for VACUUM")
				}
				if r.upTo != "" && o.Key > r.upTo {
					return nil
				}
				prog.add(1, 0)
				if !visible(parts, o.Key, dirs[i]) || needed[o.Key] || o.ModTime.UnixMilli() >= cutoff {
					continue
				}
				found[i] = append(found[i], o)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	all := map[string]bool{}
	for _, d := range dirs {
		for k := range d {
			all[k] = true
		}
	}
	return slices.Concat(found...), len(all) + 1, nil
}

// visible reports whether a vacuum may delete key as far as its name goes:
// no folder on its path is hidden, and its own name is not, or is a
// temporary file of this engine's stores (left by a killed write; another
// engine's hidden files stay). The folders of a key under no hidden folder
// are noted in dirs.
func visible(partitionColumns []string, key string, dirs map[string]bool) bool {
	names := strings.Split(key, "/")
	for i, name := range names[:len(names)-1] {
		if hidden(partitionColumns, name) {
			return false
		}
		dirs[strings.Join(names[:i+1], "/")] = true
	}
	return !hidden(partitionColumns, names[len(names)-1]) || storage.IsTemp(key)
}

// hidden is Spark's DeltaTableUtils.isHiddenDirectory, applied to every
// folder and file name: a name starting with "." or "_" is hidden, except
// partition folders ("col=..." of a partition column), _change_data and
// _delta_index, which hold files a vacuum manages.
func hidden(partitionColumns []string, name string) bool {
	if !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_") {
		return false
	}
	if strings.HasPrefix(name, "_delta_index") || strings.HasPrefix(name, "_change_data") {
		return false
	}
	for _, c := range partitionColumns {
		if strings.HasPrefix(name, c+"=") {
			return false
		}
	}
	return true
}

// seekingSchemes are the stores whose listing starts after a key on the
// server (S3's StartAfter, GCS's StartOffset, the memory store's sorted
// keys). Elsewhere a range costs a listing of everything before it: the
// local file system walks its whole tree, Azure Blob Storage filters on
// the client.
var seekingSchemes = map[string]bool{"s3": true, "s3a": true, "gs": true, "memory": true}

// keyRanges splits the key space for parallel listing at the table's
// top-level folders and root files (thinned to about 4 ranges per lister),
// leaving _delta_log out, on stores that seek; others are listed once.
func keyRanges(snap *snapshot.Snapshot, parallel int) []keyRange {
	if u, err := url.Parse(snap.Store().URL()); err != nil || !seekingSchemes[strings.ToLower(u.Scheme)] || parallel <= 1 {
		return []keyRange{{}}
	}
	tops := map[string]bool{}
	for _, a := range snap.Files() {
		p, err := protocol.ObjectKey(snap.Store().URL(), a.Path)
		if err != nil {
			continue // not a file of this table: no bound needed
		}
		if i := strings.IndexByte(p, '/'); i >= 0 {
			p = p[:i+1]
		}
		if !strings.HasPrefix(p, "_delta_log") {
			tops[p] = true
		}
	}
	bounds := slices.Sorted(func(yield func(string) bool) {
		for k := range tops {
			if !yield(k) {
				return
			}
		}
	})
	if step := len(bounds)/(4*parallel) + 1; step > 1 {
		var thin []string
		for i := step - 1; i < len(bounds); i += step {
			thin = append(thin, bounds[i])
		}
		bounds = thin
	}
	bounds = append(bounds, logStart, logEnd)
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	var out []keyRange
	after := ""
	for _, b := range bounds {
		if after != logStart {
			out = append(out, keyRange{after: after, upTo: b})
		}
		after = b
	}
	return append(out, keyRange{after: after})
}
