//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Probe reports why this system cannot sandbox commands with Landlock,
// or nil when it can.
func Probe() error {
	if os.Getenv(ProbeEnv) == "fail" {
		return fmt.Errorf("Landlock is unavailable (forced by %s=fail); set sandbox.mode: off to run commands unsandboxed", ProbeEnv)
	}
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return fmt.Errorf("Landlock is unavailable on this kernel (%v): it needs Linux 5.13 or later with Landlock enabled (lsm=landlock); set sandbox.mode: off to run commands unsandboxed", err)
	}
	if abi < minABI {
		return fmt.Errorf("Landlock ABI %d is too old (the sandbox needs ABI %d, Linux 6.2 or later); set sandbox.mode: off to run commands unsandboxed", abi, minABI)
	}
	return nil
}

// probeSeccomp reports why the helper could not refuse Unix sockets here
// (no seccomp, or an architecture the filter library has no table for),
// or nil when it can.
func probeSeccomp() error {
	if !seccomp.Supported() {
		return fmt.Errorf("the sandbox refuses Unix sockets with a seccomp filter, and seccomp is unavailable on this kernel; set sandbox.allow_unix_sockets: true to run without it, or sandbox.mode: off")
	}
	fs, err := socketFilters()
	for i := 0; err == nil && i < len(fs); i++ {
		_, err = fs[i].Policy.Assemble()
	}
	if err != nil {
		return fmt.Errorf("the sandbox cannot build its seccomp filter here (%v); set sandbox.allow_unix_sockets: true to run without it, or sandbox.mode: off", err)
	}
	return nil
}

// Main is the sandbox helper: args are the policy (JSON), "--" and the
// command. It restricts itself with Landlock (writes only below the
// policy's directories and to /dev; no TCP bind or connect unless the
// network is allowed) and, unless the policy allows Unix sockets, with a
// seccomp filter that refuses new ones (see socketFilters), and executes
// the command, which keeps the restrictions, as does everything it starts. It returns only on failure,
// with exit status 126 (127 for a command not found).
func Main(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "talaria sandbox: usage: POLICY -- COMMAND [ARGS...]")
		return 126
	}
	var pol policy
	if err := json.Unmarshal([]byte(args[0]), &pol); err != nil {
		fmt.Fprintln(os.Stderr, "talaria sandbox: bad policy:", err)
		return 126
	}
	argv := args[2:]
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "talaria sandbox:", err)
		return 127
	}
	// A session of its own: no controlling terminal to inject input
	// into (TIOCSTI).
	if _, err := syscall.Setsid(); err != nil {
		fmt.Fprintln(os.Stderr, "talaria sandbox: setsid:", err)
		return 126
	}
	runtime.LockOSThread()
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		// The fresh /dev of the mount namespace: null, zero, tty, pts, shm.
		landlock.RWDirs("/dev").WithIoctlDev(),
	}
	if len(pol.Write) > 0 {
		rules = append(rules, landlock.RWDirs(pol.Write...).IgnoreIfMissing())
	}
	cfg := landlock.V5.BestEffort()
	if pol.Network {
		err = cfg.RestrictPaths(rules...)
	} else {
		// No net rule: every TCP bind and connect is refused (ABI 4+);
		// the network namespace cuts the rest.
		err = cfg.Restrict(rules...)
	}
	if err == nil {
		// Signals and abstract sockets only within the sandbox (ABI 6+).
		err = landlock.V6.BestEffort().RestrictScoped()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "talaria sandbox: Landlock:", err)
		return 126
	}
	// The seccomp filter last, on this locked thread (and, TSYNC, on the
	// others): nothing between it and exec needs a socket.
	if !pol.UnixSockets {
		if err := refuseUnixSockets(); err != nil {
			fmt.Fprintln(os.Stderr, "talaria sandbox: seccomp:", err)
			return 126
		}
	}
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintln(os.Stderr, "talaria sandbox: exec:", err)
	return 126
}
