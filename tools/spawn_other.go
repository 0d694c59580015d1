//go:build !linux

package tools

import (
	"errors"
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

// controlSocket fails: there is no spawner here.
func controlSocket() (ours, theirs *os.File, err error) {
	return nil, nil, errors.New("the spawner needs Linux")
}

// SpawnMain reports that the spawner needs Linux.
func SpawnMain([]string) int {
	fmt.Fprintln(os.Stderr, "talaria spawner: only on Linux")
	return 2
}

// ProtectProcess does nothing where PR_SET_DUMPABLE does not exist.
func ProtectProcess() error { return nil }
