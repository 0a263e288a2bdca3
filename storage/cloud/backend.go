package cloud

import (
	"context"
	"io"
	"iter"
	"time"
)

// backend is what a cloud must provide; store turns it into a
// storage.Store. Keys here are full object keys inside the bucket (the
// table root already prepended) and errors are the SDK's own: the store
// classifies and redacts them.
type backend interface {
	// get streams length bytes from offset (length < 0: to the end). A
	// non-empty etag pins the read to that version of the object.
	get(ctx context.Context, key string, offset, length int64, etag string) (io.ReadCloser, error)
	head(ctx context.Context, key string) (objectMeta, error)
	// list yields keys that start with prefix and sort after startAfter,
	// in ascending byte order.
	list(ctx context.Context, prefix, startAfter string) iter.Seq2[objectMeta, error]
	// createIfAbsent writes data only if no object exists under key, in
	// one request that the server checks atomically.
	createIfAbsent(ctx context.Context, key string, data []byte) error
	// putBytes writes (or replaces) a small object in one request.
	putBytes(ctx context.Context, key string, data []byte) error
	// putMultipart writes head and then rest as a multipart upload that
	// becomes visible only when complete.
	putMultipart(ctx context.Context, key string, head []byte, rest io.Reader, mp uploadPlan) error
	// deleteKeys removes objects; missing keys are not an error.
	deleteKeys(ctx context.Context, keys []string) error
	classify(err error) errClass
}

type objectMeta struct {
	key  string
	size int64
	mod  time.Time
	etag string
}
