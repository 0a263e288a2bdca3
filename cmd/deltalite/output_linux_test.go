package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/deltalite-go/deltalite/cliout"
)

// openPty returns both ends of a new pseudo-terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pseudo-terminal number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

func TestIsTerminal(t *testing.T) {
	_, slave := openPty(t)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, c := range []struct {
		name string
		w    io.Writer
		want bool
	}{{"pty", slave, true}, {"/dev/null", null, false}, {"pipe", w, false}, {"file", file, false}, {"buffer", &bytes.Buffer{}, false}} {
		if got := cliout.IsTerminal(c.w); got != c.want {
			t.Errorf("%s: isTerminal %v, want %v", c.name, got, c.want)
		}
	}
}

// onTerminal runs the CLI with standard output on a pseudo-terminal and
// returns what the terminal showed (line ends as \n) and standard error.
func onTerminal(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	master, slave := openPty(t)
	shown := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once the slave closes
		shown <- b
	}()
	var errOut bytes.Buffer
	err := runTo(slave, &errOut, args...)
	slave.Close()
	out := <-shown
	return strings.ReplaceAll(string(out), "\r\n", "\n"), errOut.String(), err
}

func TestScanOnTerminal(t *testing.T) {
	table := rowsTable(t, 2500)
	out, hint, err := onTerminal(t, "scan", table)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1001 || lines[0] != "id   name" || lines[1000] != "999  name999" {
		t.Errorf("table on a terminal: %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if !strings.Contains(hint, "first 1000 rows") || !strings.Contains(hint, "--limit") {
		t.Errorf("hint %q", hint)
	}
	out, hint, err = onTerminal(t, "scan", table, "--limit", "1500")
	if n := strings.Count(out, "\n"); err != nil || n != 1501 || hint != "" {
		t.Errorf("--limit 1500 on a terminal: %d lines, hint %q, %v", n, hint, err)
	}
	_, _, err = onTerminal(t, "scan", table, "--format", "parquet")
	if err == nil || !strings.Contains(err.Error(), "Parquet to a terminal") {
		t.Errorf("parquet to a terminal: %v", err)
	}
}
