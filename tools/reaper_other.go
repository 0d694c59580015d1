//go:build !linux

package tools

import (
	"errors"
	"syscall"
)

// reapSupported: without /proc the reaper records nothing.
const reapSupported = false

func procStart(int) (uint64, error) { return 0, errors.New("not supported") }

func procAlive(procStamp) bool { return false }

func killGroupTree(int, uint64) int { return 0 }

func watchdogAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func ignoreTerminalSignals() {}
