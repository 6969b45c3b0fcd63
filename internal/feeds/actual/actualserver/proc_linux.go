package actualserver

import (
	"os/exec"
	"syscall"
)

// dieWithParent ends the server with the process that started it even when that dies
// without stopping it (a -timeout panic, a kill).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
