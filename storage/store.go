// Package storage is the object-store seam of the engine: a small Store
// interface over a table root, a local-filesystem and an in-memory
// implementation, and a scheme registry that cloud stores join by being
// imported (see storage/cloud).
//
// A Store never interprets Delta: it moves bytes under keys. Keys are
// slash-separated and relative to the store's root; a Store must refuse a key
// that would escape that root. The only way a Delta commit is written is
// PutIfAbsent, which must be atomic create-if-absent on every implementation.
//
// Errors follow one rule on every store (storetest checks it): a missing key
// is NotExistError, a PutIfAbsent that lost is ExistError, a canceled context
// is an error wrapping ctx.Err(), and any other failure is an error that
// never carries a credential (remote stores return *deltalite.Error kinds).
// Callers match with errors.Is, never by type or message.
package storage

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// ErrNotExist is wrapped by every error about a key that does not exist.
var ErrNotExist = errors.New("object does not exist")

// ErrExist is wrapped by the error of PutIfAbsent when the key already
// exists: for a Delta commit, another writer won the race for that version.
var ErrExist = errors.New("object already exists")

// NotExistError is how every store reports a missing key (path names it,
// detail may say more): a *deltalite.Error of kind NotFound wrapping ErrNotExist,
// so callers match it with errors.Is against either, whichever the store.
func NotExistError(path, detail string) error {
	return &errs.Error{Kind: errs.NotFound, Path: path, Msg: detail, Err: ErrNotExist}
}

// ExistError is how every store reports a PutIfAbsent that found its key
// taken: a *deltalite.Error of kind CommitConflict wrapping ErrExist.
func ExistError(path string) error {
	return &errs.Error{Kind: errs.CommitConflict, Path: path, Err: ErrExist}
}

// ObjectInfo describes one stored object.
type ObjectInfo struct {
	Key     string // relative to the store root, slash-separated
	Size    int64
	ModTime time.Time
}

// Reader is a ranged reader over one object, as Parquet needs for footers and
// row groups. ReadAt must be safe for concurrent use.
type Reader interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// Store is a flat namespace of immutable objects under one root.
type Store interface {
	// URL names the root, e.g. "file:///data/t" or "s3://bucket/t".
	URL() string
	// Get streams a whole object.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Open returns a ranged reader; Size is known without reading the object.
	Open(ctx context.Context, key string) (Reader, error)
	// Head describes an object without reading it.
	Head(ctx context.Context, key string) (ObjectInfo, error)
	// List yields objects whose key starts with prefix and sorts strictly
	// after startAfter (all of them when startAfter is ""), in ascending
	// byte order of key.
	List(ctx context.Context, prefix, startAfter string) iter.Seq2[ObjectInfo, error]
	// PutIfAbsent writes data under key only if no object exists there, as one
	// atomic step; it returns an error wrapping ErrExist if one does.
	PutIfAbsent(ctx context.Context, key string, data []byte) error
	// Put writes (or replaces) an object from a stream. Readers never see a
	// partial object.
	Put(ctx context.Context, key string, r io.Reader) error
	// Delete removes objects; keys that do not exist are not an error.
	Delete(ctx context.Context, keys ...string) error
}

// ReadAll reads one whole object.
func ReadAll(ctx context.Context, s Store, key string) ([]byte, error) {
	rc, err := s.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// Collect gathers a listing into a slice.
func Collect(ctx context.Context, s Store, prefix, startAfter string) ([]ObjectInfo, error) {
	var out []ObjectInfo
	for o, err := range s.List(ctx, prefix, startAfter) {
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// Syncer is a Store whose Put may return before the object is durable (the
// local filesystem). Sync returns once the objects would survive a power
// loss. Stores without it are durable when Put returns.
type Syncer interface {
	Sync(ctx context.Context, keys ...string) error
}

// Sync makes objects written by Put durable on stores that need it.
func Sync(ctx context.Context, s Store, keys ...string) error {
	if y, ok := s.(Syncer); ok {
		return y.Sync(ctx, keys...)
	}
	return nil
}

// UploadTuner is a Store that uploads large objects in parts (the cloud
// stores) and can size them per call. WithUploads returns a view of the
// store whose Put sends objects of more than threshold bytes in parts of
// partSize bytes; 0 keeps the store's own setting.
type UploadTuner interface {
	WithUploads(threshold, partSize int64) (Store, error)
}

// WithUploads is s with its uploads sized as asked where s has uploads to
// size, and s itself otherwise.
func WithUploads(s Store, threshold, partSize int64) (Store, error) {
	if t, ok := s.(UploadTuner); ok && (threshold > 0 || partSize > 0) {
		return t.WithUploads(threshold, partSize)
	}
	return s, nil
}

// ContextReader returns r, failing with the context's error once ctx ends,
// so that a long copy stops with its caller.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
