package extsort

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/internal/filelock"
)

// Each sorter spills into a directory of its own in the temporary
// directory, named spillDirPrefix<pid>-<random>, with a lock file the
// sorter keeps locked until Close removes the directory. The locks of a
// process end with it, so the directory of a sort whose process was
// killed is one whose lock can be taken: every New removes those.
const (
	spillDirPrefix = "deltalite-sort-"
	lockName       = "lock"
	// lockGrace is how long a spill directory without a lock file is left
	// alone: a sorter creates the file just after the directory and
	// removes it just before the directory, so only a process killed in
	// between leaves one for longer.
	lockGrace = time.Hour
)

// spillDir is a sorter's locked spill directory.
type spillDir struct {
	path string
	lock *os.File
}

// newSpillDir creates and locks a spill directory in tmp. A sweeper
// that finds the directory before its lock is taken removes it; then
// another one is made.
func newSpillDir(tmp string) (*spillDir, error) {
	for attempt := 1; ; attempt++ {
		path, err := os.MkdirTemp(tmp, fmt.Sprintf("%s%d-*", spillDirPrefix, os.Getpid()))
		if err != nil {
			return nil, err
		}
		lockPath := filepath.Join(path, lockName)
		f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
		if err == nil {
			var ok bool
			if ok, err = lockCurrent(f, lockPath); ok {
				return &spillDir{path: path, lock: f}, nil
			}
			_ = f.Close()
		}
		_ = os.RemoveAll(path)
		if attempt == 3 {
			if err == nil {
				err = errors.New("another process's sort took each new directory for a dead sort's")
			}
			return nil, err
		}
	}
}

// remove deletes the directory and ends its lock.
func (d *spillDir) remove() error {
	_ = d.lock.Close()
	return os.RemoveAll(d.path)
}

// lockCurrent locks f, the lock file at path, if it is free now and path
// still names it. A sweeper unlinks a lock file before it lets go of its
// lock, so a lock taken on a file still at its path holds the directory.
func lockCurrent(f *os.File, path string) (bool, error) {
	ok, err := filelock.TryLock(f, true)
	if !ok {
		return false, err
	}
	fi, err := f.Stat()
	if err == nil {
		var pi os.FileInfo
		if pi, err = os.Stat(path); err == nil && os.SameFile(fi, pi) {
			return true, nil
		}
	}
	filelock.Unlock(f)
	return false, nil
}

// sweepSpillDirs removes the spill directories in tmp whose sorter is
// dead, never one whose lock is held. Failures are left for the next
// sweep to try again.
func sweepSpillDirs(tmp string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), spillDirPrefix) {
			if dir := filepath.Join(tmp, e.Name()); abandoned(dir) {
				_ = os.RemoveAll(dir)
			}
		}
	}
}

// abandoned reports whether no live sorter holds dir, taking it over by
// unlinking its lock file if so.
func abandoned(dir string) bool {
	lockPath := filepath.Join(dir, lockName)
	f, err := os.Open(lockPath)
	if errors.Is(err, fs.ErrNotExist) {
		st, err := os.Stat(dir)
		return err == nil && time.Since(st.ModTime()) > lockGrace
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if ok, _ := lockCurrent(f, lockPath); !ok {
		return false
	}
	if os.Remove(lockPath) == nil {
		return true
	}
	// Windows deletes no open file: let go first.
	_ = f.Close()
	return os.Remove(lockPath) == nil
}
