package cliout

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Destination is where a command's output goes: standard output, or a
// file that appears, complete, only when the command succeeds.
type Destination struct {
	*bufio.Writer
	Terminal bool
	tmp      *os.File // nil for standard output
	name     string
}

// OpenDestination writes to the file name, through a temporary file in
// the same directory (so the final rename stays on one file system), or to
// stdout when name is "".
func OpenDestination(name string, stdout io.Writer) (*Destination, error) {
	if name == "" {
		return &Destination{Writer: bufio.NewWriterSize(stdout, 64<<10), Terminal: IsTerminal(stdout)}, nil
	}
	dir, base := filepath.Split(name)
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("--output %s: %w", name, err)
	}
	return &Destination{Writer: bufio.NewWriterSize(tmp, 256<<10), tmp: tmp, name: name}, nil
}

// Finish flushes the output; for a file it renames the temporary file into
// place when ok, and removes it otherwise (the file already there, if any,
// is left as it was).
func (d *Destination) Finish(ok bool) error {
	err := d.Flush()
	if d.tmp == nil {
		return err
	}
	if ok && err == nil {
		err = d.tmp.Chmod(outputMode(d.name))
	}
	if ok && err == nil {
		err = d.tmp.Sync()
	}
	err = errors.Join(err, d.tmp.Close())
	if ok && err == nil {
		err = os.Rename(d.tmp.Name(), d.name)
	}
	if !ok || err != nil {
		os.Remove(d.tmp.Name())
	}
	if err != nil {
		return fmt.Errorf("--output %s: %w", d.name, err)
	}
	return nil
}

// outputMode keeps the mode of a file being replaced; a new one is
// readable by all, as a file the shell creates usually is.
func outputMode(name string) os.FileMode {
	if st, err := os.Stat(name); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}

// IsTerminal reports whether w is a terminal: a file on which the
// terminal-attributes request succeeds (/dev/null, a character device
// too, is not one).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && termios(f.Fd())
}
