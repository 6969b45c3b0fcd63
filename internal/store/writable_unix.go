//go:build unix

package store

import "syscall"

// writable reports whether this process's user may write path (access(2)
// with W_OK; always true for root).
func writable(path string) error { return syscall.Access(path, 2 /* W_OK */) }
