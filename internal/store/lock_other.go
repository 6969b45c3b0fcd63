//go:build !unix

package store

import gosync "sync"

var syncLock gosync.Mutex

// LockSync takes the mirror's sync lock. Without flock it only excludes
// syncs within this process.
func (s *Store) LockSync() (unlock func(), err error) {
	if !syncLock.TryLock() {
		return nil, ErrSyncRunning
	}
	return syncLock.Unlock, nil
}
