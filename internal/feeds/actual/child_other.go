//go:build !linux

package actual

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death
// signal: client.js ends when its requests' pipe closes.
func dieWithParent(*exec.Cmd) {}
