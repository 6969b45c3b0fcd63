//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// LockSync takes the mirror's sync lock, a lock file beside the database,
// so that two syncs never run at once, whether in one process or in two (the
// daemon's schedule and a `bankmirror sync` from a shell). It fails at once
// with ErrSyncRunning when another holds it. The lock dies with its process.
func (s *Store) LockSync() (unlock func(), err error) {
	f, err := os.OpenFile(s.path+".sync-lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open sync lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrSyncRunning
		}
		return nil, fmt.Errorf("take sync lock: %w", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
