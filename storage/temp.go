package storage

import (
	"context"
	"iter"
	"path"
	"strings"
)

// TempPrefix starts the name of every object a store writes for its own
// use rather than at a caller's key: the local store's files being
// written (renamed to their key once complete), the cloud stores'
// conditional-write probes. A process killed in the middle leaves them
// behind; IsTemp is how a vacuum tells them from other engines' hidden
// files.
const TempPrefix = ".deltalite-tmp-"

// IsTemp reports whether key names a store's temporary object.
func IsTemp(key string) bool { return strings.HasPrefix(path.Base(key), TempPrefix) }

// TempLister is a Store whose List leaves out its temporary objects (the
// local store, whose in-flight writes are files of their own).
// ListWithTemp lists as List does, those included.
type TempLister interface {
	ListWithTemp(ctx context.Context, prefix, startAfter string) iter.Seq2[ObjectInfo, error]
}

// ListWithTemp lists s as List does, with the temporary objects its List
// leaves out.
func ListWithTemp(ctx context.Context, s Store, prefix, startAfter string) iter.Seq2[ObjectInfo, error] {
	if t, ok := s.(TempLister); ok {
		return t.ListWithTemp(ctx, prefix, startAfter)
	}
	return s.List(ctx, prefix, startAfter)
}
