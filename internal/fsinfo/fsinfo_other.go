//go:build !unix

package fsinfo

import "io/fs"

// Owner is unknown without Unix ownership.
func Owner(fs.FileInfo) (uid int, ok bool) { return 0, false }

// Group is unknown without Unix ownership.
func Group(fs.FileInfo) (gid int, ok bool) { return 0, false }

// Links is unknown without Unix ownership.
func Links(fs.FileInfo) (n uint64, ok bool) { return 0, false }
