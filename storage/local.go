package storage

import (
	"cmp"
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
	"sync"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Local is a Store on the local filesystem rooted at a directory.
//
// Durability: commits (PutIfAbsent) are synced before they return. Put
// returns once the object is visible and has its writeback started, and Sync
// makes objects durable, so that a writer can overlap encoding the next file
// with the disk writing the last one and sync everything once before its
// commit. With LocalOptions.SyncLogOnly, Sync does nothing: data files are
// left to the operating system as delta-rs and Spark leave them, and a power
// loss may lose data that a surviving commit names.
//
// Put writes with direct I/O (O_DIRECT) where the file system supports it:
// a data file is written once and read rarely soon after, so copying it
// into the cache only costs the copy, and the pages it takes may be costly
// to get. On a virtual machine that hands freed memory back to its host, a
// buffered write of 9 GiB cost 17.7 s of kernel time against 0.7 s direct
// (dd, 1 MiB blocks, with the cache holding 8 GiB of reads; docs/storage.md).
type Local struct {
	root        string // absolute, OS separators
	syncLogOnly bool
	cached      bool // no direct I/O

	// newDirs are the directories this store created whose entries in
	// their parents no sync has covered yet: a synced file in a directory
	// whose own entry is lost to a power loss is lost with it.
	mu      sync.Mutex
	newDirs map[string]bool
	syncDir func(dir string) error // fsyncs a directory; tests record it
}

// LocalOptions tune a local store.
type LocalOptions struct {
	// SyncLogOnly skips syncing data and checkpoint files (see Local).
	SyncLogOnly bool
	// CachedWrites writes objects through the operating system's cache even
	// where the file system can write them directly (see Local).
	CachedWrites bool
}

// NewLocal returns a store rooted at dir; the directory need not exist yet.
func NewLocal(dir string) (*Local, error) { return NewLocalWith(dir, LocalOptions{}) }

// NewLocalWith is NewLocal with options.
func NewLocalWith(dir string, o LocalOptions) (*Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Local{root: abs, syncLogOnly: o.SyncLogOnly, cached: o.CachedWrites,
		newDirs: map[string]bool{}, syncDir: syncFile}, nil
}

// Storage options of a local store.
const (
	// LocalSyncOption chooses what a local store syncs: "all" (the default)
	// or "log" (LocalOptions.SyncLogOnly).
	LocalSyncOption = "LOCAL_FSYNC"
	// LocalDirectWritesOption is "true" (the default) to write objects with
	// direct I/O where the file system allows, "false" to write them through
	// the operating system's cache (LocalOptions.CachedWrites).
	LocalDirectWritesOption = "LOCAL_DIRECT_WRITES"
)

// localOptionValues holds each local option's default value and its other.
var localOptionValues = map[string][2]string{
	LocalSyncOption:         {"all", "log"},
	LocalDirectWritesOption: {"true", "false"},
}

func openLocalURL(_ context.Context, u *url.URL, options map[string]string) (Store, error) {
	var o LocalOptions
	for k, v := range options {
		values, known := localOptionValues[k]
		if !known {
			return nil, fmt.Errorf("local store takes only the storage options %s and %s, got %s",
				strings.ToLower(LocalSyncOption), strings.ToLower(LocalDirectWritesOption), optionNames(options))
		}
		var other bool
		switch strings.ToLower(v) {
		case values[0], "":
		case values[1]:
			other = true
		default:
			return nil, fmt.Errorf("storage option %s is %q; want %q or %q", strings.ToLower(k), v, values[0], values[1])
		}
		if k == LocalSyncOption {
			o.SyncLogOnly = other
		} else {
			o.CachedWrites = other
		}
	}
	if u.User != nil {
		return nil, fmt.Errorf("file URL %s carries a user part; use file:///absolute/path or a plain path", errs.RedactURL(u.String()))
	}
	if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("file URL %q names a host; use file:///absolute/path", u.String())
	}
	return NewLocalWith(filepath.FromSlash(u.Path), o)
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
		return NotExistError(key, "")
	}
	return err
}

// openFile opens the file of key, with ErrNotExist when there is none.
func (l *Local) openFile(key string) (*os.File, error) {
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

func (l *Local) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	f, err := l.openFile(key)
	if err != nil {
		return nil, err // not f: a nil *os.File in the interface is not nil
	}
	return f, nil
}

type localReader struct {
	*os.File
	size int64
}

func (r localReader) Size() int64 { return r.size }

func (l *Local) Open(ctx context.Context, key string) (Reader, error) {
	f, err := l.openFile(key)
	if err != nil {
		return nil, err
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
		return ObjectInfo{}, NotExistError(key, "a directory, not an object")
	}
	return ObjectInfo{Key: key, Size: st.Size(), ModTime: st.ModTime()}, nil
}

// List walks the directory that holds prefix. Objects are files; directories
// are not listed, and temporary files of in-flight writes are skipped.
func (l *Local) List(ctx context.Context, prefix, startAfter string) iter.Seq2[ObjectInfo, error] {
	return l.list(ctx, prefix, startAfter, false)
}

// ListWithTemp is List with the temporary files, for a vacuum to find
// those of killed writes.
func (l *Local) ListWithTemp(ctx context.Context, prefix, startAfter string) iter.Seq2[ObjectInfo, error] {
	return l.list(ctx, prefix, startAfter, true)
}

func (l *Local) list(ctx context.Context, prefix, startAfter string, withTemp bool) iter.Seq2[ObjectInfo, error] {
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
			if !withTemp && IsTemp(d.Name()) {
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

// copyBufSize is the unit Put writes in: a 100 MiB file is a hundred
// system calls, each costing little beside the copy of its bytes.
const copyBufSize = 1 << 20

var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

// createTemp opens a new temporary file next to dst.
func (l *Local) createTemp(dst string) (*os.File, error) {
	dir := filepath.Dir(dst)
	if err := l.mkdirs(dir); err != nil {
		return nil, err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	return os.OpenFile(filepath.Join(dir, TempPrefix+hex.EncodeToString(rnd[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// mkdirs creates dir and its missing parents, remembering each one it
// created (or a racing writer did) for syncNewDirs.
func (l *Local) mkdirs(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	if len(missing) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	l.mu.Lock()
	for _, d := range missing {
		l.newDirs[d] = true
	}
	l.mu.Unlock()
	return nil
}

// syncNewDirs makes durable the entry of dir in its parent, and so on up,
// for as long as the directory is one this store created and no sync has
// covered: up to the table root, and above it when the root was new.
func (l *Local) syncNewDirs(dir string) error {
	for {
		l.mu.Lock()
		pending := l.newDirs[dir]
		delete(l.newDirs, dir)
		l.mu.Unlock()
		if !pending {
			return nil
		}
		parent := filepath.Dir(dir)
		if err := l.syncDir(parent); err != nil {
			l.mu.Lock()
			l.newDirs[dir] = true // the next sync tries again
			l.mu.Unlock()
			return err
		}
		dir = parent
	}
}

// writeTemp writes data to a synced temporary file next to dst.
func (l *Local) writeTemp(dst string, data []byte) (string, error) {
	f, err := l.createTemp(dst)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// localObject is a file being written under a temporary name.
type localObject struct {
	ctx       context.Context
	f         *os.File
	dst       string
	writeBack bool  // start writeback on Commit, for the Sync to come
	align     int   // > 0: f writes directly to disk in multiples of align
	err       error // the first failed write: Commit then stores nothing
}

// create starts a new object written straight to a temporary file, which
// Commit renames into place. Writers reach it through Put (see
// storage.Create): writing from the encoder's own goroutine measured no
// faster, as the encoder then waits on every write.
func (l *Local) create(ctx context.Context, key string) (*localObject, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := l.createTemp(p)
	if err != nil {
		return nil, err
	}
	o := &localObject{ctx: ctx, f: f, dst: p, writeBack: !l.syncLogOnly}
	if !l.cached {
		o.align = directAlign(f)
	}
	return o, nil
}

func (o *localObject) Write(p []byte) (int, error) {
	if o.err == nil {
		o.err = o.ctx.Err()
	}
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.f.Write(p)
	o.err = err
	return n, err
}

// Commit starts the file's writeback (when a Sync will follow) and renames
// it into place.
func (o *localObject) Commit() error {
	err := cmp.Or(o.err, o.ctx.Err())
	if err == nil && o.writeBack {
		startWriteback(o.f)
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.f.Name(), o.dst)
	}
	if err != nil {
		os.Remove(o.f.Name())
	}
	return err
}

var directBufs = sync.Pool{New: func() any { return &[2][]byte{alignedBuf(copyBufSize), alignedBuf(copyBufSize)} }}

// copyDirect writes r to the file with direct I/O in whole buffers, reading
// the next buffer while the disk takes the last. The tail that does not
// fill an aligned block goes through the cache.
func (o *localObject) copyDirect(r io.Reader) error {
	bufs := directBufs.Get().(*[2][]byte)
	defer directBufs.Put(bufs)
	written := make(chan error, 1)
	inFlight := false
	for i := 0; ; i++ {
		buf := bufs[i%2]
		n, rerr := io.ReadFull(r, buf)
		if inFlight {
			inFlight = false
			if err := <-written; err != nil {
				return err
			}
		}
		switch rerr {
		case nil:
			inFlight = true
			go func() { _, err := o.Write(buf); written <- err }()
			continue
		case io.EOF, io.ErrUnexpectedEOF:
		default:
			return rerr
		}
		whole := n - n%o.align
		if whole > 0 {
			if _, err := o.Write(buf[:whole]); err != nil {
				return err
			}
		}
		if whole == n {
			return nil
		}
		if err := setDirect(o.f, false); err != nil {
			return err
		}
		_, err := o.Write(buf[whole:n])
		return err
	}
}

func (o *localObject) Abort() {
	o.f.Close()
	os.Remove(o.f.Name())
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
	tmp, err := l.writeTemp(p, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ExistError(key)
		}
		return err
	}
	// The commit is visible now: failing it for a directory sync would
	// have the writer retry a version that already holds its commit.
	dir := filepath.Dir(p)
	_ = l.syncDir(dir)
	_ = l.syncNewDirs(dir)
	return nil
}

// Put writes through a temporary file and renames it into place, so readers
// see the old object or the new one, never a part. The object is durable
// after Sync.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) error {
	o, err := l.create(ctx, key)
	if err != nil {
		return err
	}
	if o.align > 0 {
		err = o.copyDirect(r)
	} else {
		buf := copyBufs.Get().(*[]byte)
		err = copyFull(o, r, *buf)
		copyBufs.Put(buf)
	}
	if err != nil {
		o.Abort()
		return err
	}
	return o.Commit()
}

// Sync makes objects written by Put durable: their contents, the
// directory entries naming them, and the entries of the directories Put
// created for them. It syncs one file after another; callers
// that want several synced at once (datafile.Writer) call it concurrently.
func (l *Local) Sync(ctx context.Context, keys ...string) error {
	if l.syncLogOnly {
		return nil
	}
	dirs := map[string]bool{}
	err := l.eachPath(ctx, keys, func(k, p string) error {
		if err := syncFile(p); err != nil {
			return notExist(k, err)
		}
		dirs[filepath.Dir(p)] = true
		return nil
	})
	if err != nil {
		return err
	}
	for d := range dirs {
		if err := l.syncDir(d); err != nil {
			return err
		}
		if err := l.syncNewDirs(d); err != nil {
			return err
		}
	}
	return nil
}

// eachPath calls f with each key and its file path, in turn, stopping at
// the first error or once ctx ends.
func (l *Local) eachPath(ctx context.Context, keys []string, f func(key, path string) error) error {
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := l.path(k)
		if err != nil {
			return err
		}
		if err := f(k, p); err != nil {
			return err
		}
	}
	return nil
}

// syncFile fsyncs a file or a directory.
func syncFile(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyFull copies r to w in writes of a whole buffer: a stream such as a
// pipe returns what one writer call gave, often much less.
func copyFull(w io.Writer, r io.Reader, buf []byte) error {
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			return nil
		default:
			return err
		}
	}
}

func (l *Local) Delete(ctx context.Context, keys ...string) error {
	return l.eachPath(ctx, keys, func(_, p string) error {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}
