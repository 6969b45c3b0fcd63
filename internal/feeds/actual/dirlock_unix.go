//go:build unix

package actual

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// lockName is the file in the feed's directory whose lock a child holds
// for its whole life (it inherits the locked file), so that no second
// child opens the budget's local copy while one is still running: one left
// over from a bankmirror that was killed, or a check's beside a push.
const lockName = "client.lock"

// dirLockWait is how long startChild waits for the child of another
// session to end before it gives up.
const dirLockWait = time.Minute

// dirLockPoll is how often a lock held by another child is tried again.
const dirLockPoll = 50 * time.Millisecond

// lockDir takes the feed directory's lock, waiting (at most dirLockWait)
// for a child that holds it to end.
func lockDir(ctx context.Context, dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("make feed directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("client lock: %w", err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, dirLockWait, errDirBusy)
	defer cancel()
	var tick *time.Ticker
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			_ = f.Close()
			return nil, fmt.Errorf("client lock: %w", err)
		}
		if tick == nil {
			tick = time.NewTicker(dirLockPoll)
			defer tick.Stop()
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, context.Cause(ctx)
		case <-tick.C:
		}
	}
}
