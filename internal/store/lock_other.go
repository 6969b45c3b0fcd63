//go:build !unix

package store

import (
	"context"
	"sync"
)

var syncLock, healLock, migrateLock sync.Mutex

// LockSync takes the mirror's sync lock. Without flock it only excludes
// syncs within this process.
func (s *Store) LockSync() (unlock func(), err error) {
	if !syncLock.TryLock() {
		return nil, ErrSyncRunning
	}
	return syncLock.Unlock, nil
}

// LockHeal takes the heal lock of this process.
func (s *Store) LockHeal(ctx context.Context) (unlock func(), err error) {
	healLock.Lock()
	return healLock.Unlock, nil
}

// lockMigrate takes the migration lock of this process.
func (s *Store) lockMigrate(ctx context.Context) (unlock func(), err error) {
	migrateLock.Lock()
	return migrateLock.Unlock, nil
}
