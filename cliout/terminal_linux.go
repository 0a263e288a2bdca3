package cliout

import "golang.org/x/sys/unix"

func termios(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}
