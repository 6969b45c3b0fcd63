//go:build unix

package secretfile

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading, never through a symbolic link
// (ELOOP), and without blocking on a named pipe (which the caller then
// refuses as not a regular file).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0) //nolint:gosec // a secret file the configuration names; O_NOFOLLOW is the point
}
