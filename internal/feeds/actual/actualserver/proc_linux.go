package actualtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent ends the server with the test binary even when that dies
// without stopping it (a -timeout panic, a kill).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
