package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/filelock"
)

// FileName and LockName are the files File keeps in its directory.
const (
	FileName = "state.json"
	LockName = "state.lock"
)

// File is the embedded Store: the records of every asset in one JSON file
// (FileName) under a directory. Each operation holds an exclusive lock on
// LockName for its read-modify-write, and replaces the file by renaming a
// complete temporary file over it, so a reader never sees half a write and
// a crash leaves the previous state.
type File struct {
	dir string
}

// document is the file's content.
type document struct {
	Records []Record `json:"records"`
}

// OpenFile returns the store in dir. Nothing is created until the first
// Put (dir included), so that reading, clearing nothing or a refused run
// leave the disk as it was.
func OpenFile(dir string) (*File, error) {
	if dir == "" {
		return nil, errs.New(errs.InvalidArgument, "", "state directory is empty: name a directory for the asset state")
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, errs.New(errs.InvalidArgument, dir, "the state directory is a file: name a directory for the asset state")
	}
	return &File{dir: dir}, nil
}

// Path is the state file's path.
func (f *File) Path() string { return filepath.Join(f.dir, FileName) }

func (f *File) Put(ctx context.Context, recs ...Record) error {
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return errs.Wrap(errs.InvalidArgument, f.dir, err, "creating the state directory")
	}
	return f.update(ctx, func(d *document) { d.put(recs) })
}

// Get and List read without the lock: every write renames a complete
// file into place, so a read sees one whole state or another.

func (f *File) Get(_ context.Context, asset, key string) (Record, bool, error) {
	d, err := f.read()
	if err != nil {
		return Record{}, false, err
	}
	if i, found := d.find(asset, key); found {
		return d.Records[i], true, nil
	}
	return Record{}, false, nil
}

func (f *File) List(_ context.Context, asset string) ([]Record, error) {
	d, err := f.read()
	if err != nil {
		return nil, err
	}
	return d.of(asset), nil
}

// Clear of a state never written is nothing to do: it creates nothing.
func (f *File) Clear(ctx context.Context, asset string, keys ...string) error {
	if _, err := os.Stat(f.Path()); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return f.update(ctx, func(d *document) { d.clear(asset, keys) })
}

// update applies change to the state under the lock and writes the result.
func (f *File) update(ctx context.Context, change func(*document)) error {
	return f.locked(ctx, func() error {
		d, err := f.read()
		if err != nil {
			return err
		}
		change(&d)
		return f.write(d)
	})
}

func (f *File) locked(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Canceled, f.Path(), err, "asset state")
	}
	lk, err := os.OpenFile(filepath.Join(f.dir, LockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return errs.Wrap(errs.Internal, f.dir, err, "opening the state lock file")
	}
	defer lk.Close()
	if err := filelock.Lock(lk); err != nil {
		return errs.Wrap(errs.Internal, lk.Name(), err, "locking the asset state")
	}
	defer filelock.Unlock(lk)
	return fn()
}

func (f *File) read() (document, error) {
	var d document
	b, err := os.ReadFile(f.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, errs.Wrap(errs.Internal, f.Path(), err, "reading the asset state")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, errs.New(errs.CorruptTable, f.Path(), "%s: %v; move the file aside to start from an empty state",
			position(b, err), err)
	}
	slices.SortFunc(d.Records, compare)
	return d, nil
}

// position is "line L, column C" of a JSON decoding error, when it has an
// offset.
func position(b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return "invalid state file"
	}
	before := b[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// write replaces the state file atomically: a complete temporary file in
// the same directory, synced, renamed over it.
func (f *File) write(d document) error {
	if d.Records == nil {
		d.Records = []Record{}
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return errs.Wrap(errs.InvalidArgument, f.Path(), err, "encoding the asset state (metadata must be JSON values)")
	}
	tmp, err := os.CreateTemp(f.dir, ".state-*.tmp")
	if err != nil {
		return errs.Wrap(errs.Internal, f.dir, err, "writing the asset state")
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.Path())
	}
	if err != nil {
		return errs.Wrap(errs.Internal, f.Path(), err, "writing the asset state")
	}
	syncDir(f.dir)
	return nil
}

// syncDir makes the rename durable where the platform allows it; a
// failure only weakens durability after a crash, so it is not reported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

func compare(a, b Record) int {
	if c := strings.Compare(a.Asset, b.Asset); c != 0 {
		return c
	}
	return strings.Compare(a.Key, b.Key)
}

// find is the index of (asset, key) in the sorted records, or where it
// would be inserted.
func (d *document) find(asset, key string) (int, bool) {
	return slices.BinarySearchFunc(d.Records, Record{Asset: asset, Key: key}, compare)
}

// put replaces or inserts recs, keeping the records sorted.
func (d *document) put(recs []Record) {
	for _, r := range recs {
		if i, found := d.find(r.Asset, r.Key); found {
			d.Records[i] = r
		} else {
			d.Records = slices.Insert(d.Records, i, r)
		}
	}
}

func (d *document) of(asset string) []Record {
	var out []Record
	for _, r := range d.Records {
		if r.Asset == asset {
			out = append(out, r)
		}
	}
	return out
}

func (d *document) clear(asset string, keys []string) {
	d.Records = slices.DeleteFunc(d.Records, func(r Record) bool {
		return r.Asset == asset && (len(keys) == 0 || slices.Contains(keys, r.Key))
	})
}
