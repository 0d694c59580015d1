package tools

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// CommandPolicy is how terminal and process start commands: their
// environment and, when set, the OS sandbox they run in.
type CommandPolicy struct {
	// Environ is the environment of commands; nil means the process
	// environment with secrets removed (see FilterEnviron).
	Environ []string
	// Sandbox, when set, wraps each command (the shell and everything it
	// starts) in the OS sandbox; nil runs commands unsandboxed.
	Sandbox Sandboxer
}

// Sandboxer wraps a command line in an OS sandbox: *sandbox.Sandbox
// fits it.
type Sandboxer interface {
	// Wrap returns the program and arguments that run argv inside the
	// sandbox with working directory dir.
	Wrap(argv []string, dir string) ([]string, error)
	// Mode names the sandbox mode for messages (read-only,
	// workspace-write).
	Mode() string
	// Network reports whether sandboxed commands may use the network.
	Network() bool
	// StoppedHint says, for the output of a failed command, that the
	// sandbox probably stopped it and how to allow it; "" when nothing
	// points at the sandbox.
	StoppedHint(output string) string
}

// FilterEnviron returns environ without the variables named in keys
// (the provider key variables) and without those whose names contain KEY,
// SECRET, TOKEN or PASSWORD, unless they are named in passthrough.
func FilterEnviron(environ, keys, passthrough []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(passthrough, name) || !isSecretName(name, keys) {
			out = append(out, kv)
		}
	}
	return out
}

// isSecretName reports whether the variable name is one of keys or looks
// like a secret (LooksSecret).
func isSecretName(name string, keys []string) bool {
	return slices.Contains(keys, name) || LooksSecret(name)
}

// LooksSecret reports whether an environment variable's name says it
// holds a secret: it contains KEY, SECRET, TOKEN or PASSWORD, in any case.
// Commands never get such variables unless passed through; recordings
// mask their values.
func LooksSecret(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range [...]string{"KEY", "SECRET", "TOKEN", "PASSWORD"} {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// environ returns the environment commands get.
func (p CommandPolicy) environ() []string {
	if p.Environ != nil {
		return p.Environ
	}
	return FilterEnviron(os.Environ(), nil, nil)
}

// shellCommand builds the command that runs the shell script command in
// dir under the policy: its environment, and the sandbox when one is set.
// ctx kills it as exec.CommandContext does.
func (p CommandPolicy) shellCommand(ctx context.Context, command, dir string) (*exec.Cmd, error) {
	// "--": a command starting with - or + is a script, never options.
	argv := []string{shellPath(), "-c", "--", command}
	if p.Sandbox != nil {
		w, err := p.Sandbox.Wrap(argv, dir)
		if err != nil {
			return nil, err
		}
		argv = w
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, p.environ()
	return cmd, nil
}

// commandPolicy returns the policy of env (the zero policy without env).
func commandPolicy(env *Env) CommandPolicy {
	if env == nil {
		return CommandPolicy{}
	}
	return env.Commands
}
