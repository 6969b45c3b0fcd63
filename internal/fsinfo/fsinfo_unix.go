//go:build unix

package fsinfo

import (
	"io/fs"
	"syscall"
)

// Owner is the uid owning the file described by fi.
func Owner(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// Group is the gid of the file described by fi.
func Group(fi fs.FileInfo) (gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Gid), true
}

// Links is the number of hard links to the file described by fi: the
// names it has in all directories.
func Links(fi fs.FileInfo) (n uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true //nolint:unconvert // Nlink is uint32 on some systems
}
