//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package cliout

import "golang.org/x/sys/unix"

func termios(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TIOCGETA)
	return err == nil
}
