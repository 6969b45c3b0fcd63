package bench

import (
	"os"
	"os/exec"
	"syscall"
)

// dieWithParent ends node with its stand-in, which the daemon may kill.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// maxRSSMiB is the peak RSS of an ended process (and its waited-for
// children), in MiB.
func maxRSSMiB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024 // kB on Linux
	}
	return 0
}
