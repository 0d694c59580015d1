package config

import (
	"slices"
	"strings"
	"testing"
)

func TestContainKeys(t *testing.T) {
	cfg := Default()
	if err := Parse([]byte("approvals: read-only\nsandbox:\n  mode: workspace-write\n  writable_roots: [/opt/cache, ~/go]\n  network: true\nterminal:\n  env_passthrough: [GH_TOKEN]\n"), "c.yaml", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Approvals != "read-only" || cfg.Sandbox.Mode != "workspace-write" || !cfg.Sandbox.Network || len(cfg.Sandbox.WritableRoots) != 2 || cfg.Terminal.EnvPassthrough[0] != "GH_TOKEN" {
		t.Errorf("parsed %+v %+v", cfg.Sandbox, cfg.Terminal)
	}
	for yaml, key := range map[string]string{
		"sandbox:\n  mode: strict\n":                "sandbox.mode",
		"sandbox:\n  writable_roots: [rel/dir]\n":   "sandbox.writable_roots[0]",
		"terminal:\n  env_passthrough: [\"A=B\"]\n": "terminal.env_passthrough[0]",
		"sandbox:\n  nework: true\n":                "sandbox.nework",
	} {
		c := Default()
		err := Parse([]byte(yaml), "c.yaml", &c)
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: %v, want an error naming %s", yaml, err, key)
		}
	}
	if Default().Sandbox.Mode != "off" {
		t.Error("the sandbox is on by default")
	}
	if Default().Sandbox.AllowUnixSockets {
		t.Error("Unix sockets are allowed by default")
	}
	c := Default()
	if err := Parse([]byte("sandbox:\n  mode: read-only\n  allow_unix_sockets: true\n"), "c.yaml", &c); err != nil || !c.Sandbox.AllowUnixSockets {
		t.Errorf("sandbox.allow_unix_sockets: %v %+v", err, c.Sandbox)
	}
	c = Default()
	if err := Parse([]byte("sandbox:\n  allow_unix_socket: true\n"), "c.yaml", &c); err == nil || !strings.Contains(err.Error(), "sandbox.allow_unix_socket") {
		t.Errorf("a misspelt allow_unix_sockets: %v", err)
	}
	o := Overrides{Sandbox: "read-only"}
	c = Default()
	if err := o.Apply(&c); err != nil || c.Sandbox.Mode != "read-only" {
		t.Errorf("--sandbox: %v %q", err, c.Sandbox.Mode)
	}
	if err := (Overrides{Sandbox: "x"}).Apply(&c); err == nil {
		t.Error("--sandbox x accepted")
	}
}

func TestKeyEnvNames(t *testing.T) {
	c := Default()
	c.Model = Model{Provider: "custom", APIKeyEnv: "MY_KEY_VAR", APIKeysEnv: []string{"POOL_A", "POOL_B"}}
	c.FallbackProviders = []Model{{Provider: "openai", APIKeyEnv: "FB_VAR"}}
	names := c.KeyEnvNames()
	for _, want := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "AWS_BEARER_TOKEN_BEDROCK", "MY_KEY_VAR", "POOL_A", "POOL_B", "FB_VAR"} {
		if !slices.Contains(names, want) {
			t.Errorf("KeyEnvNames lacks %s: %v", want, names)
		}
	}
}
