package storage

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// directAlign switches f to direct I/O and returns the alignment its writes
// must keep in offset and length, or 0 where its file system has no direct
// I/O (tmpfs, some FUSE and network file systems), leaving f as it was.
func directAlign(f *os.File) int {
	var st unix.Statx_t
	if err := unix.Statx(int(f.Fd()), "", unix.AT_EMPTY_PATH, unix.STATX_DIOALIGN, &st); err != nil || st.Mask&unix.STATX_DIOALIGN == 0 {
		return 0
	}
	align := int(st.Dio_offset_align)
	if align == 0 || st.Dio_mem_align == 0 || st.Dio_mem_align > directMemAlign || copyBufSize%align != 0 {
		return 0
	}
	if setDirect(f, true) != nil {
		return 0
	}
	return align
}

// setDirect turns direct I/O on or off for f's later writes.
func setDirect(f *os.File, on bool) error {
	fd := uintptr(f.Fd())
	flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if on {
		flags |= unix.O_DIRECT
	} else {
		flags &^= unix.O_DIRECT
	}
	_, err = unix.FcntlInt(fd, unix.F_SETFL, flags)
	return err
}

// directMemAlign is the address alignment of direct I/O buffers: a page,
// which covers every block device's requirement.
const directMemAlign = 4096

// alignedBuf allocates n bytes starting at a directMemAlign boundary.
func alignedBuf(n int) []byte {
	b := make([]byte, n+directMemAlign)
	off := (directMemAlign - int(uintptr(unsafe.Pointer(&b[0]))%directMemAlign)) % directMemAlign
	return b[off : off+n : off+n]
}
