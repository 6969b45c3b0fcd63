//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// errDirLocked is a directory another open file description holds locked.
var errDirLocked = errors.New("directory in use")

// lockDir takes an exclusive flock on the directory dir, waiting for it; the
// lock dies with the process.
func lockDir(dir string) (unlock func(), err error) {
	return flockDir(dir, syscall.LOCK_EX)
}

// tryLockDir takes an exclusive flock on dir, or returns errDirLocked at
// once.
func tryLockDir(dir string) (unlock func(), err error) {
	return flockDir(dir, syscall.LOCK_EX|syscall.LOCK_NB)
}

func flockDir(dir string, how int) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errDirLocked
		}
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
