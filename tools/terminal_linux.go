package tools

import "syscall"

// foregroundShellAttr puts the shell of a foreground terminal call in its
// own process group and has the kernel kill it if talaria dies first.
func foregroundShellAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
