package cloud

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
)

// Open returns a ranged reader: each ReadAt is one range request, pinned to
// the version of the object Open saw, so a reader never mixes the bytes of
// two versions. Reads use the context given to Open.
func (s *store) Open(ctx context.Context, key string) (storage.Reader, error) {
	k, full, err := s.fullKey(key)
	if err != nil {
		return nil, err
	}
	m, err := s.b.head(ctx, full)
	if err != nil {
		return nil, s.describeFailure("open", k, err)
	}
	return &rangeReader{ctx: ctx, s: s, key: k, full: full, size: m.size, etag: m.etag}, nil
}

type rangeReader struct {
	ctx    context.Context
	s      *store
	key    string
	full   string
	size   int64
	etag   string
	closed atomic.Bool
}

func (r *rangeReader) Size() int64 { return r.size }

func (r *rangeReader) Close() error {
	r.closed.Store(true)
	return nil
}

// ReadAt follows io.ReaderAt: a short read comes with io.EOF.
func (r *rangeReader) ReadAt(p []byte, off int64) (int, error) {
	if r.closed.Load() {
		return 0, errs.New(errs.Internal, r.s.objectURL(r.key), "read after close")
	}
	if off < 0 {
		return 0, errs.New(errs.InvalidArgument, r.s.objectURL(r.key), "negative read offset %d", off)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	want := min(int64(len(p)), r.size-off)
	rc, err := r.s.b.get(r.ctx, r.full, off, want, r.etag)
	if err != nil {
		if r.s.b.classify(err) == classExists { // the If-Match pin failed
			return 0, errs.New(errs.CorruptTable, r.s.objectURL(r.key), "object was replaced while it was being read")
		}
		return 0, r.s.describeFailure("ranged read", r.key, err)
	}
	defer rc.Close()
	n, err := io.ReadFull(rc, p[:want])
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return n, errs.New(errs.CorruptTable, r.s.objectURL(r.key), "object ended after %d of %d bytes at offset %d (changed while reading?)", n, want, off)
		}
		return n, r.s.describeFailure("ranged read", r.key, err)
	}
	if want < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}
