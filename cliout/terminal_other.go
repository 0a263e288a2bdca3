//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package cliout

// termios: without a terminal check the output is treated as a file.
func termios(uintptr) bool { return false }
