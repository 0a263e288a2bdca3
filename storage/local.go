package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Local is a Store on the local filesystem rooted at a directory.
type Local struct {
	root string // absolute, OS separators
}

// NewLocal returns a store rooted at dir; the directory need not exist yet.
func NewLocal(dir string) (*Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Local{root: abs}, nil
}

func openLocalURL(_ context.Context, u *url.URL, options map[string]string) (Store, error) {
	if len(options) > 0 {
		return nil, fmt.Errorf("local store takes no storage options, got %s", optionNames(options))
	}
	if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("file URL %q names a host; use file:///absolute/path", u.String())
	}
	return NewLocal(filepath.FromSlash(u.Path))
}

func optionNames(options map[string]string) string {
	names := make([]string, 0, len(options))
	for k := range options {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Root is the directory the store is rooted at.
func (l *Local) Root() string { return l.root }

func (l *Local) URL() string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(l.root)}).String()
}

func (l *Local) path(key string) (string, error) {
	k, err := CleanKey(key)
	if err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(k)), nil
}

func notExist(key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", key, ErrNotExist)
	}
	return err
}

func (l *Local) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, notExist(key, err)
	}
	return f, nil
}

type localReader struct {
	*os.File
	size int64
}

func (r localReader) Size() int64 { return r.size }

func (l *Local) Open(ctx context.Context, key string) (Reader, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, notExist(key, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory", key)
	}
	return localReader{f, st.Size()}, nil
}

func (l *Local) Head(ctx context.Context, key string) (ObjectInfo, error) {
	p, err := l.path(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return ObjectInfo{}, notExist(key, err)
	}
	if st.IsDir() {
		return ObjectInfo{}, fmt.Errorf("%s: %w (a directory)", key, ErrNotExist)
	}
	return ObjectInfo{Key: key, Size: st.Size(), ModTime: st.ModTime()}, nil
}

// List walks the directory that holds prefix. Objects are files; directories
// are not listed, and temporary files of in-flight writes are skipped.
func (l *Local) List(ctx context.Context, prefix, startAfter string) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		dirKey := ""
		if i := strings.LastIndex(prefix, "/"); i >= 0 {
			dirKey = prefix[:i]
		}
		base := l.root
		if dirKey != "" {
			p, err := l.path(dirKey)
			if err != nil {
				yield(ObjectInfo{}, err)
				return
			}
			base = p
		}
		var out []ObjectInfo
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if strings.HasPrefix(d.Name(), tempPrefix) {
				return nil
			}
			rel, err := filepath.Rel(l.root, p)
			if err != nil {
				return err
			}
			key := filepath.ToSlash(rel)
			if !strings.HasPrefix(key, prefix) || key <= startAfter {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // removed while listing
				}
				return err
			}
			out = append(out, ObjectInfo{Key: key, Size: info.Size(), ModTime: info.ModTime()})
			return nil
		})
		if err != nil {
			yield(ObjectInfo{}, err)
			return
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
		for _, o := range out {
			if !yield(o, nil) {
				return
			}
		}
	}
}

// tempPrefix marks files being written; List never shows them.
const tempPrefix = ".deltalite-tmp-"

// writeTemp writes r to a synced temporary file next to dst.
func writeTemp(dst string, r io.Reader) (string, error) {
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, tempPrefix+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// PutIfAbsent links a synced temporary file to the key: link(2) fails if the
// name exists, so exactly one of many racing writers wins.
func (l *Local) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	tmp, err := writeTemp(p, strings.NewReader(string(data)))
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", key, ErrExist)
		}
		return err
	}
	syncDir(filepath.Dir(p))
	return nil
}

// Put writes through a temporary file and renames it into place, so readers
// see the old object or the new one, never a part.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(p, ctxReader{ctx, r})
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(p))
	return nil
}

func (l *Local) Delete(ctx context.Context, keys ...string) error {
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := l.path(k)
		if err != nil {
			return err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// ctxReader stops a long copy when the context ends.
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
