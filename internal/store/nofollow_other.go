//go:build !unix

package store

import (
	"errors"
	"io/fs"
	"os"
)

// openNoFollow opens path with flag (os.O_*), refusing a symbolic link
// found there first (without O_NOFOLLOW the check and the open are two
// steps).
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return nil, symlinkError(path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return os.OpenFile(path, flag, perm)
}
