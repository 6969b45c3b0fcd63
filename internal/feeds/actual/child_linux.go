package actual

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the child when the thread that
// started it ends. startChild starts it from a goroutine locked to its
// thread until the child has ended, so that thread ends only with the
// process: a kill -9 of bankmirror takes the child with it.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
