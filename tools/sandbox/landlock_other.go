//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
)

// Probe reports that only Linux can sandbox commands.
func Probe() error {
	return errors.New("the sandbox needs Linux (Landlock); set sandbox.mode: off to run commands unsandboxed")
}

// Main is the sandbox helper; without Landlock it refuses to run anything.
func Main([]string) int {
	fmt.Fprintln(os.Stderr, "talaria sandbox:", Probe())
	return 126
}

// probeSeccomp reports that only Linux has the seccomp filter.
func probeSeccomp() error { return Probe() }
