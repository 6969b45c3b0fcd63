//go:build !linux

package actualserver

import "os/exec"

// dieWithParent does nothing where the kernel cannot end a child with its
// parent.
func dieWithParent(*exec.Cmd) {}
