//go:build !unix

package store

import "errors"

// lockDir is a no-op without flock.
func lockDir(string) (unlock func(), err error) { return func() {}, nil }

// tryLockDir cannot tell a running backup's directory from a stale one
// without flock: it never locks, and stale directories stay.
func tryLockDir(string) (unlock func(), err error) {
	return nil, errors.New("no directory locks on this system")
}
