package config

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Terminal configures the commands terminal and process run.
type Terminal struct {
	// EnvPassthrough names environment variables that commands (and MCP
	// servers) inherit although their names look like secrets.
	EnvPassthrough []string `yaml:"env_passthrough"`
}

// Sandbox configures the OS sandbox of terminal and process commands.
type Sandbox struct {
	// Mode is off, read-only or workspace-write.
	Mode string `yaml:"mode"`
	// WritableRoots are directories workspace-write lets commands write
	// besides the working directory, /tmp and $TMPDIR.
	WritableRoots []string `yaml:"writable_roots"`
	// Network lets sandboxed commands use the network.
	Network bool `yaml:"network"`
	// AllowUnixSockets lets sandboxed commands make new Unix-domain
	// sockets, and so reach the services that listen on one (tmux,
	// ssh-agent, D-Bus, docker), and keeps the variables that point at
	// them ($TMUX, $SSH_AUTH_SOCK, ...). Off by default: a seccomp filter
	// refuses them.
	AllowUnixSockets bool `yaml:"allow_unix_sockets"`
}

// SandboxModes lists the values of sandbox.mode and --sandbox.
func SandboxModes() []string { return []string{"off", "read-only", "workspace-write"} }

// validateContain checks terminal.* and sandbox.writable_roots.
func validateContain(cfg *Config, bad func(key, msg string) error) error {
	for i, n := range cfg.Terminal.EnvPassthrough {
		if n == "" || strings.ContainsAny(n, "= \t") {
			return bad(fmt.Sprintf("terminal.env_passthrough[%d]", i), fmt.Sprintf("must be a variable name, got %q", n))
		}
	}
	for i, r := range cfg.Sandbox.WritableRoots {
		if !filepath.IsAbs(r) && !strings.HasPrefix(r, "~/") {
			return bad(fmt.Sprintf("sandbox.writable_roots[%d]", i), fmt.Sprintf("must be an absolute path (or start with ~/), got %q", r))
		}
	}
	return nil
}

// KeyEnvNames lists the environment variables that hold provider keys:
// the default key variable of every provider, and every api_key_env and
// api_keys_env of model and fallback_providers. Commands and MCP servers
// do not inherit them.
func (c Config) KeyEnvNames() []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, p := range Providers() {
		add(Defaults(p).APIKeyEnv)
	}
	for _, m := range append([]Model{c.Model}, c.FallbackProviders...) {
		add(m.APIKeyEnv)
		for _, n := range m.APIKeysEnv {
			add(n)
		}
	}
	return out
}
