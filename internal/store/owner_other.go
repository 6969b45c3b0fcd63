//go:build !unix

package store

import "io/fs"

// fileOwner is unknown without Unix ownership.
func fileOwner(fs.FileInfo) (uid int, ok bool) { return 0, false }

// fileGroup is unknown without Unix ownership.
func fileGroup(fs.FileInfo) (gid int, ok bool) { return 0, false }
