//go:build unix

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// LockSync takes the mirror's sync lock, a lock file beside the database,
// so that two syncs never run at once, whether in one process or in two (the
// daemon's schedule and a `bankmirror sync` from a shell). It fails at once
// with ErrSyncRunning when another holds it. The lock dies with its process.
func (s *Store) LockSync() (unlock func(), err error) {
	return s.tryLock("sync", ErrSyncRunning)
}

// LockHeal takes the lock that keeps two heals of the delivery logs (the
// daemon's, and `webhook rotate`'s) from running at once, waiting for it
// until ctx ends.
func (s *Store) LockHeal(ctx context.Context) (unlock func(), err error) {
	return s.waitLock(ctx, "heal")
}

// lockMigrate takes the lock that keeps two processes from copying and
// migrating the same mirror at once, waiting for it until ctx ends.
func (s *Store) lockMigrate(ctx context.Context) (unlock func(), err error) {
	return s.waitLock(ctx, "migrate")
}

// waitLock takes the lock file name, waiting for it until ctx ends.
func (s *Store) waitLock(ctx context.Context, name string) (unlock func(), err error) {
	for {
		unlock, err := s.tryLock(name, errLocked)
		if !errors.Is(err, errLocked) {
			return unlock, err
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("wait for the %s lock: %w", name, ctx.Err())
		case <-t.C:
		}
	}
}

var errLocked = errors.New("locked")

// tryLock takes an exclusive flock on a file beside the database, or
// returns busy at once.
func (s *Store) tryLock(name string, busy error) (unlock func(), err error) {
	f, err := openRegular(lockPath(s.path, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s lock: %w", name, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, busy
		}
		return nil, fmt.Errorf("take %s lock: %w", name, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
