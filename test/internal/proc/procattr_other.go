//go:build unix && !linux

package proc

import "syscall"

// sysProcAttr puts the process in its own group, so that Stop reaches its children.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
