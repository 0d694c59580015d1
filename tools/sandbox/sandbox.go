// Package sandbox runs commands under an OS sandbox: Linux Landlock
// (github.com/landlock-lsm/go-landlock) restricts where the command's
// whole process tree may write and whether it may open TCP connections,
// a seccomp filter (github.com/elastic/go-seccomp-bpf) refuses it new
// Unix-domain sockets, through which it could ask a service outside the
// sandbox (tmux, ssh-agent, D-Bus, docker) to act for it, and bubblewrap
// gives it mount, PID and network namespaces: / is mounted read-only but
// for the writable roots (Landlock does not cover chmod, chown or utimes),
// .git directories and $TALARIA_HOME stay read-only inside a writable
// working directory (Landlock alone cannot carve a folder out of a granted
// one), nothing it starts outlives it, and with the network off it has
// only its own loopback.
//
// The main process is never restricted: [Sandbox.Wrap] returns a command
// line that starts bwrap, which starts the talaria executable again with
// [HelperArg]; that helper ([Main]) applies Landlock and the seccomp
// filter to itself and then executes the command, which inherits the
// restrictions and cannot lift them.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is a sandbox mode, as written in config.yaml (sandbox.mode) and
// --sandbox.
type Mode string

// The sandbox modes.
const (
	// Off runs commands unsandboxed.
	Off Mode = "off"
	// ReadOnly lets commands read everywhere and write nowhere.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite lets commands write in the working directory, /tmp,
	// $TMPDIR and the writable roots, except under .git and
	// $TALARIA_HOME.
	WorkspaceWrite Mode = "workspace-write"
)

// HelperArg is the hidden first argument with which talaria runs as the
// sandbox helper (see [Main]).
const HelperArg = "__talaria_sandbox_exec"

// ProbeEnv, set to "fail", makes the probe report that Landlock is
// unavailable, as on a kernel without it (for tests).
const ProbeEnv = "TALARIA_SANDBOX_PROBE"

// minABI is the oldest Landlock ABI used: 3 is the first that also
// restricts truncation.
const minABI = 3

// maxGitScan bounds the entries visited when looking for .git
// directories below a writable root.
const maxGitScan = 200_000

// Config says what a sandbox allows.
type Config struct {
	// Mode is ReadOnly or WorkspaceWrite.
	Mode Mode
	// Cwd is the working directory (writable in WorkspaceWrite).
	Cwd string
	// WritableRoots are further writable directories (WorkspaceWrite).
	WritableRoots []string
	// Protected are paths that stay read-only even below a writable root
	// ($TALARIA_HOME); every .git below a writable root is added.
	Protected []string
	// Network lets commands use the network.
	Network bool
	// AllowUnixSockets lets commands make new Unix-domain sockets (and
	// keeps the variables that point at them, see [SocketEnv]); without
	// it the helper's seccomp filter refuses them.
	AllowUnixSockets bool
	// Executable is the program run as the helper; "" is this process's
	// executable.
	Executable string
}

// Sandbox wraps commands so they run restricted. Create it with New.
type Sandbox struct {
	cfg      Config
	bwrap    string
	exe      string
	writable []string
	// gitDirs are the .git entries below the writable roots, found once
	// by New (a walk of a large tree is too slow for every command).
	gitDirs []string
}

// policy is what the helper is told to enforce.
type policy struct {
	Write       []string `json:"write"`
	Network     bool     `json:"network"`
	UnixSockets bool     `json:"unix_sockets"`
}

// SocketEnv lists the environment variables that point commands at a
// Unix socket of a service outside the sandbox (or, for DISPLAY, at the X
// server's). Unless Unix sockets are allowed, they are removed from the
// commands' environment: the sockets could not be reached anyway, and a
// program told of one fails less clearly than one that was not.
func SocketEnv() []string {
	return []string{
		"TMUX", "TMUX_PANE", "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
		"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
		"DOCKER_HOST", "CONTAINER_HOST", "XDG_RUNTIME_DIR",
		"WAYLAND_DISPLAY", "WAYLAND_SOCKET", "DISPLAY", "PULSE_SERVER",
	}
}

// New checks that this system can sandbox (Landlock ABI, bubblewrap) and
// returns the sandbox for cfg. The error names the reason when it cannot:
// a mode other than off must then fail, never run unsandboxed.
func New(cfg Config) (*Sandbox, error) {
	if cfg.Mode != ReadOnly && cfg.Mode != WorkspaceWrite {
		return nil, fmt.Errorf("sandbox mode %q: use read-only or workspace-write", cfg.Mode)
	}
	if err := Probe(); err != nil {
		return nil, err
	}
	if !cfg.AllowUnixSockets {
		if err := probeSeccomp(); err != nil {
			return nil, err
		}
	}
	if err := checkAbsolute(cfg); err != nil {
		return nil, err
	}
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("the sandbox needs bubblewrap (bwrap) for its mount and network namespaces, and it is not installed: install the bubblewrap package, or set sandbox.mode: off")
	}
	exe := cfg.Executable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("the sandbox cannot find the talaria executable: %v", err)
		}
	}
	s := &Sandbox{cfg: cfg, bwrap: bw, exe: exe}
	if cfg.Mode != WorkspaceWrite {
		return s, nil
	}
	// /tmp and $TMPDIR: shared scratch space, writable but not scanned.
	scratch := map[string]bool{}
	for i, r := range append([]string{"/tmp", os.Getenv("TMPDIR"), cfg.Cwd}, cfg.WritableRoots...) {
		if r == "" {
			continue
		}
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		if i < 2 {
			scratch[real] = true
		}
		if !slices.Contains(s.writable, real) {
			s.writable = append(s.writable, real)
		}
	}
	for _, root := range s.writable {
		if !scratch[root] {
			s.gitDirs = append(s.gitDirs, findGit(root)...)
		}
	}
	return s, nil
}

// checkAbsolute refuses a relative path where the sandbox needs a place:
// the helper would resolve it against each command's own working
// directory, so that TMPDIR=. would make whatever directory a command
// runs in writable.
func checkAbsolute(cfg Config) error {
	if cfg.Cwd != "" && !filepath.IsAbs(cfg.Cwd) {
		return fmt.Errorf("sandbox: the working directory %q is not an absolute path", cfg.Cwd)
	}
	for _, r := range cfg.WritableRoots {
		if !filepath.IsAbs(r) {
			return fmt.Errorf("sandbox.writable_roots: %q is not an absolute path", r)
		}
	}
	for _, p := range cfg.Protected {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("sandbox: the protected path %q is not an absolute path", p)
		}
	}
	if t := os.Getenv("TMPDIR"); cfg.Mode == WorkspaceWrite && t != "" && !filepath.IsAbs(t) {
		return fmt.Errorf("TMPDIR=%s is a relative path: workspace-write lets commands write in $TMPDIR, and a relative one would make every directory a command runs in writable; set TMPDIR to an absolute path (or unset it) to use the sandbox", t)
	}
	return nil
}

// Mode returns the sandbox mode.
func (s *Sandbox) Mode() string { return string(s.cfg.Mode) }

// Network reports whether sandboxed commands may use the network.
func (s *Sandbox) Network() bool { return s.cfg.Network }

// Writable lists the directories commands may write below (resolved).
func (s *Sandbox) Writable() []string { return slices.Clone(s.writable) }

// Wrap returns the command line that runs argv in the sandbox with
// working directory dir.
func (s *Sandbox) Wrap(argv []string, dir string) ([]string, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	pol, err := json.Marshal(policy{Write: s.writable, Network: s.cfg.Network, UnixSockets: s.cfg.AllowUnixSockets})
	if err != nil {
		return nil, err
	}
	// No --new-session: the namespace's first process stays in the
	// caller's process group, so that signalling the group (a timeout, a
	// kill) ends the namespace and with it everything inside, whatever
	// moment it comes at. The helper starts the new session instead.
	out := []string{s.bwrap, "--die-with-parent", "--unshare-pid"}
	if !s.cfg.Network {
		out = append(out, "--unshare-net")
	}
	if !s.cfg.AllowUnixSockets {
		for _, v := range SocketEnv() {
			out = append(out, "--unsetenv", v)
		}
	}
	// / read-only (Landlock does not cover metadata: chmod, chown,
	// utimes), a fresh /dev and /proc, then each writable root
	// read-write, parents before children, then the protected paths
	// read-only on top of them. A writable root removed since New is
	// skipped (-try); a protected path that vanished fails the command.
	// /dev and /proc come after the roots, so that not even a root of /
	// brings back the host's.
	out = append(out, "--ro-bind", "/", "/")
	roots := slices.Clone(s.writable)
	slices.SortStableFunc(roots, func(a, b string) int { return len(a) - len(b) })
	for _, r := range roots {
		out = append(out, "--bind-try", r, r)
	}
	out = append(out, "--dev", "/dev", "--proc", "/proc")
	for _, p := range s.protected() {
		out = append(out, "--ro-bind", p, p)
	}
	if dir != "" {
		out = append(out, "--chdir", dir)
	}
	out = append(out, "--", s.exe, HelperArg, string(pol), "--")
	return append(out, argv...), nil
}

// protected lists the existing paths to bind read-only, resolved: the
// configured ones, the .git entries New found below the writable roots
// (not below /tmp and $TMPDIR: shared scratch space), and the working
// directory's .git, looked for again on every command so that one made by
// git init during the session is covered from the next command on.
func (s *Sandbox) protected() []string {
	var out []string
	add := func(p string) {
		if real, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	for _, p := range s.cfg.Protected {
		add(p)
	}
	for _, g := range s.gitDirs {
		add(g)
	}
	if s.cfg.Mode == WorkspaceWrite && s.cfg.Cwd != "" {
		add(filepath.Join(s.cfg.Cwd, ".git"))
	}
	return out
}

// findGit returns every entry named .git below root (itself included),
// visiting at most maxGitScan entries; it does not descend into a .git.
func findGit(root string) []string {
	var out []string
	n := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxGitScan {
			return filepath.SkipAll
		}
		if d.Name() == ".git" {
			out = append(out, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out
}

// StoppedHint says, for the output of a failed sandboxed command, whether
// the sandbox probably stopped it, and how to allow what it did; "" when
// nothing in the output points at the sandbox. A refused Unix socket is
// told by its error, [SocketErrno] ("Address family not supported by
// protocol").
func (s *Sandbox) StoppedHint(output string) string {
	low := strings.ToLower(output)
	if !s.cfg.AllowUnixSockets && strings.Contains(low, "address family not supported") {
		return "the sandbox refused it a Unix-domain socket (sandbox.allow_unix_sockets: false): commands may not connect to services outside the sandbox (tmux, ssh-agent, D-Bus, docker). To allow it, set sandbox.allow_unix_sockets: true, or run talaria with --sandbox off."
	}
	if !s.cfg.AllowUnixSockets && strings.Contains(low, "bad system call") {
		return "the sandbox's seccomp filter ended it: it made a system call of another ABI (a 32-bit program) or one newer than the filter knows. To allow it, set sandbox.allow_unix_sockets: true (which drops the filter), or run talaria with --sandbox off."
	}
	fsDenied := strings.Contains(low, "permission denied") || strings.Contains(low, "read-only file system") || strings.Contains(low, "operation not permitted")
	netWords := strings.Contains(low, "connect") || strings.Contains(low, "/dev/tcp") || strings.Contains(low, "socket") || strings.Contains(low, "network")
	netDenied := !s.cfg.Network && (strings.Contains(low, "connection refused") || strings.Contains(low, "network is unreachable") ||
		strings.Contains(low, "could not resolve") || strings.Contains(low, "temporary failure in name resolution") ||
		strings.Contains(low, "name or service not known") || (fsDenied && netWords))
	switch {
	case netDenied:
		return "the sandbox cut the network (sandbox.network: false). To allow it, set sandbox.network: true, or run talaria with --sandbox off."
	case fsDenied && s.cfg.Mode == ReadOnly:
		return "the sandbox (read-only) stopped it: commands may not write anywhere. To allow writes, use sandbox.mode: workspace-write (or --sandbox workspace-write)."
	case fsDenied:
		return fmt.Sprintf("the sandbox (workspace-write) probably stopped it: commands may write only below %s, and never under .git or $TALARIA_HOME. To allow another directory, add it to sandbox.writable_roots, or run talaria with --sandbox off.", strings.Join(s.writable, ", "))
	}
	return ""
}
