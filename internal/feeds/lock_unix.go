//go:build unix

package feeds

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ErrBusy is a push refused because another process (serve, `feeds serve`
// or a `feeds push`) is pushing to the same feed.
var ErrBusy = errors.New("another bankmirror process is pushing to this feed")

// lockFeed takes the feed's lock (a file in its directory), so that two
// processes never push to one app at once; unlock releases it.
func lockFeed(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("feed directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "push.lock"), os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("feed lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, fmt.Errorf("feed lock: %w", err)
	}
	return func() { f.Close() }, nil
}
