//go:build unix

package daemon

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with id pid exists on this host
// (another user's counts: kill answers EPERM).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
