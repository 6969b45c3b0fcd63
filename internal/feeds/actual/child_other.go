//go:build !linux

package actual

import "syscall"

// childAttr is nil where the kernel cannot tie the child's life to ours.
func childAttr() *syscall.SysProcAttr { return nil }
