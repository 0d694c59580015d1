//go:build !linux

package tools

import "syscall"

// foregroundShellAttr puts the shell of a foreground terminal call in its
// own process group.
func foregroundShellAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// leftBehind reports whether processes of command p still run once its
// shell has exited: without /proc, any live member of its group.
func (p *shellProc) leftBehind() bool { return p.alive() }
