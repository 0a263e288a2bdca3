package runproc

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// LinkCopy makes dst a copy of the Delta table at src that costs no data
// bytes: the _delta_log is copied, every other file is hard-linked. Delta
// writers never change a data file in place (they add new files and log
// removes), so an operation on the copy leaves src as it was.
func LinkCopy(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if inLog(rel) {
			return copyFile(path, target)
		}
		return os.Link(path, target)
	})
}

func inLog(rel string) bool {
	for dir := filepath.Dir(rel); dir != "." && dir != "/"; dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "_delta_log" {
			return true
		}
	}
	return false
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ReadTree reads every regular file under dir once and returns the bytes
// read: it brings a table into the page cache before each measured run, so
// that every engine starts from the same cache state.
func ReadTree(dir string) (int64, error) {
	var n int64
	buf := make([]byte, 1<<20)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		m, err := io.CopyBuffer(io.Discard, f, buf)
		n += m
		return err
	})
	return n, err
}

// DirBytes is the total size of the regular files under dir.
func DirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	return n, err
}

// DropCaches empties the kernel's page cache (Linux, as root), so that a
// measured run finds only what the harness reads afterwards, not what the
// runs before it left behind.
func DropCaches() error {
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("dropping the page cache (run as root, or pass -drop-caches=false): %w", err)
	}
	return nil
}
