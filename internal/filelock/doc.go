// Package filelock holds advisory locks on open files (flock on Unix,
// LockFileEx on Windows) that processes sharing a directory order their
// work by. A lock belongs to the open file and ends when it is closed or
// its process dies, so a lock that can be taken marks a file nobody alive
// holds.
package filelock
