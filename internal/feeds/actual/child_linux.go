package actual

import "syscall"

// childAttr makes the kernel kill the Node child when bankmirror dies
// (kill -9 included): an orphaned client would go on writing the feed's
// local copy of the budget while the next push opens it.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
