//go:build !linux

package sandbox

import "fmt"

// probeArg makes the test binary act as a client inside the sandbox; only
// Linux has the probes.
const probeArg = "__talaria_sandbox_probe"

// probeMain has no probes off Linux.
func probeMain([]string) int {
	fmt.Println("probe: Linux only")
	return 2
}
