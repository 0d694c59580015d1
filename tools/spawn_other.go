//go:build !linux

package tools

import (
	"fmt"
	"os"
)

// spawnSupported: without Linux commands start directly.
const spawnSupported = false

// commandTree finds nothing without /proc.
func commandTree(int, int) []procInfo { return nil }

// procInfo is what the reaper reads of one process (unused here).
type procInfo struct {
	pid, ppid, pgrp int
}

// SpawnMain reports that the spawner needs Linux.
func SpawnMain([]string) int {
	fmt.Fprintln(os.Stderr, "talaria spawner: only on Linux")
	return 2
}

// ProtectProcess does nothing where PR_SET_DUMPABLE does not exist.
func ProtectProcess() error { return nil }
