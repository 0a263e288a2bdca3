package cloud

import (
	"bytes"
	"context"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
)

// storeInfo names a store for its URL and its error messages.
type storeInfo struct {
	url            string // URL(): no credentials, no query
	bucket         string
	bucketWord     string // "bucket" or "container"
	root           string // key prefix of the table in the bucket: "" or ending in "/"
	endpoint       string // for messages, e.g. `S3 endpoint "http://127.0.0.1:7070"`
	credentialHint string // the options that carry credentials
}

// store is a storage.Store over one cloud backend.
type store struct {
	b    backend
	info storeInfo
	mp   uploadPlan
	red  *redactor
	cond *conditional
}

var _ storage.Store = (*store)(nil)

func (s *store) URL() string { return s.info.url }

func (s *store) objectURL(key string) string {
	if key == "" {
		return s.info.url
	}
	return s.info.url + "/" + key
}

// fullKey checks a caller's key and puts the table root in front of it.
func (s *store) fullKey(key string) (string, string, error) {
	k, err := storage.CleanKey(key)
	if err != nil {
		return "", "", errs.Wrap(errs.InvalidArgument, s.objectURL(""), err, "bad object key")
	}
	return k, s.info.root + k, nil
}

func (s *store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	k, full, err := s.fullKey(key)
	if err != nil {
		return nil, err
	}
	rc, err := s.b.get(ctx, full, 0, -1, "")
	if err != nil {
		return nil, s.describeFailure("read", k, err)
	}
	return &bodyReader{rc: rc, s: s, key: k}, nil
}

// bodyReader describes a failure in the middle of a download like any other.
type bodyReader struct {
	rc  io.ReadCloser
	s   *store
	key string
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	if err != nil && err != io.EOF {
		err = r.s.describeFailure("read", r.key, err)
	}
	return n, err
}

func (r *bodyReader) Close() error { return r.rc.Close() }

func (s *store) Head(ctx context.Context, key string) (storage.ObjectInfo, error) {
	k, full, err := s.fullKey(key)
	if err != nil {
		return storage.ObjectInfo{}, err
	}
	m, err := s.b.head(ctx, full)
	if err != nil {
		return storage.ObjectInfo{}, s.describeFailure("head", k, err)
	}
	return storage.ObjectInfo{Key: k, Size: m.size, ModTime: m.mod}, nil
}

func (s *store) List(ctx context.Context, prefix, startAfter string) iter.Seq2[storage.ObjectInfo, error] {
	return func(yield func(storage.ObjectInfo, error) bool) {
		if strings.HasPrefix(prefix, "/") || strings.HasPrefix(prefix, "../") || strings.Contains(prefix, "/../") {
			yield(storage.ObjectInfo{}, errs.New(errs.InvalidArgument, s.objectURL(""), "list prefix %q leaves the store root", prefix))
			return
		}
		after := ""
		if startAfter != "" {
			after = s.info.root + startAfter
		}
		for m, err := range s.b.list(ctx, s.info.root+prefix, after) {
			if err != nil {
				yield(storage.ObjectInfo{}, s.describeFailure("list", prefix, err))
				return
			}
			key := strings.TrimPrefix(m.key, s.info.root)
			if !yield(storage.ObjectInfo{Key: key, Size: m.size, ModTime: m.mod}, nil) {
				return
			}
		}
	}
}

// PutIfAbsent is the commit primitive. A request the server rejects because
// the key exists is a lost race (ErrExist); a concurrent conditional write
// still in flight (S3's 409) is retried briefly and then also reported as a
// lost race, for the transaction to re-read the log and try again.
func (s *store) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	k, full, err := s.fullKey(key)
	if err != nil {
		return err
	}
	mode, err := s.commitMode(ctx)
	if err != nil {
		return err
	}
	if mode == condUnsafe {
		return s.unsafePutIfAbsent(ctx, k, full, data)
	}
	for attempt := 0; ; attempt++ {
		err := s.b.createIfAbsent(ctx, full, data)
		if err == nil {
			return nil
		}
		switch s.b.classify(err) {
		case classConflict:
			if attempt < conflictRetries && sleepCtx(ctx, conflictBackoff(attempt)) == nil {
				continue
			}
			return s.lostRace(k)
		case classExists:
			// A retried request whose first attempt did land finds our own
			// bytes: that is a win, not a lost race.
			if s.holds(ctx, full, data) {
				return nil
			}
			return s.lostRace(k)
		}
		return s.describeFailure("conditional write", k, err)
	}
}

const conflictRetries = 5

func conflictBackoff(attempt int) time.Duration {
	return time.Duration(20<<attempt) * time.Millisecond // 20ms .. 320ms
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s *store) lostRace(key string) error {
	return storage.ExistError(s.objectURL(key))
}

// holds reports whether the object under full has exactly data as content.
func (s *store) holds(ctx context.Context, full string, data []byte) bool {
	rc, err := s.b.get(ctx, full, 0, -1, "")
	if err != nil {
		return false
	}
	defer rc.Close()
	got, err := io.ReadAll(io.LimitReader(rc, int64(len(data))+1))
	return err == nil && bytes.Equal(got, data)
}

// unsafePutIfAbsent is the single-writer fallback: check, then write. Two
// writers can both pass the check; the user accepted that by name.
func (s *store) unsafePutIfAbsent(ctx context.Context, k, full string, data []byte) error {
	if _, err := s.b.head(ctx, full); err == nil {
		return s.lostRace(k)
	} else if s.b.classify(err) != classNotFound {
		return s.describeFailure("head", k, err)
	}
	if err := s.b.putBytes(ctx, full, data); err != nil {
		return s.describeFailure("write", k, err)
	}
	return nil
}

// WithUploads is the store with another multipart threshold or part size,
// for one call's writes.
func (s *store) WithUploads(threshold, partSize int64) (storage.Store, error) {
	c := *s
	if threshold > 0 {
		c.mp.Threshold = threshold
	}
	if partSize > 0 {
		c.mp.PartSize = partSize
	}
	if err := c.mp.validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Put streams an object: one request up to the multipart threshold,
// otherwise a multipart upload that only becomes visible when complete, so
// a failed or cancelled Put leaves nothing behind under key.
func (s *store) Put(ctx context.Context, key string, r io.Reader) error {
	k, full, err := s.fullKey(key)
	if err != nil {
		return err
	}
	if _, err := s.commitMode(ctx); err != nil {
		return err
	}
	head, more, err := readHead(storage.ContextReader(ctx, r), s.mp.Threshold)
	if err != nil {
		return s.describeFailure("write", k, err)
	}
	if !more {
		err = s.b.putBytes(ctx, full, head)
	} else {
		err = s.b.putMultipart(ctx, full, head, storage.ContextReader(ctx, r), s.mp)
	}
	if err != nil {
		return s.describeFailure("write", k, err)
	}
	return nil
}

func (s *store) Delete(ctx context.Context, keys ...string) error {
	full := make([]string, 0, len(keys))
	for _, key := range keys {
		_, f, err := s.fullKey(key)
		if err != nil {
			return err
		}
		full = append(full, f)
	}
	if len(full) == 0 {
		return nil
	}
	if err := s.b.deleteKeys(ctx, full); err != nil {
		first := ""
		if len(keys) == 1 {
			first = keys[0]
		}
		return s.describeFailure("delete", first, err)
	}
	return nil
}
