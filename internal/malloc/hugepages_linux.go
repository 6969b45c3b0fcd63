//go:build linux

package malloc

import (
	"fmt"
	"os"
	"syscall"
)

// prctl options (linux/prctl.h).
const (
	prSetTHPDisable = 41
	prGetTHPDisable = 42
)

// WithoutHugePages makes the kernel map this process's memory in pages of
// 4 KiB only, its code above all, by re-executing the program with
// transparent huge pages disabled (PR_SET_THP_DISABLE, which execve keeps)
// unless they already are. It returns only if it did not re-execute: with
// nil when the process already runs without them, else with why not.
//
// When the page cache holds the binary in 2 MiB folios (as the Go linker
// writes it, or as a large readahead reads it back), the kernel maps a
// whole folio at the first touch of any page in it, and the daemon's
// 27 MB of code and read-only data are all resident; in 4 KiB pages only
// what it runs is (22 MiB against 29 MiB of file pages in serve).
func WithoutHugePages() error {
	if on, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTHPDisable, 0, 0); errno != 0 {
		return fmt.Errorf("read the huge pages setting: %w", errno)
	} else if on == 1 {
		return nil
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetTHPDisable, 1, 0); errno != 0 {
		return fmt.Errorf("disable huge pages: %w", errno)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("disable huge pages: %w", err)
	}
	if err := syscall.Exec(exe, os.Args, os.Environ()); err != nil { //nolint:gosec // the program itself, with its own arguments
		return fmt.Errorf("disable huge pages: re-execute %s: %w", exe, err)
	}
	return nil
}
