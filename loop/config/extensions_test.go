package config

import (
	"strings"
	"testing"
)

func TestHooksConfig(t *testing.T) {
	good := "extensions:\n  claude_dirs: false\ntrusted_projects: [/src/app]\nhooks:\n  PreToolUse:\n    - matcher: Bash|Edit\n      hooks:\n        - type: command\n          command: ./h.sh\n          timeout: 30\n  Stop:\n    - hooks:\n        - type: prompt\n          prompt: ignored\n"
	cfg := Default()
	if err := Parse([]byte(strings.Replace(good, "          prompt: ignored\n", "", 1)), "c.yaml", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Extensions.ReadClaudeDirs() || cfg.Hooks["PreToolUse"][0].Hooks[0].Timeout != 30 || cfg.TrustedProjects[0] != "/src/app" {
		t.Errorf("cfg = %+v", cfg)
	}
	if !Default().Extensions.ReadClaudeDirs() {
		t.Error("claude_dirs defaults to true")
	}
	for yml, want := range map[string]string{
		"hooks:\n  PreToolUze: []\n":                                                   "hooks.PreToolUze: unknown hook event",
		"hooks:\n  Stop:\n    - hooks:\n        - command: \"\"\n":                     "hooks.Stop[0].hooks[0].command: required",
		"hooks:\n  Stop:\n    - hooks:\n        - command: x\n          timeout: -1\n": "timeout",
		"hooks:\n  PreToolUse:\n    - matcher: \"(?=x)\"\n":                            "hooks.PreToolUse[0].matcher",
		"trusted_projects: [rel/dir]\n":                                                "trusted_projects[0]: must be an absolute path",
		"hooks:\n  Stop:\n    - hooks:\n        - comand: x\n":                         "unknown key",
	} {
		cfg := Default()
		err := Parse([]byte(yml), "c.yaml", &cfg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", yml, err, want)
		}
	}
}
