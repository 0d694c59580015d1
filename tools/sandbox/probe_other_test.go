//go:build !linux || !(amd64 || arm64)

package sandbox

import "fmt"

// probeArg makes the test binary act as a client inside the sandbox; the
// probes are written for Linux on amd64 and arm64.
const probeArg = "__talaria_sandbox_probe"

// probeMain has no probes here.
func probeMain([]string) int {
	fmt.Println("probe: Linux on amd64 or arm64 only")
	return 2
}
