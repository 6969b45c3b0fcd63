//go:build unix

package store

import (
	"io/fs"
	"syscall"
)

// fileOwner is the uid owning the file described by fi.
func fileOwner(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// fileGroup is the gid of the file described by fi.
func fileGroup(fi fs.FileInfo) (gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Gid), true
}
