package proc

import "syscall"

// sysProcAttr puts the process in its own group (so that Stop reaches its children and a
// terminal's Ctrl-C reaches only the parent, which then stops it cleanly) and kills it when the
// parent dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
