//go:build !unix

package actual

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

const lockName = "client.lock"

// lockDir opens the lock file without locking it where flock is not
// available.
func lockDir(_ context.Context, dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("make feed directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("client lock: %w", err)
	}
	return f, nil
}
