package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIOBytesCountsReadsAndWrites checks the counters -metrics reports move
// by what the process reads and writes (page-cache hits included).
func TestIOBytesCountsReadsAndWrites(t *testing.T) {
	if _, err := os.Stat("/proc/self/io"); err != nil {
		t.Skip("no /proc/self/io here")
	}
	const n = 3 << 20
	path := filepath.Join(t.TempDir(), "f")
	r0, w0 := ioBytes()
	if err := os.WriteFile(path, make([]byte, n), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	r1, w1 := ioBytes()
	if r1-r0 < n || w1-w0 < n {
		t.Errorf("read %d and wrote %d bytes by the counters, want at least %d each", r1-r0, w1-w0, n)
	}
}
