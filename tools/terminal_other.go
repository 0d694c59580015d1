//go:build !linux

package tools

import "syscall"

// foregroundShellAttr puts the shell of a foreground terminal call in its
// own process group.
func foregroundShellAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
