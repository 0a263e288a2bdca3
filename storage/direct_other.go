//go:build !linux

package storage

import "os"

// directAlign reports no direct I/O where we have no portable way to ask
// for it: writes go through the operating system's cache.
func directAlign(*os.File) int { return 0 }

func setDirect(*os.File, bool) error { return nil }

func alignedBuf(n int) []byte { return make([]byte, n) }
