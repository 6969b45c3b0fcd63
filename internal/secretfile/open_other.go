//go:build !unix

package secretfile

import (
	"fmt"
	"os"
)

// openNoFollow opens path for reading, refusing a symbolic link by its
// name first (no O_NOFOLLOW here).
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return os.Open(path) //nolint:gosec // a secret file the configuration names
}
