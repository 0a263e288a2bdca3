//go:build unix

package filelock

import (
	"os"

	"golang.org/x/sys/unix"
)

// Lock takes an exclusive advisory lock on f, waiting for it. flock
// locks belong to the open file, so goroutines of one process exclude
// each other as other processes do.
func Lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

// Unlock releases the lock on f.
func Unlock(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// TryLock takes a shared or exclusive lock on f if it is free now.
func TryLock(f *os.File, exclusive bool) (bool, error) {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		switch err {
		case nil:
			return true, nil
		case unix.EWOULDBLOCK:
			return false, nil
		case unix.EINTR:
			continue
		}
		return false, err
	}
}
