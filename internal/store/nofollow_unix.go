//go:build unix

package store

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens path with flag (os.O_*), never through a symbolic
// link: O_NOFOLLOW makes the open itself fail on a link, dangling or not,
// so a link planted after a check is refused too, and nothing is created
// where it points. O_NONBLOCK keeps a named pipe planted there from
// blocking the open; checkRegular then refuses it.
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm) //nolint:gosec // a path beside the mirror; O_NOFOLLOW is the point
	if errors.Is(err, syscall.ELOOP) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 { //nolint:gosec // the same path, to name the link
			return nil, symlinkError(path)
		}
	}
	return f, err
}
