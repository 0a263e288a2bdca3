package cloud

import (
	"context"
	"errors"
	"io"
	"iter"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
)

// gcsBackend talks to Cloud Storage with its Go SDK: create-if-absent is
// ifGenerationMatch=0, a read pinned to a version is a generation match,
// and listings start from a key with startOffset.
type gcsBackend struct {
	bucket *storage.BucketHandle
	// rawReads asks for stored bytes even of gzip-encoded objects, so sizes
	// and ranges match Head; only the XML read path supports it.
	rawReads bool
}

// chunkAlign is the unit GCS resumable uploads are cut in.
const chunkAlign = 256 << 10

func alignChunk(n int64) int {
	return int((n + chunkAlign - 1) / chunkAlign * chunkAlign)
}

func (b *gcsBackend) object(key string) *storage.ObjectHandle {
	o := b.bucket.Object(key)
	if b.rawReads {
		o = o.ReadCompressed(true)
	}
	return o
}

func (b *gcsBackend) get(ctx context.Context, key string, offset, length int64, etag string) (io.ReadCloser, error) {
	o := b.object(key)
	if etag != "" {
		gen, err := strconv.ParseInt(etag, 10, 64)
		if err == nil {
			o = o.If(storage.Conditions{GenerationMatch: gen})
		}
	}
	if length < 0 {
		length = -1
	}
	return o.NewRangeReader(ctx, offset, length)
}

func (b *gcsBackend) head(ctx context.Context, key string) (objectMeta, error) {
	a, err := b.object(key).Attrs(ctx)
	if err != nil {
		return objectMeta{}, err
	}
	return objectMeta{key: key, size: a.Size, mod: a.Updated, etag: strconv.FormatInt(a.Generation, 10)}, nil
}

func (b *gcsBackend) list(ctx context.Context, prefix, startAfter string) iter.Seq2[objectMeta, error] {
	return func(yield func(objectMeta, error) bool) {
		q := &storage.Query{Prefix: prefix, StartOffset: startAfter} // StartOffset is inclusive
		if err := q.SetAttrSelection([]string{"Name", "Size", "Updated", "Generation"}); err != nil {
			yield(objectMeta{}, err)
			return
		}
		it := b.bucket.Objects(ctx, q)
		for {
			a, err := it.Next()
			if err == iterator.Done {
				return
			}
			if err != nil {
				yield(objectMeta{}, err)
				return
			}
			if a.Name <= startAfter || strings.HasSuffix(a.Name, "/") {
				continue
			}
			if !yield(objectMeta{key: a.Name, size: a.Size, mod: a.Updated, etag: strconv.FormatInt(a.Generation, 10)}, nil) {
				return
			}
		}
	}
}

// write uploads data in one buffered request, which the SDK can retry.
func (b *gcsBackend) write(ctx context.Context, o *storage.ObjectHandle, data []byte) error {
	w := o.NewWriter(ctx)
	w.ChunkSize = alignChunk(int64(len(data)) + 1)
	if _, err := w.Write(data); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

func (b *gcsBackend) createIfAbsent(ctx context.Context, key string, data []byte) error {
	return b.write(ctx, b.bucket.Object(key).If(storage.Conditions{DoesNotExist: true}), data)
}

func (b *gcsBackend) putBytes(ctx context.Context, key string, data []byte) error {
	return b.write(ctx, b.bucket.Object(key), data)
}

// putMultipart is a resumable upload in chunks of the part size; the object
// appears only when the last chunk is in. GCS sends chunks one at a time.
func (b *gcsBackend) putMultipart(ctx context.Context, key string, head []byte, rest io.Reader, mp uploadPlan) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := b.bucket.Object(key).NewWriter(ctx)
	w.ChunkSize = alignChunk(mp.PartSize)
	_, err := w.Write(head)
	if err == nil {
		_, err = io.Copy(w, rest)
	}
	if err != nil {
		cancel() // abandons the upload: nothing is finalized
		_ = w.Close()
		return err
	}
	return w.Close()
}

func (b *gcsBackend) deleteKeys(ctx context.Context, keys []string) error {
	var missing atomic.Bool
	err := forEachLimit(ctx, keys, 16, func(ctx context.Context, k string) error {
		err := b.bucket.Object(k).Delete(ctx)
		if err != nil && b.classify(err) == classNotFound {
			missing.Store(true)
			return nil
		}
		return err
	})
	if err == nil && missing.Load() {
		// The SDK reports a missing bucket as a missing object; tell the
		// two apart (other failures of this check are not the caller's).
		if _, aerr := b.bucket.Attrs(ctx); errors.Is(aerr, storage.ErrBucketNotExist) {
			return aerr
		}
	}
	return err
}

// gcsShouldRetry is the SDK's retry rule minus failures to connect: the
// SDK retries those until the caller's deadline, and an endpoint that
// refuses connections or does not resolve is not coming back in time.
func gcsShouldRetry(err error) bool {
	if netClass(err) == classUnreachable {
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() || isDialError(err) {
			return false
		}
	}
	return storage.ShouldRetry(err)
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func (b *gcsBackend) classify(err error) errClass {
	if c := netClass(err); c == classCanceled {
		return c
	}
	switch {
	case errors.Is(err, storage.ErrObjectNotExist):
		return classNotFound
	case errors.Is(err, storage.ErrBucketNotExist):
		return classNoBucket
	}
	var ae *auth.Error
	if errors.As(err, &ae) {
		return classDenied // the token could not be obtained
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		if ge.Code == http.StatusNotFound && strings.Contains(strings.ToLower(ge.Message), "bucket") {
			return classNoBucket
		}
		if c, ok := statusClass(ge.Code); ok {
			return c
		}
	}
	return netClass(err)
}
